package dev.collectives.annotation;

/** Shareable handle types of VMM allocations ({@code MU_MEM_HANDLE_TYPE_*} / {@code CU_MEM_HANDLE_TYPE_*}). */
public enum HandleType {
    /** A POSIX file descriptor: what every qualified allocator exports (R11). */
    POSIX_FILE_DESCRIPTOR(0x1),
    /** A fabric handle: exported too where the GPU supports it, and needed under MTLink SHARP (R11). */
    FABRIC(0x8);

    private final int flag;

    HandleType(int flag) {
        this.flag = flag;
    }

    /** The driver's bit for this handle type. */
    public int flag() {
        return flag;
    }
}
