package dev.collectives.runtime.bootstrap;

import java.net.ProtocolException;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Which messages are legal in which direction and phase of a member's connection, and which answers to which claim
 * of the handshake: the one place both ends check them ({@link #check}, {@link #checkAnswer}). A message of a type the table does not allow there is a protocol error that names the
 * message, its direction and the phase. What each message means is {@link Channel}'s grammar.
 */
final class FrameRules {
    private FrameRules() {}

    /** Where a connection is when a message arrives, as the side that reads it sees it. */
    enum Phase {
        /** The server reads a member of the job (a rank, or a replacement the survivors took in). */
        MEMBER("from a member"),
        /** The server reads a replacement that the survivors have not taken in yet. */
        REPLACEMENT_WAITING("from a replacement not yet taken in"),
        /** The server reads a process that joins the job at its next growth, not yet taken in. */
        JOINER_WAITING("from a process that joins, not yet taken in"),
        /** A member waits for the answer to its operation. */
        OPERATION("from the server inside an operation"),
        /** A member's job is watched: it waits for news. */
        WATCHING("from the server while the job is watched"),
        /** A replacement, or a process that joins, waits until the members take it in. */
        AWAITING_REJOIN("from the server while this process waits to be taken in");

        /** The direction and phase, for messages: "from the server inside an operation". */
        final String where;

        Phase(String where) {
            this.where = where;
        }
    }

    /** The table: the message types legal in each phase. */
    private static final Map<Phase, List<Byte>> LEGAL = new EnumMap<>(Map.of(
            Phase.MEMBER,
            List.of(
                    Channel.DATA,
                    Channel.BROADCAST,
                    Channel.SURVIVORS,
                    Channel.REUNION,
                    Channel.GROW,
                    Channel.WATCH,
                    Channel.UNWATCH,
                    Channel.STALL,
                    Channel.ABORT,
                    Channel.LEAVE,
                    Channel.HEARTBEAT),
            Phase.REPLACEMENT_WAITING,
            List.of(Channel.ABORT, Channel.LEAVE, Channel.HEARTBEAT),
            Phase.JOINER_WAITING,
            List.of(Channel.GROW, Channel.ABORT, Channel.LEAVE, Channel.HEARTBEAT),
            Phase.OPERATION,
            List.of(Channel.DATA, Channel.ABORT, Channel.LEAVE, Channel.HEARTBEAT, Channel.FENCED, Channel.REFUSED),
            Phase.WATCHING,
            List.of(
                    Channel.GONE,
                    Channel.UNWATCH,
                    Channel.ABORT,
                    Channel.LEAVE,
                    Channel.HEARTBEAT,
                    Channel.FENCED,
                    Channel.REFUSED),
            Phase.AWAITING_REJOIN,
            List.of(Channel.REJOIN, Channel.ABORT, Channel.LEAVE, Channel.HEARTBEAT, Channel.FENCED, Channel.REFUSED)));

    /** A claim of the handshake, and the answers the server may give it. */
    enum Claim {
        /** A rank of the job joins. */
        JOIN("join", Channel.ACCEPTED, Channel.REJECTED),
        /** A process takes the place of a rank that died. */
        REPLACE("replace", Channel.ACCEPTED, Channel.REJECTED),
        /** A process joins a running job at its next growth, taking the number the server gives it. */
        GROW("grow", Channel.ACCEPTED, Channel.REJECTED),
        /** A rank whose connection ended asks whether it was excluded. */
        FATE("fate", Channel.EXCLUDED, Channel.REJECTED);

        /** What the claim's HMAC covers: "join". */
        final String word;

        private final List<Byte> answers;

        Claim(String word, Byte... answers) {
            this.word = word;
            this.answers = List.of(answers);
        }
    }

    /** Returns {@code answer} if the server may give it to {@code claim}; else fails naming both. */
    static byte checkAnswer(Claim claim, byte answer) throws ProtocolException {
        if (claim.answers.contains(answer)) {
            return answer;
        }
        throw new ProtocolException(
                "an answer " + answerName(answer) + " to a \"" + claim.word + "\" claim, where only "
                        + claim.answers.stream().map(FrameRules::answerName).collect(Collectors.joining(", "))
                        + " are legal");
    }

    /** The name of a handshake answer, as the grammar writes it: "ACCEPTED"; "answer 7" for one it does not know. */
    static String answerName(byte answer) {
        return switch (answer) {
            case Channel.ACCEPTED -> "ACCEPTED";
            case Channel.REJECTED -> "REJECTED";
            case Channel.EXCLUDED -> "EXCLUDED";
            default -> "answer " + answer;
        };
    }

    /** Whether a message of {@code type} is legal in {@code phase}. */
    static boolean legal(Phase phase, byte type) {
        return LEGAL.get(phase).contains(type);
    }

    /** Returns {@code frame} if it is legal in {@code phase}; else fails naming it, its direction and the phase. */
    static Channel.Frame check(Phase phase, Channel.Frame frame) throws ProtocolException {
        if (legal(phase, frame.type())) {
            return frame;
        }
        throw new ProtocolException("a " + name(frame.type()) + " message " + phase.where + ", where only "
                + LEGAL.get(phase).stream().map(FrameRules::name).collect(Collectors.joining(", ")) + " are legal");
    }

    /** The name of a message type, as the grammar writes it: "DATA", "GONE"; "type 42" for one it does not know. */
    static String name(byte type) {
        return switch (type) {
            case Channel.DATA -> "DATA";
            case Channel.ABORT -> "ABORT";
            case Channel.LEAVE -> "LEAVE";
            case Channel.STALL -> "STALL";
            case Channel.GONE -> "GONE";
            case Channel.REJOIN -> "REJOIN";
            case Channel.WATCH -> "WATCH";
            case Channel.REUNION -> "REUNION";
            case Channel.BROADCAST -> "BROADCAST";
            case Channel.SURVIVORS -> "SURVIVORS";
            case Channel.HEARTBEAT -> "HEARTBEAT";
            case Channel.FENCED -> "FENCED";
            case Channel.REFUSED -> "REFUSED";
            case Channel.GROW -> "GROW";
            case Channel.UNWATCH -> "UNWATCH";
            default -> "type " + type;
        };
    }
}
