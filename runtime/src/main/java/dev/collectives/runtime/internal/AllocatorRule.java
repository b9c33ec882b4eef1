package dev.collectives.runtime.internal;

import dev.collectives.annotation.HandleType;
import dev.collectives.annotation.QualifiedAllocator;
import dev.collectives.rules.Message;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.DeviceMemory;

/** R11 ALLOCATOR at run time: what a qualified allocator's memory must look like. The one place that checks it. */
public final class AllocatorRule {
    private AllocatorRule() {}

    /**
     * An allocator class as its user wrote it, for messages: {@code Outer.Pool} (not the binary {@code Outer$Pool});
     * a local or anonymous class, or a lambda, by the class it is declared in.
     */
    public static String nameOf(Class<?> allocatorClass) {
        if (allocatorClass.getCanonicalName() != null) {
            return allocatorClass.getCanonicalName();
        }
        if (allocatorClass.isHidden()) {
            return "a lambda in " + nameOf(allocatorClass.getNestHost());
        }
        String in =
                allocatorClass.getEnclosingClass() == null ? "" : " in " + nameOf(allocatorClass.getEnclosingClass());
        return (allocatorClass.isAnonymousClass()
                        ? "an anonymous class"
                        : "local class " + allocatorClass.getSimpleName())
                + in;
    }

    /**
     * Checks the allocator's declaration and one allocation it made: POSIX fd handles (and FABRIC where the
     * device supports it), physical size a multiple of the granularity, head aligned to it, reservation a
     * multiple of it.
     */
    public static void check(
            Class<?> allocatorClass, DeviceMemory memory, long granularity, boolean fabricSupported, int rank) {
        String who = nameOf(allocatorClass);
        if (allocatorClass.getAnnotation(QualifiedAllocator.class) == null) {
            throw CollectivesException.violation(Message.R11_UNQUALIFIED_AT_RUN_TIME, rank, who);
        }
        if (!memory.handleTypes().contains(HandleType.POSIX_FILE_DESCRIPTOR)) {
            throw CollectivesException.violation(
                    Message.R11_ALLOCATED_WITHOUT_POSIX, rank, who, memory, memory.handleTypes());
        }
        if (fabricSupported && !memory.handleTypes().contains(HandleType.FABRIC)) {
            throw CollectivesException.violation(Message.R11_ALLOCATED_WITHOUT_FABRIC, rank, who, memory);
        }
        requireMultiple(who, "physical size", memory.physicalSize(), granularity, rank);
        requireMultiple(who, "head address", memory.address(), granularity, rank);
        requireMultiple(who, "reserved size", memory.reservedSize(), granularity, rank);
    }

    /**
     * Wrapped VMM memory that is registered must be what a qualified allocator makes, since no allocator of this
     * project vouched for it: handle types, then sizes and alignment, as the driver reported them. Legacy memory
     * is R9's, and owned memory was checked when it was allocated.
     *
     * @param what names the buffer in the message, e.g. "pipeline.Name: external buffer `shard`"
     */
    public static void checkForeign(Communicator comm, DeviceBuffer buffer, String what) {
        DeviceMemory memory = buffer.memory();
        if (!memory.isForeign() || !memory.isVirtualMemory()) {
            return;
        }
        String who = what + " (" + memory.origin() + ")";
        int rank = comm.rank();
        if (!memory.handleTypes().contains(HandleType.POSIX_FILE_DESCRIPTOR)) {
            throw CollectivesException.violation(Message.R11_FOREIGN_WITHOUT_POSIX, rank, who);
        }
        if (comm.capabilities().fabricHandles() && !memory.handleTypes().contains(HandleType.FABRIC)) {
            throw CollectivesException.violation(Message.R11_FOREIGN_WITHOUT_FABRIC, rank, who);
        }
        requireMultiple(who, "physical size", memory.physicalSize(), comm.granularity(), rank);
        requireMultiple(who, "head address", memory.address(), comm.granularity(), rank);
    }

    private static void requireMultiple(String who, String what, long value, long granularity, int rank) {
        if (Long.remainderUnsigned(value, granularity) != 0) {
            throw CollectivesException.violation(
                    Message.R11_NOT_GRANULAR, rank, who, what, Long.toHexString(value), value, granularity);
        }
    }
}
