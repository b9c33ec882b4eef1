package dev.collectives.examples.interop;

import dev.collectives.backend.sim.SimForeignMemory;
import dev.collectives.backend.sim.SimForeignStream;
import java.util.ArrayList;
import java.util.List;

/** A framework on the simulated devices: legacy device memory and a stream made outside any communicator. */
class SimFramework implements Framework {
    private final int device;
    private final SimForeignStream stream;
    private final List<SimForeignMemory> memory = new ArrayList<>();

    SimFramework(int device) {
        this.device = device;
        this.stream = SimForeignStream.create(device);
    }

    @Override
    public long allocate(long bytes) {
        SimForeignMemory block = SimForeignMemory.deviceMalloc(device, bytes);
        memory.add(block);
        return block.address();
    }

    @Override
    public long stream() {
        return stream.handle();
    }

    @Override
    public void upload(long address, float[] values) {
        SimForeignMemory target =
                memory.stream().filter(m -> m.address() == address).findFirst().orElseThrow();
        float[] copy = values.clone();
        stream.launch(() -> target.asByteBuffer().asFloatBuffer().put(copy));
    }

    @Override
    public String describe() {
        return "sim foreign memory and stream (cudaMalloc/musaMalloc-like)";
    }

    @Override
    public void close() {
        stream.synchronize();
        memory.forEach(SimForeignMemory::close);
        stream.close();
    }
}
