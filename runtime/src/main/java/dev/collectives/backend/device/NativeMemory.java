package dev.collectives.backend.device;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.HandleType;
import dev.collectives.rules.Message;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.ForeignMemory;
import dev.collectives.runtime.ForeignMemory.Classification;
import dev.collectives.runtime.ForeignMemory.Residence;
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.bytedeco.javacpp.BytePointer;

/**
 * Device memory of one rank: {@code MemAlloc}, legacy {@code Malloc}, or VMM through the driver, pinned host memory
 * mapped into the device ({@link #mappedHost}), or memory a framework owns ({@link #foreign}), which is never freed
 * here. It counts the registrations, windows and graphs that use it, and refuses to be freed while any is live (R5,
 * R6, R12).
 */
final class NativeMemory extends dev.collectives.runtime.DeviceMemory {
    /** The shim's residence codes: 0 unknown to the driver, 1 device, 2 pinned host, 3 managed. */
    private static final Residence[] RESIDENCES = {
        Residence.UNKNOWN, Residence.DEVICE, Residence.PINNED_HOST, Residence.MANAGED
    };

    private final DeviceRank comm;
    /** VMM only: the driver's allocation handle. */
    private final long vmmHandle;
    /** Mapped pinned host memory only: the host's address of it, which {@code FreeHost} takes; else 0. */
    private final long hostAddress;

    final AtomicInteger registrations = new AtomicInteger();
    final AtomicInteger windows = new AtomicInteger();
    final AtomicInteger graphs = new AtomicInteger();

    private NativeMemory(
            DeviceRank comm,
            long address,
            long size,
            Allocator allocator,
            long physicalSize,
            long reservedSize,
            Set<HandleType> handleTypes,
            long vmmHandle,
            long hostAddress) {
        super(address, size, allocator, physicalSize, reservedSize, handleTypes);
        this.comm = comm;
        this.vmmHandle = vmmHandle;
        this.hostAddress = hostAddress;
        comm.nativeComm().track(this);
    }

    /** A framework's allocation, as the driver described it; untracked, since its owner frees it. */
    private NativeMemory(DeviceRank comm, Classification found, String foreignClass) {
        super(
                found.head(),
                found.size(),
                found.allocator(),
                found.size(),
                found.size(),
                found.handleTypes(),
                foreignClass);
        this.comm = comm;
        this.vmmHandle = 0;
        this.hostAddress = 0;
    }

    /** The allocation that holds {@code address}, wrapped as foreign memory (see {@link #classify}). */
    static NativeMemory foreign(DeviceRank comm, Classification found) {
        String legacyAllocator = comm.library().dialect.symbol(1, "Malloc");
        return new NativeMemory(comm, found, ForeignMemory.describe(found, legacyAllocator));
    }

    /**
     * Asks the driver what {@code address} is: where it lives ({@code PointerGetAttributes}), its allocation
     * ({@code MemGetAddressRange}), and whether that is a VMM allocation and with which handle types
     * ({@code MemRetainAllocationHandle}, {@code MemGetAllocationPropertiesFromHandle}).
     */
    static Classification classify(DeviceRank comm, long address) {
        NativeLibrary n = comm.library();
        n.requireSymbols(
                comm.rank(),
                "wrap",
                NativeLibrary.Slots.POINTER_GET_ATTRIBUTES,
                NativeLibrary.Slots.MEM_GET_ADDRESS_RANGE,
                NativeLibrary.Slots.MEM_RETAIN_ALLOCATION_HANDLE,
                NativeLibrary.Slots.MEM_GET_ALLOCATION_PROPERTIES);
        long[] out = new long[7];
        int rc = n.api.classify(n.lib, comm.device(), address, out);
        if (rc != 0 && out[6] == 0) {
            n.checkRuntime(rc, comm.rank(), "SetDevice");
        }
        if (rc != 0) {
            n.checkDriver(rc, comm.rank(), out[6] == 2 ? "MemGetAddressRange_v2" : "PointerGetAttributes");
        }
        Residence residence = RESIDENCES[(int) out[0]];
        if (residence != Residence.DEVICE) {
            return Classification.notDevice(residence);
        }
        Set<HandleType> handles = EnumSet.noneOf(HandleType.class);
        for (HandleType t : HandleType.values()) {
            if ((out[5] & t.flag()) != 0) {
                handles.add(t);
            }
        }
        return new Classification(residence, (int) out[1], out[2], out[3], out[4] != 0, handles);
    }

    /** {@code MemAlloc}: the library rounds up to the granularity. */
    static NativeMemory memAlloc(DeviceRank comm, long bytes) {
        long[] out = new long[1];
        NativeLibrary n = comm.library();
        n.check(n.api.memAlloc(n.lib, comm.device(), Math.max(bytes, 1), out), comm.rank(), 0, "MemAlloc");
        return new NativeMemory(
                comm, out[0], bytes, Allocator.MEM_ALLOC, bytes, bytes, Set.of(HandleType.POSIX_FILE_DESCRIPTOR), 0, 0);
    }

    /** Legacy {@code cudaMalloc}/{@code musaMalloc}. */
    static NativeMemory legacy(DeviceRank comm, long bytes) {
        long[] out = new long[1];
        NativeLibrary n = comm.library();
        n.checkRuntime(n.api.runtimeMalloc(n.lib, comm.device(), Math.max(bytes, 1), out), comm.rank(), "Malloc");
        return new NativeMemory(comm, out[0], bytes, Allocator.LEGACY, bytes, bytes, Set.of(), 0, 0);
    }

    /**
     * Pinned host memory ({@code MallocHost}), which the device runtime maps into every device under unified
     * addressing: {@link #address()} is where the device reaches it ({@code HostGetDevicePointer}), so that
     * collectives read and write it in place, and {@link #hostBuffer()} is where the host does. Legacy memory to the
     * rules; the runtime's own, never registered.
     */
    static NativeMemory mappedHost(DeviceRank comm, long bytes) {
        long[] out = new long[1];
        NativeLibrary n = comm.library();
        n.checkRuntime(
                n.api.runtimeMallocHost(n.lib, comm.device(), Math.max(bytes, 1), out), comm.rank(), "MallocHost");
        long host = out[0];
        int rc = n.api.runtimeHostDevicePointer(n.lib, comm.device(), host, out);
        if (rc != 0) {
            n.api.runtimeFreeHost(n.lib, host);
            n.checkRuntime(rc, comm.rank(), "HostGetDevicePointer");
        }
        return new NativeMemory(comm, out[0], bytes, Allocator.LEGACY, bytes, bytes, Set.of(), 0, host);
    }

    /** VMM memory: create, reserve, map, set access, with the sizes taken as given (R11 is checked on them). */
    static NativeMemory vmm(
            DeviceRank comm,
            Allocator allocator,
            long physicalSize,
            long reservedSize,
            long alignment,
            Set<HandleType> handleTypes) {
        int flags = 0;
        for (HandleType t : handleTypes) {
            flags |= t.flag();
        }
        long[] out = new long[3];
        NativeLibrary n = comm.library();
        int step = n.api.vmmMap(n.lib, comm.device(), physicalSize, reservedSize, alignment, flags, out);
        if (step != 0) {
            String[] calls = {"MemCreate", "MemAddressReserve", "MemMap", "MemSetAccess"};
            n.checkDriver((int) out[2], comm.rank(), calls[-step - 1]);
        }
        return new NativeMemory(
                comm, out[0], physicalSize, allocator, physicalSize, reservedSize, handleTypes, out[1], 0);
    }

    /** The bytes of memory made by {@link #mappedHost} as the host reads and writes them. */
    ByteBuffer hostBuffer() {
        long host = hostAddress;
        long bytes = size();
        // a BytePointer, whose elements are bytes: a plain Pointer's buffer counts in pointer-sized elements
        return new BytePointer() {
            {
                this.address = host;
                this.limit = bytes;
                this.capacity = bytes;
            }
        }.asByteBuffer();
    }

    @Override
    public void copyIn(long offset, ByteBuffer src) {
        try (BytePointer host = direct(src)) {
            copy(address() + offset, host.address() + host.position(), src.remaining());
        }
    }

    @Override
    public void copyOut(long offset, ByteBuffer dst) {
        try (BytePointer host = direct(dst)) {
            copy(host.address() + host.position(), address() + offset, dst.remaining());
            if (!dst.isDirect()) {
                dst.duplicate().put(host.asByteBuffer());
            }
        }
    }

    /** The remaining bytes of {@code buffer} in native memory: the buffer itself if direct, else a copy. */
    private static BytePointer direct(ByteBuffer buffer) {
        if (buffer.isDirect()) {
            return new BytePointer(buffer);
        }
        BytePointer copy = new BytePointer(buffer.remaining());
        copy.asByteBuffer().put(buffer.duplicate());
        return copy;
    }

    @Override
    public int rank() {
        return comm.rank();
    }

    /** Device-to-device or host copies, synchronous. */
    void copy(long dst, long src, long bytes) {
        NativeLibrary n = comm.library();
        n.checkRuntime(n.api.memcpy(n.lib, comm.device(), dst, src, bytes), comm.rank(), "Memcpy");
    }

    @Override
    protected void free() {
        if (graphs.get() > 0) {
            throw CollectivesException.violation(Message.R5_FREE_IN_GRAPH, comm.rank(), this, graphs.get());
        }
        if (registrations.get() > 0) {
            throw CollectivesException.violation(Message.R6_FREE_REGISTERED, comm.rank(), this, registrations.get());
        }
        if (windows.get() > 0) {
            throw CollectivesException.violation(Message.R12_FREE_WINDOWED, comm.rank(), this, windows.get());
        }
        if (isForeign()) {
            return; // its owner frees it
        }
        NativeLibrary n = comm.library();
        comm.nativeComm().frees().free(() -> {
            if (hostAddress != 0) {
                n.checkRuntime(n.api.runtimeFreeHost(n.lib, hostAddress), comm.rank(), "FreeHost");
            } else {
                freeDevice(n, comm.device());
            }
        });
        comm.nativeComm().untrack(this);
    }

    /** Frees device memory through the call matching the one that made it. */
    private void freeDevice(NativeLibrary n, int device) {
        switch (allocator()) {
            case MEM_ALLOC:
                n.check(n.api.memFree(n.lib, device, address()), comm.rank(), 0, "MemFree");
                break;
            case LEGACY:
                n.checkRuntime(n.api.runtimeFree(n.lib, device, address()), comm.rank(), "Free");
                break;
            default:
                n.checkDriver(
                        n.api.vmmUnmap(n.lib, device, address(), physicalSize(), reservedSize(), vmmHandle),
                        comm.rank(),
                        "MemUnmap");
                break;
        }
    }
}
