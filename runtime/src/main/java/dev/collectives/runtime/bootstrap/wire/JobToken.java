package dev.collectives.runtime.bootstrap.wire;

import dev.collectives.runtime.BootstrapException;
import dev.collectives.runtime.bootstrap.Settings;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The secret every member of a job holds. It is used only as an HMAC-SHA256 key: peers prove they hold it by
 * answering a challenge, and every message after that is authenticated with a key derived from it and the
 * challenge nonces, so the token itself never crosses the wire or reaches a file.
 */
public final class JobToken {
    public static final int MAC_BYTES = 32;
    public static final int NONCE_BYTES = 32;
    /** Shorter tokens are too easy to guess. */
    static final int MIN_CHARACTERS = 16;

    private static final SecureRandom RANDOM = new SecureRandom();
    /** Each thread's HMAC engine: looking one up costs more than the MAC of a message, which a server makes many of. */
    private static final ThreadLocal<Mac> HMAC = ThreadLocal.withInitial(() -> {
        try {
            return Mac.getInstance("HmacSHA256");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is required of every JVM", e);
        }
    });

    private final byte[] key;

    private JobToken(byte[] key) {
        this.key = key;
    }

    /** Fails (without echoing the token) when it is too short. */
    public static JobToken of(String token, int rank) {
        if (token.length() < MIN_CHARACTERS) {
            throw BootstrapException.settings(
                    rank,
                    "the job token (" + Settings.JOB_TOKEN + ") has " + token.length()
                            + " characters; it needs at least " + MIN_CHARACTERS + " (e.g. export " + Settings.JOB_TOKEN
                            + "=$(openssl rand -hex 32))");
        }
        return new JobToken(token.getBytes(StandardCharsets.UTF_8));
    }

    public static byte[] nonce() {
        byte[] nonce = new byte[NONCE_BYTES];
        RANDOM.nextBytes(nonce);
        return nonce;
    }

    /**
     * HMAC of {@code label} and {@code parts}; each part is length-prefixed so that different splits of the
     * same bytes never give the same MAC.
     */
    public byte[] mac(String label, byte[]... parts) {
        try {
            Mac mac = HMAC.get();
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            update(mac, label.getBytes(StandardCharsets.UTF_8));
            for (byte[] part : parts) {
                update(mac, part);
            }
            return mac.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is required of every JVM", e);
        }
    }

    /** A key for one connection or one directory, derived from this token and public nonces. */
    public JobToken derive(String label, byte[]... parts) {
        return new JobToken(mac(label, parts));
    }

    /** Whether {@code mac} is the MAC of {@code label} and {@code parts}, compared in constant time. */
    public boolean verify(byte[] mac, String label, byte[]... parts) {
        return MessageDigest.isEqual(mac, mac(label, parts));
    }

    public static byte[] ints(int... values) {
        ByteBuffer buffer = ByteBuffer.allocate(4 * values.length);
        for (int v : values) {
            buffer.putInt(v);
        }
        return buffer.array();
    }

    private static void update(Mac mac, byte[] part) {
        mac.update(ints(part.length));
        mac.update(part);
    }

    @Override
    public String toString() {
        return "JobToken[hidden]";
    }
}
