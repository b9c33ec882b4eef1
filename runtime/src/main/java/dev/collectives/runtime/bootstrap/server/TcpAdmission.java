package dev.collectives.runtime.bootstrap.server;

import dev.collectives.runtime.BootstrapException;
import dev.collectives.runtime.RendezvousEndpoint;
import dev.collectives.runtime.bootstrap.Cause;
import dev.collectives.runtime.bootstrap.Settings;
import dev.collectives.runtime.bootstrap.wire.Channel;
import dev.collectives.runtime.bootstrap.wire.FrameRules;
import dev.collectives.runtime.bootstrap.wire.JobToken;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ProtocolException;
import java.net.SocketException;
import java.net.StandardSocketOptions;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The door of a TCP job's server ({@link Door}, a {@link JobServer}): on the server's loop thread, it handshakes with
 * every connection accepted and admits each peer that proves it holds the job token as the rank it claims, as the
 * replacement of a rank that died, or as a process that joins at the next growth; it tells a rank that asks whether
 * it was excluded. Each handshake has its own deadline; a connection beyond {@link #MAX_HANDSHAKES} (or the job's
 * size, where larger) handshaking at once drops the oldest one, so that idle, trickling or garbage connections,
 * however many, can neither delay nor block the ranks. What it turned away is kept for the server's timeout message.
 */
public final class TcpAdmission {
    /** How many connections may be handshaking at once, at least; a legitimate rank needs one round trip. */
    public static final int MAX_HANDSHAKES = 64;
    /** A loop thread's stack: it only reads and writes a few fixed-size fields at a time. */
    /** How many turned-away connections a timeout message lists. */
    private static final int MAX_NOTES = 8;
    /** What a member sends first: MAGIC and VERSION. */
    private static final int OPENING_BYTES = 2 * Integer.BYTES;
    /** Then its claim: its kind, rank, size, its nonce and the claim's MAC. */
    private static final int CLAIM_BYTES = 1 + 2 * Integer.BYTES + JobToken.NONCE_BYTES + JobToken.MAC_BYTES;

    private final JobToken token;
    private final Door door;
    private final Duration handshakeLimit;
    private final int maxHandshakes;
    private final ServerLoop loop;
    /** The connections handshaking, oldest first (the one to drop when a new one finds no room), with their state. */
    private final Map<ServerConnection, Handshake> handshaking = new LinkedHashMap<>();

    private final List<String> turnedAway = new ArrayList<>();

    /** Where a connection's handshake stands: the server's nonce, and whether its opening has been read. */
    private static final class Handshake {
        final byte[] serverNonce = JobToken.nonce();
        final ServerLoop.Timer deadline;
        boolean opened;

        Handshake(ServerLoop.Timer deadline) {
            this.deadline = deadline;
        }
    }

    /**
     * Admits members to {@code door} on {@code loop}; each handshake within {@code handshakeLimit}, up to
     * {@code maxHandshakes} (at least {@link #MAX_HANDSHAKES}) at once.
     */
    TcpAdmission(JobToken token, Door door, Duration handshakeLimit, int maxHandshakes, ServerLoop loop) {
        this.token = token;
        this.door = door;
        this.handshakeLimit = handshakeLimit;
        this.maxHandshakes = Math.max(MAX_HANDSHAKES, maxHandshakes);
        this.loop = loop;
    }

    /**
     * Listens on the endpoint's port: on the loopback address if that is the endpoint, else on every interface
     * (a host name may resolve to another of this host's addresses here than on the other nodes), after checking
     * that the endpoint is an address of this host at all; up to {@code backlog} connections wait to be accepted. {@code who} serves there, for messages: "rank 0".
     */
    static ServerSocketChannel listen(RendezvousEndpoint endpoint, String who, int backlog) {
        InetAddress address;
        try {
            address = InetAddress.getByName(endpoint.host());
            if (!address.isLoopbackAddress()
                    && !address.isAnyLocalAddress()
                    && NetworkInterface.getByInetAddress(address) == null) {
                throw BootstrapException.settings(
                        0,
                        who + " must run on the rendezvous host, but " + endpoint
                                + " (" + address.getHostAddress() + ") is not an address of this host ("
                                + InetAddress.getLocalHost().getHostName() + ")");
            }
        } catch (UnknownHostException e) {
            throw BootstrapException.settings(
                    0, "cannot resolve the rendezvous host of " + endpoint + ": " + e.getMessage());
        } catch (SocketException e) {
            throw BootstrapException.failed(0, "cannot list this host's network interfaces: " + e.getMessage(), e);
        }
        InetSocketAddress bindTo = address.isLoopbackAddress()
                ? new InetSocketAddress(address, endpoint.port())
                : new InetSocketAddress(endpoint.port());
        try {
            ServerSocketChannel server = ServerSocketChannel.open();
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            try {
                server.bind(bindTo, backlog);
            } catch (IOException e) {
                server.close();
                throw e;
            }
            return server;
        } catch (BindException e) {
            throw BootstrapException.failed(
                    0,
                    who + " cannot listen at " + endpoint + ": " + e.getMessage()
                            + " (another job on this port, or a second process serving it?)",
                    e);
        } catch (IOException e) {
            throw BootstrapException.failed(0, who + " cannot listen at " + endpoint + ": " + e, e);
        }
    }

    /** "; turned away: ..." for each connection noted, or nothing. */
    String turnedAway() {
        return turnedAway.isEmpty() ? "" : "; turned away: " + String.join("; ", turnedAway);
    }

    /** Whether {@code connection} is still handshaking. */
    boolean handshaking(ServerConnection connection) {
        return handshaking.containsKey(connection);
    }

    /** A connection was accepted: it is greeted, after dropping the oldest one handshaking if there is no room. */
    void accepted(ServerConnection connection) {
        Iterator<Map.Entry<ServerConnection, Handshake>> oldest =
                handshaking.entrySet().iterator();
        if (handshaking.size() >= maxHandshakes && oldest.hasNext()) {
            Map.Entry<ServerConnection, Handshake> dropped = oldest.next();
            oldest.remove();
            dropped.getValue().deadline.cancel();
            note("a connection from " + dropped.getKey().from + " was dropped: " + maxHandshakes
                    + " connections were handshaking at once");
            dropped.getKey().close();
        }
        Handshake handshake = new Handshake(loop.after(handshakeLimit, () -> {
            if (handshaking.remove(connection) != null) {
                note("a connection from " + connection.from + " did not complete its handshake within "
                        + Settings.formatDuration(handshakeLimit));
                connection.close();
            }
        }));
        handshaking.put(connection, handshake);
        connection.queue(ByteBuffer.allocate(OPENING_BYTES + JobToken.NONCE_BYTES + 1 + Integer.BYTES)
                .putInt(Channel.MAGIC)
                .putInt(Channel.VERSION)
                .put(handshake.serverNonce)
                .put(door.hostedByRankZero() ? Channel.HOSTED_BY_RANK_0 : Channel.STANDALONE)
                .putInt((int)
                        Math.min(Integer.MAX_VALUE, door.heartbeatTimeout().toMillis()))
                .array());
    }

    /** The handshaking {@code connection} ended. */
    void ended(ServerConnection connection, IOException cause) {
        Handshake handshake = handshaking.remove(connection);
        if (handshake != null) {
            handshake.deadline.cancel();
            note("a connection from " + connection.from + " failed during the handshake: " + cause);
            connection.close();
        }
    }

    /** Bytes arrived on the handshaking {@code connection}: it is admitted, or answered why not, once they suffice. */
    void readable(ServerConnection connection) {
        Handshake handshake = handshaking.get(connection);
        if (!handshake.opened) {
            byte[] opening = connection.take(OPENING_BYTES);
            if (opening == null) {
                return;
            }
            handshake.opened = true;
            String refusal = refusal(connection, ByteBuffer.wrap(opening));
            if (refusal != null) {
                settle(connection, handshake);
                reject(connection, refusal, false);
                return;
            }
        }
        byte[] claimed = connection.take(CLAIM_BYTES);
        if (claimed == null) {
            return;
        }
        settle(connection, handshake);
        ByteBuffer claim = ByteBuffer.wrap(claimed);
        FrameRules.Claim kind;
        try {
            kind = FrameRules.Claim.ofWire(claim.get());
        } catch (ProtocolException e) {
            note("a connection from " + connection.from + " failed during the handshake: " + e);
            connection.close();
            return;
        }
        int rank = claim.getInt();
        int size = claim.getInt();
        byte[] clientNonce = new byte[JobToken.NONCE_BYTES];
        claim.get(clientNonce);
        byte[] mac = new byte[JobToken.MAC_BYTES];
        claim.get(mac);
        admit(connection, kind, rank, size, handshake.serverNonce, clientNonce, mac);
    }

    private void settle(ServerConnection connection, Handshake handshake) {
        handshaking.remove(connection);
        handshake.deadline.cancel();
    }

    /** Why a member whose opening is {@code opening} cannot be one of this job (another protocol or version), or null. */
    private static String refusal(ServerConnection connection, ByteBuffer opening) {
        int magic = opening.getInt();
        int version = opening.getInt();
        if (magic != Channel.MAGIC) {
            return "a connection from " + connection.from + " is not a collectives bootstrap peer of version "
                    + Channel.VERSION + " (magic " + Integer.toHexString(magic) + ", version " + version + ")";
        }
        if (version != Channel.VERSION) {
            return "a rank at " + connection.from + " speaks version " + version + " of the collectives rendezvous "
                    + "protocol, this server version " + Channel.VERSION + " (every rank and the server need the "
                    + "same release of the library)";
        }
        return null;
    }

    /** Admits the peer that claimed {@code rank} of {@code size} as {@code kind} with {@code mac}, or answers why not. */
    private void admit(
            ServerConnection connection,
            FrameRules.Claim kind,
            int rank,
            int size,
            byte[] serverNonce,
            byte[] clientNonce,
            byte[] mac) {
        byte[] claimed = JobToken.ints(rank, size);
        if (!token.verify(mac, kind.word, serverNonce, clientNonce, claimed)) {
            String who = kind == FrameRules.Claim.DUMP
                    ? "that asks for the ranks' records"
                    : rank < 0 ? "that joins the running job" : "claiming rank " + rank;
            reject(
                    connection,
                    "a connection from " + connection.from + " " + who + " presented a wrong job token",
                    false);
            return;
        }
        if (kind == FrameRules.Claim.FATE) {
            answerFate(connection, rank);
            return;
        }
        String ended = door.ended();
        if (ended != null) {
            reject(connection, ended, false);
            door.toldLate(rank);
            return;
        }
        if (kind == FrameRules.Claim.DUMP) {
            connection.admitted(
                    Channel.sessionKey(token, serverNonce, clientNonce, rank), "a client at " + connection.from);
            connection.queue(ByteBuffer.allocate(1 + JobToken.MAC_BYTES)
                    .put(Channel.ACCEPTED)
                    .put(token.mac("accept", serverNonce, clientNonce, claimed))
                    .array());
            door.admitDumper(connection);
            return;
        }
        if (kind != FrameRules.Claim.GROW) {
            String problem = door.claim(rank, size, connection.from, kind == FrameRules.Claim.REPLACE);
            if (problem != null) {
                reject(connection, problem, kind == FrameRules.Claim.JOIN); // a replacement refused changes nothing
                return;
            }
        }
        Slot slot = door.seat(connection, rank, kind);
        connection.admitted(
                Channel.sessionKey(token, serverNonce, clientNonce, slot.rank),
                "rank " + slot.rank + " at " + connection.from);
        boolean grows = kind == FrameRules.Claim.GROW;
        ByteBuffer answer = ByteBuffer.allocate(1 + (grows ? Integer.BYTES : 0) + JobToken.MAC_BYTES)
                .put(Channel.ACCEPTED);
        if (grows) { // the number it holds is part of what the answer proves
            answer.putInt(slot.rank)
                    .put(token.mac("accept", serverNonce, clientNonce, claimed, JobToken.ints(slot.rank)));
        } else {
            answer.put(token.mac("accept", serverNonce, clientNonce, claimed));
        }
        connection.queue(answer.array());
        door.seated(slot);
    }

    /**
     * Tells a rank whose connection ended whether, and why, it was excluded from the job; either way it is not
     * admitted, and the job goes on as it was.
     */
    private void answerFate(ServerConnection connection, int rank) {
        String exclusion = door.exclusion(rank);
        answer(
                connection,
                exclusion != null ? Channel.EXCLUDED : Channel.REJECTED,
                exclusion != null ? exclusion : "rank " + rank + " was not excluded");
    }

    /**
     * Tells the peer why it is turned away. A peer without the token, or one that comes after the job ended, is
     * only noted (a stray connection must not end the job); an authenticated peer that cannot be a member means
     * the launch is wrong, which ends the job, before the peer hears why, so that the job has ended by then.
     */
    private void reject(ServerConnection connection, String reason, boolean endsJob) {
        if (endsJob) {
            door.endJob(Cause.of(Cause.Kind.MISLAUNCHED, reason)); // before the job formed: it concerns every rank
        } else if (note(reason)) {
            door.refused(Cause.of(Cause.Kind.TURNED_AWAY, reason));
        }
        answer(connection, Channel.REJECTED, reason);
    }

    /**
     * Answers the handshake with {@code answer} and {@code text}; the connection closes once they went out, or at
     * the handshake's limit.
     */
    private void answer(ServerConnection connection, byte answer, String text) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(answer);
            Channel.writeText(out, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        connection.queue(bytes.toByteArray());
        connection.closeWhenSent();
        loop.after(handshakeLimit, connection::close);
    }

    /** Notes {@code what} for the timeout message; whether it was noted (at most {@link #MAX_NOTES} are). */
    private boolean note(String what) {
        return turnedAway.size() < MAX_NOTES && turnedAway.add(what);
    }
}
