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

    public static Availability available() {
        return AVAILABLE;
    }

    public static Availability unavailable(String reason) {
        return new Availability(false, reason);
    }

    public boolean isAvailable() {
        return available;
    }

    public String reason() {
        return reason;
    }

    @Override
    public String toString() {
        return reason;
    }
}
