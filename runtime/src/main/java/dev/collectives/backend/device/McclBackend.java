package dev.collectives.backend.device;

import com.google.auto.service.AutoService;
import dev.collectives.runtime.Backend;

/** MCCL on Moore Threads GPUs ({@code libmccl.so}, {@code libmusart.so}, {@code libmusa.so}). */
@AutoService(Backend.class)
public final class McclBackend extends DeviceBackend {
    /** The {@code mccl} backend (found through {@code ServiceLoader}). */
    public McclBackend() {
        super(Dialect.MCCL);
    }
}
