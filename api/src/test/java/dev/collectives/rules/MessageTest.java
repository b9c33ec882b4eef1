package dev.collectives.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class MessageTest {
    @Test
    void argumentsFillThePlaceholdersInOrder() {
        assertEquals(
                "allReduce: send bytes [0, 4096) and recv bytes [2048, 6144) overlap without coinciding; start"
                        + " them at the same byte (in place) or move them apart",
                Message.R7_IN_PLACE_OR_APART.format("allReduce", 0, 4096, 2048, 6144));
    }

    @Test
    void expressionsFillThemAtCompileTime() {
        assertEquals(
                "the recv of @AllGather #1 in gather() reaches past `out`: elements [0, n * ranks), but it holds"
                        + " 1024; shorten the op or enlarge the buffer",
                Message.R7_PAST_BUFFER.format("the recv of @AllGather #1 in gather()", "out", 0, "n * ranks", 1024));
    }

    @Test
    void aWrongNumberOfArgumentsIsRefused() {
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> Message.R7_PAST_BUFFER.format("op", "out"));
        assertEquals("R7_PAST_BUFFER takes 5 arguments, not 2", e.getMessage());
    }

    @ParameterizedTest
    @EnumSource(Message.class)
    void aMessageLeavesTagAndPointerToWhereItIsReported(Message message) {
        String text = message.format(new Object[argumentsOf(message)]);
        assertFalse(text.startsWith("["), text);
        assertFalse(text.contains("docs/rules.md"), text);
    }

    /** How many arguments the message takes: the one count it accepts. */
    private static int argumentsOf(Message message) {
        for (int n = 0; n < 32; n++) {
            try {
                message.format(new Object[n]);
                return n;
            } catch (IllegalArgumentException e) {
                // it takes another count
            }
        }
        throw new AssertionError(message + " takes more than 32 arguments");
    }
}
