package dev.collectives.backend.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code reform} on sim where no replacement can come: the ranks are threads of one process, or the communicator is
 * a child. (A job of processes reforms with its replacement: {@code SimMultiProcessTest}.)
 */
@Timeout(30)
class ReformRefusalsTest {
    private static final Duration WAIT = Duration.ofSeconds(5);

    @Test
    void ranksThatAreThreadsOfOneProcessCannotReformAndSaySo() {
        try (SimCluster cluster = SimBackend.cluster().ranks(2).build()) {
            cluster.run(ctx -> {
                CollectivesException e = assertThrows(
                        CollectivesException.class, () -> ctx.comm().reform(WAIT));
                assertEquals(
                        "rank " + ctx.rank() + ": reform: sim communicator, rank " + ctx.rank() + " of 2 cannot admit"
                                + " a replacement for a rank that died: only the communicator of a job of processes"
                                + " joined through a tcp:// rendezvous can (not one of threads of one process, nor a"
                                + " child of split or shrink)",
                        e.getMessage());
            });
        }
    }

    @Test
    void aChildOfShrinkCannotReformAndSaysSo() {
        try (SimCluster cluster = SimBackend.cluster().ranks(3).build()) {
            cluster.run(ctx -> {
                if (ctx.rank() == 2) {
                    return;
                }
                try (Communicator child = ctx.comm().shrink(2)) {
                    CollectivesException e = assertThrows(CollectivesException.class, () -> child.reform(WAIT));
                    assertEquals(
                            "rank " + ctx.rank() + ": reform: " + child + " cannot admit a replacement for a rank that"
                                    + " died: only the communicator of a job of processes joined through a tcp://"
                                    + " rendezvous can (not one of threads of one process, nor a child of split or"
                                    + " shrink)",
                            e.getMessage());
                }
            });
        }
    }
}
