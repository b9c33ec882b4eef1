package dev.collectives.annotation;

/** Shareable handle types of VMM allocations ({@code MU_MEM_HANDLE_TYPE_*} / {@code CU_MEM_HANDLE_TYPE_*}). */
public enum HandleType {
    POSIX_FILE_DESCRIPTOR(0x1),
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
