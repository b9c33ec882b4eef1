package dev.collectives.runtime;

/** The handle of {@code mcclCommRegister}; closing it calls {@code mcclCommDeregister} (R6). Idempotent. */
public interface RegistrationHandle extends AutoCloseable {
    /** The registered root allocation. */
    DeviceBuffer buffer();

    boolean isOpen();

    @Override
    void close();
}
