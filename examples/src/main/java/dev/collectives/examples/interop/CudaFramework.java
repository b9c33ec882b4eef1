package dev.collectives.examples.interop;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.bytedeco.cuda.cudart.CUstream_st;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.FloatPointer;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.Pointer;

/**
 * A framework on a CUDA device through bytedeco's CUDA binding ({@code org.bytedeco:cuda}): {@code cudaMalloc}
 * memory and a {@code cudaStreamCreate} stream, as a Java framework built on that binding owns them.
 */
final class CudaFramework implements Framework {
    private static final int HOST_TO_DEVICE = 1;

    private final int device;
    private final CUstream_st stream = new CUstream_st();
    private final List<Pointer> memory = new ArrayList<>();
    private final List<FloatPointer> staging = new ArrayList<>();

    CudaFramework(int device) {
        this.device = device;
        check(cudart.cudaSetDevice(device), "cudaSetDevice");
        check(cudart.cudaStreamCreate(stream), "cudaStreamCreate");
    }

    /** Empty when the binding loads and sees a device, else why not (asked once per process). */
    static Optional<String> unavailable() {
        return Probe.REASON;
    }

    private static final class Probe {
        static final Optional<String> REASON = probe();

        private static Optional<String> probe() {
            try {
                Loader.load(cudart.class);
                int[] devices = new int[1];
                int rc = cudart.cudaGetDeviceCount(devices);
                return rc == 0 && devices[0] > 0
                        ? Optional.empty()
                        : Optional.of("cudaGetDeviceCount returned " + rc + " with " + devices[0] + " device(s)");
            } catch (LinkageError e) {
                return Optional.of(e.toString());
            }
        }
    }

    @Override
    public long allocate(long bytes) {
        check(cudart.cudaSetDevice(device), "cudaSetDevice");
        Pointer block = new Pointer();
        check(cudart.cudaMalloc(block, bytes), "cudaMalloc");
        memory.add(block);
        return block.address();
    }

    @Override
    public long stream() {
        return stream.address();
    }

    @Override
    public void upload(long address, float[] values) {
        Pointer target =
                memory.stream().filter(m -> m.address() == address).findFirst().orElseThrow();
        FloatPointer host = new FloatPointer(values);
        staging.add(host); // must outlive the asynchronous copy: freed at close(), after the stream is synchronized
        check(
                cudart.cudaMemcpyAsync(new BytePointer(target), host, 4L * values.length, HOST_TO_DEVICE, stream),
                "cudaMemcpyAsync");
    }

    @Override
    public String describe() {
        return "bytedeco's CUDA binding (cudaMalloc memory, cudaStreamCreate stream) on device " + device;
    }

    @Override
    public void close() {
        check(cudart.cudaStreamSynchronize(stream), "cudaStreamSynchronize");
        memory.forEach(m -> check(cudart.cudaFree(m), "cudaFree"));
        staging.forEach(Pointer::close);
        check(cudart.cudaStreamDestroy(stream), "cudaStreamDestroy");
    }

    private static void check(int rc, String call) {
        if (rc != 0) {
            throw new IllegalStateException(call + " failed with CUDA error " + rc + ": "
                    + cudart.cudaGetErrorString(rc).getString());
        }
    }
}
