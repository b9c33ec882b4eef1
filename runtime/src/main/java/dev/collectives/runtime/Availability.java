package dev.collectives.runtime;

/** Whether a backend can be used here, and if not, why (which library, path or symbol is missing). */
public final class Availability {
    private static final Availability AVAILABLE = new Availability(true, "available");

    private final boolean available;
    private final String reason;

    private Availability(boolean available, String reason) {
        this.available = available;
        this.reason = reason;
    }

    /** The backend can be used here. */
    public static Availability available() {
        return AVAILABLE;
    }

    /** The backend cannot be used here, because of {@code reason} (the library, path or symbol missing). */
    public static Availability unavailable(String reason) {
        return new Availability(false, reason);
    }

    /** Whether the backend can be used here. */
    public boolean isAvailable() {
        return available;
    }

    /** Why the backend cannot be used here; "available" when it can. */
    public String reason() {
        return reason;
    }

    @Override
    public String toString() {
        return reason;
    }
}
