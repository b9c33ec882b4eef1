package dev.collectives.annotation;

/** Where a {@link Buffer}'s memory comes from. */
public enum Allocator {
    /** {@code ncclMemAlloc}/{@code mcclMemAlloc}: VMM memory at the recommended granularity. */
    MEM_ALLOC,
    /** The project's own qualified VMM allocator (POSIX fd handle type, FABRIC where supported). */
    VMM,
    /** Legacy {@code cudaMalloc}/{@code musaMalloc}: registering it needs the opt-in and the variable (R9). */
    LEGACY,
    /** A user class named by {@link Buffer#customAllocator()} (R11). */
    CUSTOM
}
