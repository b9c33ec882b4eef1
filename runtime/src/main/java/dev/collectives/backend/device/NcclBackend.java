package dev.collectives.backend.device;

import com.google.auto.service.AutoService;
import dev.collectives.runtime.Backend;

/** NCCL on CUDA GPUs ({@code libnccl.so.2}, {@code libcudart}, {@code libcuda.so.1}). */
@AutoService(Backend.class)
public final class NcclBackend extends DeviceBackend {
    /** The {@code nccl} backend (found through {@code ServiceLoader}). */
    public NcclBackend() {
        super(Dialect.NCCL);
    }
}
