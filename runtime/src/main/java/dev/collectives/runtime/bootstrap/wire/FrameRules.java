package dev.collectives.runtime.bootstrap.wire;

import java.net.ProtocolException;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Where a member's connection is, and which answers the server may give to which claim of the handshake: the one
 * place both ends check what they read ({@link #check}, {@link #checkAnswer}), against {@link FrameType}'s table. A
 * message of a type not legal there is a protocol error that names the message, its direction and the phase. What
 * each message means is {@link Channel}'s grammar.
 */
public final class FrameRules {
    private FrameRules() {}

    /** Where a connection is when a message arrives, as the side that reads it sees it. */
    public enum Phase {
        /** The server reads a member of the job (a rank, or a replacement the survivors took in). */
        MEMBER(true, "from a member"),
        /** The server reads a replacement that the survivors have not taken in yet. */
        REPLACEMENT_WAITING(true, "from a replacement not yet taken in"),
        /** The server reads a process that joins the job at its next growth, not yet taken in. */
        JOINER_WAITING(true, "from a process that joins, not yet taken in"),
        /** A member waits for the answer to its operation. */
        OPERATION(false, "from the server inside an operation"),
        /** A member's job is watched: it waits for news. */
        WATCHING(false, "from the server while the job is watched"),
        /** A replacement, or a process that joins, waits until the members take it in. */
        AWAITING_REJOIN(false, "from the server while this process waits to be taken in"),
        /** The server reads a client that asks for the ranks' flight records. */
        DUMPER(true, "from a client that asks for the ranks' records"),
        /** A client that asked for the ranks' flight records waits for the answer. */
        DUMPING(false, "from the server to a client that asked for the ranks' records");

        /** The direction of the messages read in this phase: to the server (else from it). */
        final boolean toServer;
        /** The direction and phase, for messages: "from the server inside an operation". */
        public final String where;

        Phase(boolean toServer, String where) {
            this.toServer = toServer;
            this.where = where;
        }

        /** The message types legal here, in the order of their wire bytes. */
        List<FrameType> legal() {
            return Arrays.stream(FrameType.values())
                    .filter(t -> t.legalIn(this))
                    .toList();
        }
    }

    /**
     * A claim of the handshake: its byte on the wire (the claim's MAC covers it, under its word), and the answers the
     * server may give it.
     */
    public enum Claim {
        /** A rank of the job joins. */
        JOIN("join", Channel.ACCEPTED, Channel.REJECTED),
        /** A process takes the place of a rank that died. */
        REPLACE("replace", Channel.ACCEPTED, Channel.REJECTED),
        /** A process joins a running job at its next growth, taking the number the server gives it. */
        GROW("grow", Channel.ACCEPTED, Channel.REJECTED),
        /** A rank whose connection ended asks whether it was excluded. */
        FATE("fate", Channel.EXCLUDED, Channel.REJECTED),
        /** A client (not a rank) asks every live rank to write its flight record now. */
        DUMP("dump", Channel.ACCEPTED, Channel.REJECTED);

        /** What the claim's HMAC covers: "join". */
        public final String word;

        private final List<Byte> answers;

        Claim(String word, Byte... answers) {
            this.word = word;
            this.answers = List.of(answers);
        }

        /** Its byte on the wire. */
        public byte wire() {
            return (byte) ordinal();
        }

        /** The claim whose wire byte is {@code wire}; fails for one it does not know. */
        public static Claim ofWire(byte wire) throws ProtocolException {
            if (wire < 0 || wire >= values().length) {
                throw new ProtocolException("a claim of unknown kind " + wire);
            }
            return values()[wire];
        }
    }

    /** Returns {@code answer} if the server may give it to {@code claim}; else fails naming both. */
    public static byte checkAnswer(Claim claim, byte answer) throws ProtocolException {
        if (claim.answers.contains(answer)) {
            return answer;
        }
        throw new ProtocolException(
                "an answer " + answerName(answer) + " to a \"" + claim.word + "\" claim, where only "
                        + claim.answers.stream().map(FrameRules::answerName).collect(Collectors.joining(", "))
                        + " are legal");
    }

    /** The name of a handshake answer, as the grammar writes it: "ACCEPTED"; "answer 7" for one it does not know. */
    public static String answerName(byte answer) {
        return switch (answer) {
            case Channel.ACCEPTED -> "ACCEPTED";
            case Channel.REJECTED -> "REJECTED";
            case Channel.EXCLUDED -> "EXCLUDED";
            default -> "answer " + answer;
        };
    }

    /** Returns {@code frame} if it is legal in {@code phase}; else fails naming it, its direction and the phase. */
    public static Channel.Frame check(Phase phase, Channel.Frame frame) throws ProtocolException {
        if (frame.type().legalIn(phase)) {
            return frame;
        }
        throw new ProtocolException("a " + frame.type() + " message " + phase.where + ", where only "
                + phase.legal().stream().map(FrameType::name).collect(Collectors.joining(", ")) + " are legal");
    }

    /**
     * {@code frame}, checked where it is an answer (DATA) to a member's operation: of operation {@code operation}
     * (else the ranks called different operations), and of at most {@code maxBytes}.
     */
    public static Channel.Frame checkOperationAnswer(Channel.Frame frame, int operation, int maxBytes)
            throws ProtocolException {
        if (frame.type() != FrameType.DATA) {
            return frame;
        }
        if (frame.operation() != operation) {
            throw new ProtocolException("a message for operation #" + frame.operation() + " during operation #"
                    + operation + " (the ranks called different operations)");
        }
        if (frame.bytes().length > maxBytes) {
            throw new ProtocolException(
                    "a message of " + frame.bytes().length + " bytes, above the limit of " + maxBytes);
        }
        return frame;
    }
}
