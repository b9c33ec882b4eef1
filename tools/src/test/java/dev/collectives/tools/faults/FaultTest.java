package dev.collectives.tools.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The words each fault's failure must carry: the culprit's rank and the cause, and no other rank's. */
class FaultTest {
    @ParameterizedTest(name = "{0}, culprit {1}: {3}")
    @CsvSource(
            delimiter = '|',
            value = {
                "KILL   | 3 | true  | [REMOTE_ERROR 6] rank 0: P.step(1000) (@AllReduce) failed: the communicator was aborted "
                        + "(rank 3 at /127.0.0.1:55446 is gone: its connection ended during allgather #53)",
                "KILL   | 2 | false | the communicator was aborted (rank 3 at /127.0.0.1:55446 is gone: its connection ended)",
                "KILL   | 3 | false | the communicator was aborted (rank 3 called abort())",
                "ABORT  | 1 | true  | [REMOTE_ERROR 6] rank 0: P.step(1000) (@AllReduce) failed: the communicator was aborted "
                        + "(rank 1 called abort())",
                "ABORT  | 1 | false | the communicator was aborted (rank 0 called abort())",
                "SILENT | 7 | true  | P.step(1000) (@AllReduce) failed: ranks [7] did not arrive within 5000 ms (ranks [0, 1, "
                        + "2, 3, 4, 5, 6] did)",
                "SILENT | 1 | false | ranks [2] did not arrive within 5000 ms (ranks [0, 1] did)",
                "SHAPES | 1 | true  | [R14 SHAPE] rank 0: the ranks called P.step() with different arguments (rank 0: "
                        + "P.step(1000); rank 1: P.step(1001)); every rank must call a step with the same ones",
                "SHAPES | 1 | false | [R14 SHAPE] rank 0: ranks bound different pipelines"
            })
    void aFailureIsTheFaultsWhenItNamesTheCulpritAndTheCause(Fault fault, int culprit, boolean named, String message) {
        assertEquals(named, fault.named(message, culprit));
    }
}
