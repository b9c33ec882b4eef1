package dev.collectives.runtime.bootstrap.wire;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ProtocolException;
import java.util.ArrayList;
import java.util.List;

/**
 * The bytes of a dump on demand: what a member answers the server's DUMP ({@link #written}), and what the server
 * answers the client that asked ({@link #report}), each rank's answer or why there is none.
 */
public final class Dumps {
    /** The most bytes of the directory a DUMP names. */
    public static final int MAX_DIRECTORY_BYTES = 4096;

    private Dumps() {}

    /** How a rank answered a dump. */
    public enum Outcome {
        /** It wrote its process's records (none where no communicator of its process keeps one). */
        WROTE,
        /** It is gone: dead, excluded, left, or never joined. */
        GONE,
        /** It is a member, but did not answer in time. */
        NO_ANSWER
    }

    /**
     * One rank's answer to a dump.
     *
     * @param rank    the rank
     * @param outcome how it answered
     * @param files   the files it wrote, where it did
     * @param why     why it wrote none, or why it did not answer; empty where it wrote
     */
    public record Answer(int rank, Outcome outcome, List<String> files, String why) {
        public Answer {
            files = List.copyOf(files);
        }
    }

    /** A member's answer: the files its process wrote. */
    public static byte[] written(List<String> files) {
        return encode(out -> writeFiles(out, files));
    }

    /** What {@link #written} wrote. */
    public static List<String> readWritten(byte[] bytes) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
        List<String> files = readFiles(in);
        requireEnd(in);
        return files;
    }

    /** The server's answer to the client: per rank, its outcome, why (UTF-8) and the files it wrote. */
    public static byte[] report(List<Answer> answers) {
        return encode(out -> {
            out.writeInt(answers.size());
            for (Answer answer : answers) {
                out.writeInt(answer.rank());
                out.writeByte(answer.outcome().ordinal());
                Channel.writeText(out, answer.why());
                writeFiles(out, answer.files());
            }
        });
    }

    /** What {@link #report} wrote. */
    public static List<Answer> readReport(byte[] bytes) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
        int count = in.readInt();
        if (count < 0 || count > bytes.length) {
            throw new ProtocolException("a dump's answer for " + count + " ranks in " + bytes.length + " bytes");
        }
        List<Answer> answers = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int rank = in.readInt();
            int outcome = in.readByte();
            if (outcome < 0 || outcome >= Outcome.values().length) {
                throw new ProtocolException("a dump's answer of unknown kind " + outcome);
            }
            String why = Channel.readText(in);
            answers.add(new Answer(rank, Outcome.values()[outcome], readFiles(in), why));
        }
        requireEnd(in);
        return answers;
    }

    private static void writeFiles(DataOutputStream out, List<String> files) throws IOException {
        out.writeInt(files.size());
        for (String file : files) {
            Channel.writeText(out, file);
        }
    }

    private static List<String> readFiles(DataInputStream in) throws IOException {
        int count = in.readInt();
        if (count < 0 || count > in.available()) {
            throw new ProtocolException("a dump's answer of " + count + " files in " + in.available() + " bytes");
        }
        List<String> files = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            files.add(Channel.readText(in));
        }
        return files;
    }

    private static void requireEnd(DataInputStream in) throws IOException {
        if (in.available() > 0) {
            throw new ProtocolException(in.available() + " bytes past a dump's answer");
        }
    }

    private interface Writing {
        void to(DataOutputStream out) throws IOException;
    }

    private static byte[] encode(Writing writing) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            writing.to(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
