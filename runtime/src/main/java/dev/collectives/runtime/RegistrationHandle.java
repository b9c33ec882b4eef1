package dev.collectives.runtime;

/**
 * The handle of {@code ncclCommRegister}/{@code mcclCommRegister}; closing it calls {@code ncclCommDeregister}/{@code
 * mcclCommDeregister} (R6). Idempotent.
 */
public interface RegistrationHandle extends AutoCloseable {
    /** The registered root allocation. */
    DeviceBuffer buffer();

    /** Whether the memory is still registered. */
    boolean isOpen();

    @Override
    void close();
}
