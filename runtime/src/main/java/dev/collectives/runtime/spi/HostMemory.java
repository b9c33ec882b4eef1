package dev.collectives.runtime.spi;

import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.Pointer;

/**
 * Host memory at raw addresses: what the sim backend's simulated device memory is, and what its kernels and
 * {@link dev.collectives.runtime.Numerics} read and write. Decided once, at first use: JavaCPP's {@code calloc},
 * {@code memmove} and direct buffers where its native library loads; elsewhere (a platform without its build)
 * direct {@link ByteBuffer}s at addresses of a simulated address space, so that sim runs with no native code at
 * all. There, only memory allocated here can be read and written, and one block holds at most 2 GiB.
 */
public final class HostMemory {
    private static final System.Logger LOG = System.getLogger("dev.collectives.sim");
    private static final Blocks BLOCKS = choose();

    private HostMemory() {}

    private static Blocks choose() {
        try {
            Pointer.free(Pointer.calloc(1, 1)); // loads JavaCPP's native library, or fails
            LOG.log(Level.DEBUG, "host memory: JavaCPP's native library (calloc, memmove)");
            return new JavaCppBlocks();
        } catch (LinkageError | RuntimeException e) {
            LOG.log(
                    Level.DEBUG,
                    "host memory: direct ByteBuffers, since JavaCPP's native library does not load for "
                            + Loader.getPlatform() + " (" + e + ")");
            return new BufferBlocks();
        }
    }

    /** {@code bytes} (at least 1) zeroed bytes; throws {@link OutOfMemoryError} naming why they cannot be had. */
    public static long allocate(long bytes) {
        return BLOCKS.allocate(Math.max(1, bytes));
    }

    /** Frees a block {@link #allocate} returned. */
    public static void free(long address) {
        BLOCKS.free(address);
    }

    /** A native-order buffer over {@code bytes} (at most {@link Integer#MAX_VALUE}) bytes at {@code address}. */
    public static ByteBuffer view(long address, long bytes) {
        return BLOCKS.view(address, bytes).order(ByteOrder.nativeOrder());
    }

    /** memmove: the ranges may overlap. */
    public static void copy(long source, long destination, long bytes) {
        BLOCKS.copy(source, destination, bytes);
    }

    private interface Blocks {
        long allocate(long bytes);

        void free(long address);

        ByteBuffer view(long address, long bytes);

        void copy(long source, long destination, long bytes);
    }

    private static final class JavaCppBlocks implements Blocks {
        @Override
        public long allocate(long bytes) {
            Pointer block = Pointer.calloc(bytes, 1);
            if (block == null || block.isNull()) {
                throw new OutOfMemoryError("out of host memory for " + bytes + " bytes");
            }
            return block.address();
        }

        @Override
        public void free(long address) {
            Pointer.free(at(address, 0));
        }

        @Override
        public ByteBuffer view(long address, long bytes) {
            // JavaCPP reads a limit of 0 as "one element"
            return bytes == 0 ? ByteBuffer.allocate(0) : at(address, bytes).asByteBuffer();
        }

        @Override
        public void copy(long source, long destination, long bytes) {
            Pointer.memmove(at(destination, bytes), at(source, bytes), bytes);
        }

        /**
         * A pointer to {@code size} bytes at {@code at}; it owns nothing. A byte pointer, since a subclass of Pointer
         * itself counts in elements of a pointer's size.
         */
        private static Pointer at(long at, long size) {
            return new BytePointer() {
                {
                    address = at; // a parameter named address would be hidden by the field
                    limit = size;
                    capacity = size;
                }
            };
        }
    }

    /**
     * Blocks in a simulated address space, apart from each other by a page, so that an address names one block
     * and a range running past its block is caught. The garbage collector releases a freed block's buffer.
     */
    private static final class BufferBlocks implements Blocks {
        private static final long PAGE = 4096;
        private final ConcurrentSkipListMap<Long, ByteBuffer> blocks = new ConcurrentSkipListMap<>();
        private final AtomicLong next = new AtomicLong(1L << 40);

        @Override
        public long allocate(long bytes) {
            if (bytes > Integer.MAX_VALUE) {
                throw new OutOfMemoryError("without JavaCPP's native library, host blocks are ByteBuffers of at most"
                        + " 2 GiB: " + bytes + " bytes asked");
            }
            ByteBuffer block = ByteBuffer.allocateDirect((int) bytes);
            long address = next.getAndAdd((bytes + PAGE - 1) / PAGE * PAGE + PAGE);
            blocks.put(address, block);
            return address;
        }

        @Override
        public void free(long address) {
            blocks.remove(address);
        }

        @Override
        public ByteBuffer view(long address, long bytes) {
            Map.Entry<Long, ByteBuffer> block = blocks.floorEntry(address);
            long offset = block == null ? -1 : address - block.getKey();
            if (block == null || bytes < 0 || offset + bytes > block.getValue().capacity()) {
                throw new IllegalArgumentException(bytes + " bytes at 0x" + Long.toHexString(address) + " are not"
                        + " host memory allocated here, the only memory there is without JavaCPP's native library");
            }
            return block.getValue().slice((int) offset, (int) bytes);
        }

        @Override
        public void copy(long source, long destination, long bytes) {
            // a bulk put between views of the same memory copies as if through an intermediate buffer
            view(destination, bytes).put(view(source, bytes));
        }
    }
}
