package dev.collectives.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.collectives.annotation.Registration;
import dev.collectives.runtime.internal.Lifecycle;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

/**
 * The runtime logs through {@code System.Logger}, which binds to java.util.logging unless the application installs
 * another finder: binds and failed binds go to {@value Lifecycle#BIND_LOGGER} at DEBUG (FINE), which is off
 * by default.
 */
class LoggingTest {
    @Test
    void quietByDefault() {
        assertFalse(System.getLogger(Lifecycle.BIND_LOGGER).isLoggable(System.Logger.Level.DEBUG));
    }

    @Test
    void bindIsLoggedWithItsDescription() {
        List<LogRecord> records = LogCapture.capture(
                Lifecycle.BIND_LOGGER,
                Level.FINE,
                () -> Lifecycle.open(null, "p.Pipeline", Registration.NONE, new Described("a table of ops"), () -> {}));
        assertEquals(1, records.size());
        assertEquals(Level.FINE, records.get(0).getLevel());
        assertEquals("bound a table of ops", records.get(0).getMessage());
    }

    @Test
    void failedBindIsLoggedWithItsCause() {
        IllegalStateException failure = new IllegalStateException("[R2 OFFSET] ranks disagree");
        List<LogRecord> records = LogCapture.capture(
                Lifecycle.BIND_LOGGER,
                Level.FINE,
                () -> assertThrows(
                        IllegalStateException.class,
                        () -> Lifecycle.open(null, "p.Pipeline", Registration.NONE, new Described("unused"), () -> {
                            throw failure;
                        })));
        assertEquals(1, records.size());
        assertEquals("bind failed: [R2 OFFSET] ranks disagree", records.get(0).getMessage());
        assertSame(failure, records.get(0).getThrown());
    }

    private record Described(String describe) implements Pipeline {
        @Override
        public void close() {}
    }
}
