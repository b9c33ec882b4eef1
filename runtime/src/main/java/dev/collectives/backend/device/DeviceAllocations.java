package dev.collectives.backend.device;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.rules.Message;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceAllocator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.DeviceMemory;
import dev.collectives.runtime.ForeignMemory;
import dev.collectives.runtime.QualifiedVmmAllocator;
import dev.collectives.runtime.RegisteredWindow;
import dev.collectives.runtime.RegistrationHandle;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.VirtualMemory;
import dev.collectives.runtime.internal.AllocatorRule;
import dev.collectives.runtime.internal.CallArguments;
import dev.collectives.runtime.internal.LegacyRegistrationRule;
import dev.collectives.runtime.spi.FlightEvents;
import jdk.jfr.Event;

/**
 * One rank's memory and what the library knows of it: allocation ({@code MemAlloc}, legacy, VMM, a custom
 * allocator's, R11), memory a framework owns ({@code wrap}), registration (R6, R9) and windows (R10, R12).
 */
final class DeviceAllocations {
    private static final int WIN_COLL_SYMMETRIC = 1;

    private final DeviceRank comm;
    /** The communicator these serve, as rules and events name it. */
    private final Communicator owner;

    private final NativeComm handle;
    private final NativeLibrary library;
    private final DeviceProbe probe;
    private final CallArguments arguments;
    private final int rank;
    private final DeviceVirtualMemory vmm;
    private final DeviceVirtualMemory customVmm;

    DeviceAllocations(
            DeviceRank comm, Communicator owner, NativeComm handle, DeviceProbe probe, CallArguments arguments) {
        this.comm = comm;
        this.owner = owner;
        this.handle = handle;
        this.library = handle.library();
        this.probe = probe;
        this.arguments = arguments;
        this.rank = comm.rank();
        this.vmm = new DeviceVirtualMemory(comm, probe, Allocator.VMM);
        this.customVmm = new DeviceVirtualMemory(comm, probe, Allocator.CUSTOM);
    }

    /** For custom allocators; what it maps is labelled CUSTOM. */
    VirtualMemory virtualMemory() {
        return customVmm;
    }

    long granularity() {
        return probe.granularity(vmm);
    }

    DeviceBuffer allocate(Allocator allocator, DataType type, long count) {
        handle.requireOpen();
        long bytes = arguments.bytes("allocate", count, type);
        DeviceMemory memory;
        switch (allocator) {
            case MEM_ALLOC:
                memory = NativeMemory.memAlloc(comm, bytes);
                break;
            case LEGACY:
                memory = NativeMemory.legacy(comm, bytes);
                break;
            case VMM:
                memory = new QualifiedVmmAllocator().allocate(vmm, bytes);
                break;
            default:
                throw CollectivesException.usage(
                        rank,
                        "allocate(" + allocator + ") needs a DeviceAllocator: use "
                                + "allocate(DeviceAllocator, type, count)");
        }
        return DeviceBuffer.root(memory, type, count);
    }

    DeviceBuffer allocate(DeviceAllocator allocator, DataType type, long count) {
        handle.requireOpen();
        long bytes = arguments.bytes("allocate", count, type);
        DeviceMemory memory = allocator.allocate(customVmm, bytes);
        try {
            AllocatorRule.check(
                    allocator.getClass(),
                    memory,
                    granularity(),
                    probe.capabilities().fabricHandles(),
                    rank);
            if (memory.size() < bytes) {
                throw CollectivesException.violation(
                        Message.R11_SHORT_ALLOCATION,
                        rank,
                        AllocatorRule.nameOf(allocator.getClass()),
                        memory.size(),
                        bytes);
            }
        } catch (RuntimeException e) {
            memory.close();
            throw e;
        }
        return DeviceBuffer.root(memory, type, count);
    }

    /** Memory classified by the driver ({@link NativeMemory#classify}); the buffer frees nothing. */
    DeviceBuffer wrap(long address, long bytes, DataType type) {
        handle.requireOpen();
        ForeignMemory.Classification found = NativeMemory.classify(comm, address);
        long count = ForeignMemory.check(rank, comm.device(), address, bytes, type, found);
        return DeviceBuffer.wrapped(NativeMemory.foreign(comm, found), address - found.head(), type, count);
    }

    private NativeMemory nativeMemory(DeviceBuffer buffer, String what) {
        return (NativeMemory) arguments.memory(what, buffer);
    }

    // ---- registration and windows ------------------------------------------------------------------------------

    RegistrationHandle register(DeviceBuffer buffer) {
        handle.requireOpen();
        NativeMemory memory = nativeMemory(buffer, "register");
        if (!probe.capabilities().registration()) {
            throw CollectivesException.usage(
                    rank,
                    library.dialect.ccl("CommRegister") + " needs library 2.28.9 or " + "later; this is "
                            + library.versionString());
        }
        LegacyRegistrationRule.check(owner, buffer);
        AllocatorRule.checkForeign(owner, buffer, "buffer " + buffer);
        long[] out = new long[1];
        Event event = FlightEvents.registrationStarted();
        handle.complete(
                handle.onHandle(commHandle ->
                        library.api.commRegister(library.lib, commHandle, memory.address(), memory.size(), out)),
                library.dialect.ccl("CommRegister"));
        FlightEvents.registrationDone(event, owner, "CommRegister", memory.size());
        return new DeviceRegistration(comm, buffer, memory, out[0]);
    }

    RegisteredWindow registerWindow(DeviceBuffer buffer, boolean symmetric) {
        handle.requireOpen();
        NativeMemory memory = nativeMemory(buffer, "registerWindow");
        if (!library.has(NativeLibrary.Slots.WINDOW_REGISTER)) {
            throw CollectivesException.usage(
                    rank,
                    library.dialect.backendName() + " " + library.versionString() + " lacks "
                            + library.symbol(NativeLibrary.Slots.WINDOW_REGISTER));
        }
        arguments.window(buffer, library.dialect.ccl("MemAlloc"));
        long window;
        try (NativeSlot out = new NativeSlot()) {
            int rc = handle.onHandle(commHandle -> library.api.windowRegister(
                    library.lib,
                    commHandle,
                    buffer.address(),
                    buffer.sizeBytes(),
                    symmetric ? WIN_COLL_SYMMETRIC : 0,
                    out.pointer()));
            window = out.afterGroupJob(handle, rc, library.dialect.ccl("CommWindowRegister"));
        }
        if (window == 0) {
            throw CollectivesException.library(
                    Result.INVALID_USAGE,
                    rank,
                    library.symbol(NativeLibrary.Slots.WINDOW_REGISTER),
                    "returned a NULL window: this communicator " + "has no " + (symmetric ? "symmetric " : "")
                            + "window support");
        }
        return new DeviceWindow(comm, buffer, memory, window, symmetric);
    }
}
