package dev.collectives.examples.interop;

/**
 * What the example needs of a deep-learning framework that owns memory and streams: memory it allocates, a
 * stream it created, and its own work on that stream (here: filling the memory from the host). Closing it frees
 * the memory and destroys the stream, as the framework would once no pipeline uses them.
 */
interface Framework extends AutoCloseable {
    /** The device address of {@code bytes} the framework allocated. */
    long allocate(long bytes);

    /** The native handle of the framework's stream. */
    long stream();

    /** The framework's work: copies {@code values} to {@code address}, asynchronously on its stream. */
    void upload(long address, float[] values);

    /** Which binding owns the memory, for the example's output. */
    String describe();

    @Override
    void close();
}
