package dev.collectives.runtime;

import dev.collectives.rules.Rule;

/**
 * A custom allocator (rule R11, {@link Rule#R11_ALLOCATOR}). Annotate the class with
 * {@link dev.collectives.annotation.QualifiedAllocator} and give it a public no-argument constructor; the
 * runtime checks each allocation's sizes and alignment against the recommended granularity.
 */
public interface DeviceAllocator {
    /** At least {@code bytes} usable bytes, made with {@code vmm}. */
    DeviceMemory allocate(VirtualMemory vmm, long bytes);
}
