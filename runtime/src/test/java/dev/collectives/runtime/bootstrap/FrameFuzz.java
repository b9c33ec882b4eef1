package dev.collectives.runtime.bootstrap;

import dev.collectives.runtime.bootstrap.wire.Channel;
import dev.collectives.runtime.bootstrap.wire.FrameType;
import dev.collectives.runtime.bootstrap.wire.JobToken;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

/**
 * Feeds the frame decoder ({@link Channel#readFrame}) random byte strings and mutations of valid frames (flipped
 * bytes, claimed lengths up to 2^31-1, cut short, run on; a failure's kind, ranks and text), under the largest
 * bound a receive uses. Run by
 * {@link FrameDecoderFuzzTest} in a JVM with a small heap: every input must decode to a frame or fail with an
 * {@link IOException}, never exhaust memory nor throw anything else. Prints {@code FUZZ OK <cases>} at the end.
 */
public final class FrameFuzz {
    private static final int CASES = 20_000;
    private static final int[] LENGTHS = {
        Integer.MAX_VALUE,
        Integer.MAX_VALUE - 1,
        Integer.MIN_VALUE,
        -1,
        Rendezvous.MAX_GATHER_BYTES,
        Rendezvous.MAX_GATHER_BYTES + 1,
        Rendezvous.MAX_VALUE_BYTES,
        Rendezvous.MAX_VALUE_BYTES + 1,
        Rendezvous.MAX_REASON_BYTES + 1,
        1 << 30,
        0
    };

    private FrameFuzz() {}

    public static void main(String[] args) throws IOException {
        Random random = new Random(args.length > 0 ? Long.parseLong(args[0]) : 1);
        JobToken key =
                Channel.sessionKey(JobToken.of(RankThreadsForTests.TOKEN, 0), JobToken.nonce(), JobToken.nonce(), 1);
        int valid = 0;
        for (int i = 0; i < CASES; i++) {
            byte[] noise = new byte[random.nextInt(300)];
            random.nextBytes(noise);
            decode(noise, key);
            byte[] frame = frame(key, random);
            if (decode(frame, key) == null) {
                throw new AssertionError("a valid frame did not decode");
            }
            valid += decode(mutate(frame, random), key) != null ? 1 : 0;
        }
        System.out.println("FUZZ OK " + 3 * CASES + " inputs; " + valid + " mutated frames still decoded");
    }

    /** The frame, or null when it was refused with an IOException (anything else escapes and fails the run). */
    private static Channel.Frame decode(byte[] input, JobToken key) {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(input));
            return Channel.readFrame(in, key, Channel.TO_ROOT, Rendezvous.MAX_GATHER_BYTES);
        } catch (IOException refused) {
            return null;
        }
    }

    private static byte[] frame(JobToken key, Random random) throws IOException {
        byte type = random.nextBoolean() ? FrameType.DATA.wire : FrameType.ABORT.wire;
        int operation = random.nextInt(5);
        byte[] bytes = new byte[random.nextInt(type == FrameType.DATA.wire ? 2000 : Rendezvous.MAX_REASON_BYTES)];
        random.nextBytes(bytes);
        if (type == FrameType.ABORT.wire) { // a failure: its kind, the ranks at fault and a text
            int[] ranks = random.ints(random.nextInt(8), 0, 1 << 14).toArray();
            Cause.Kind kind = Cause.Kind.values()[random.nextInt(Cause.Kind.values().length)];
            bytes = Cause.of(kind, new String(bytes, StandardCharsets.ISO_8859_1), ranks)
                    .bytes();
        }
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(buffer);
        out.writeByte(type);
        out.writeInt(operation);
        out.writeInt(bytes.length);
        out.write(bytes);
        out.write(key.mac("message", new byte[] {Channel.TO_ROOT, type}, JobToken.ints(operation), bytes));
        return buffer.toByteArray();
    }

    private static byte[] mutate(byte[] frame, Random random) {
        byte[] mutated = frame.clone();
        switch (random.nextInt(5)) {
            case 0: // a claimed length from the edges, or any int
                int length = random.nextBoolean() ? LENGTHS[random.nextInt(LENGTHS.length)] : random.nextInt();
                ByteBuffer.wrap(mutated).putInt(5, length);
                return mutated;
            case 1: // flipped bytes anywhere
                for (int n = 1 + random.nextInt(4); n > 0; n--) {
                    mutated[random.nextInt(mutated.length)] ^= (byte) (1 + random.nextInt(255));
                }
                return mutated;
            case 2: // cut short
                return Arrays.copyOf(mutated, random.nextInt(mutated.length));
            case 3: // a type byte of any value
                mutated[0] = (byte) random.nextInt(256);
                return mutated;
            default: // run on into garbage
                byte[] longer = Arrays.copyOf(mutated, mutated.length + 1 + random.nextInt(100));
                for (int i = mutated.length; i < longer.length; i++) {
                    longer[i] = (byte) random.nextInt(256);
                }
                return longer;
        }
    }
}
