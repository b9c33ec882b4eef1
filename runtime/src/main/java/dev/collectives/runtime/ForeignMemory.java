package dev.collectives.runtime;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.HandleType;
import dev.collectives.rules.Message;
import java.util.Set;

/**
 * What {@link Communicator#wrap} accepts, for every backend alike: the backend asks its driver (or the sim its
 * table of framework-owned memory) where an address lives, and this class turns that answer into a class of
 * memory or a refusal that says what the address is.
 */
public final class ForeignMemory {
    private ForeignMemory() {}

    /** Where an address lives, as the driver reports it. */
    public enum Residence {
        /** Device memory of one device: legacy or VMM. */
        DEVICE("device memory"),
        /** Page-locked host memory ({@code cudaMallocHost}, {@code cudaHostRegister}). */
        PINNED_HOST("pinned host memory (cudaMallocHost/musaMallocHost or a registered host range)"),
        /** Managed memory ({@code cudaMallocManaged}). */
        MANAGED("managed memory (cudaMallocManaged/musaMallocManaged)"),
        /** No allocation the driver knows: ordinary (pageable) host memory, or no memory at all. */
        UNKNOWN("not memory the device driver knows: pageable host memory, or no allocation at all");

        private final String words;

        Residence(String words) {
            this.words = words;
        }
    }

    /**
     * The driver's answer for one address.
     *
     * @param device      the device ordinal of device memory, else -1
     * @param head        the head address of the allocation (device memory), else 0
     * @param size        the allocation's size in bytes (device memory), else 0
     * @param vmm         whether it was made through the VMM API ({@code cuMemCreate}; {@code ncclMemAlloc} too)
     * @param handleTypes the shareable handle types a VMM allocation was created with
     */
    public record Classification(
            Residence residence, int device, long head, long size, boolean vmm, Set<HandleType> handleTypes) {
        public Classification {
            handleTypes = Set.copyOf(handleTypes);
        }

        /** An address that is not device memory. */
        public static Classification notDevice(Residence residence) {
            return new Classification(residence, -1, 0, 0, false, Set.of());
        }

        /** VMM memory is taken as VMM, everything else as legacy (R9). */
        public Allocator allocator() {
            return vmm ? Allocator.VMM : Allocator.LEGACY;
        }
    }

    /**
     * Checks that {@code bytes} at {@code address} can be wrapped as {@code type} on {@code device}: device memory
     * of that device, a whole number of elements, inside its allocation (R7). Returns how many elements it holds.
     */
    public static long check(int rank, int device, long address, long bytes, DataType type, Classification found) {
        String what = "wrap of " + bytes + " bytes at 0x" + Long.toHexString(address);
        if (found.residence() != Residence.DEVICE) {
            throw CollectivesException.usage(
                    rank,
                    what + ": the address is " + found.residence().words + "; collectives take device memory only");
        }
        if (found.device() != device) {
            throw CollectivesException.usage(
                    rank,
                    what + ": the memory is on device " + found.device() + ", this communicator on device " + device);
        }
        if (bytes <= 0 || bytes % type.size() != 0) {
            throw CollectivesException.violation(Message.R13_WRAP_NOT_WHOLE, rank, what, bytes, type);
        }
        long offset = address - found.head();
        if (offset < 0 || bytes > found.size() - offset) {
            throw CollectivesException.violation(
                    Message.R7_WRAP_PAST_ALLOCATION,
                    rank,
                    what,
                    "0x" + Long.toHexString(found.head()),
                    found.size(),
                    offset + bytes - found.size());
        }
        return bytes / type.size();
    }

    /**
     * The class of wrapped memory as {@code describe()} names it: "foreign, legacy cudaMalloc", "foreign, VMM with
     * POSIX fd", "foreign, VMM with POSIX fd and FABRIC", "foreign, VMM without shareable handles".
     *
     * @param legacyAllocator the legacy allocator's name in the backend's dialect, e.g. "cudaMalloc"
     */
    public static String describe(Classification found, String legacyAllocator) {
        if (!found.vmm()) {
            return "foreign, legacy " + legacyAllocator;
        }
        Set<HandleType> handles = found.handleTypes();
        if (handles.isEmpty()) {
            return "foreign, VMM without shareable handles";
        }
        StringBuilder text = new StringBuilder("foreign, VMM with ");
        if (handles.contains(HandleType.POSIX_FILE_DESCRIPTOR)) {
            text.append("POSIX fd");
        }
        if (handles.contains(HandleType.FABRIC)) {
            text.append(handles.size() > 1 ? " and " : "").append("FABRIC");
        }
        return text.toString();
    }
}
