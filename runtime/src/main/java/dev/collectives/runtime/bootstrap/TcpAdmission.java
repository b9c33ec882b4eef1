package dev.collectives.runtime.bootstrap;

import dev.collectives.runtime.BootstrapException;
import dev.collectives.runtime.RendezvousEndpoint;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The door of a TCP job's server ({@link Door}, a {@link JobServer}): accepts connections for as long as the
 * rendezvous is open and admits each peer that proves it holds the job token as the rank it claims, or as the replacement of a rank that died. Handshakes run on a pool of at most
 * {@link #MAX_HANDSHAKES} threads, each within its own deadline; a connection beyond that many drops the oldest
 * one still handshaking, so that idle, trickling or garbage connections, however many, can neither delay nor
 * block the ranks. What it turned away is kept for the server's timeout message.
 */
final class TcpAdmission {
    /** How many connections may be handshaking at once; a legitimate rank needs one round trip. */
    static final int MAX_HANDSHAKES = 64;
    /** A handshake's or a member listener's stack: it only reads and writes a few fixed-size fields. */
    private static final long SMALL_STACK_BYTES = 256 * 1024;
    /** How many turned-away connections a timeout message lists. */
    private static final int MAX_NOTES = 8;

    private final ServerSocket server;
    private final JobToken token;
    private final Door door;
    private final Duration handshakeLimit;
    private final ThreadPoolExecutor handshakes = new ThreadPoolExecutor(
            MAX_HANDSHAKES,
            MAX_HANDSHAKES,
            1,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            smallDaemonThreads("collectives-bootstrap-handshake"));
    /** The connections handshaking, oldest first: the one to drop when a new one finds it full. */
    private final BlockingQueue<Handshake> handshaking = new ArrayBlockingQueue<>(MAX_HANDSHAKES);

    private final List<String> turnedAway = new ArrayList<>();
    /** Whether the acceptor has stopped (the server socket closed); guarded by this. */
    private boolean stopped;
    /** The shutdown hook that holds this JVM's exit until the acceptor stops, or null; guarded by this. */
    private Thread exitHold;

    /**
     * A connection still handshaking, and where it came from. Whichever first {@link #settle}s it decides its fate:
     * the handshake, which admits it, or the acceptor, which drops it to make room.
     */
    private record Handshake(Channel channel, String from, AtomicBoolean settled) {
        Handshake(Channel channel, String from) {
            this(channel, from, new AtomicBoolean());
        }

        boolean settle() {
            return settled.compareAndSet(false, true);
        }
    }

    /** Admits members through {@code server} to {@code door}; each handshake within {@code handshakeLimit}. */
    TcpAdmission(ServerSocket server, JobToken token, Door door, Duration handshakeLimit) {
        this.server = server;
        this.token = token;
        this.door = door;
        this.handshakeLimit = handshakeLimit;
        handshakes.allowCoreThreadTimeOut(true); // no threads kept while nobody connects
    }

    /**
     * Listens on the endpoint's port: on the loopback address if that is the endpoint, else on every interface
     * (a host name may resolve to another of this host's addresses here than on the other nodes), after checking
     * that the endpoint is an address of this host at all. {@code who} serves there, for messages: "rank 0".
     */
    static ServerSocket listen(RendezvousEndpoint endpoint, String who) {
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
            ServerSocket server = new ServerSocket();
            server.setReuseAddress(true);
            try {
                server.bind(bindTo, 128);
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

    /** Daemon threads named {@code name}, with stacks for a few reads and writes. */
    static ThreadFactory smallDaemonThreads(String name) {
        return task -> {
            Thread thread = new Thread(null, task, name, SMALL_STACK_BYTES);
            thread.setDaemon(true);
            return thread;
        };
    }

    /** Accepts connections until the server socket closes. */
    void open() {
        smallDaemonThreads("collectives-bootstrap-acceptor")
                .newThread(this::acceptLoop)
                .start();
    }

    /** "; turned away: ..." for each connection noted, or nothing. */
    String turnedAway() {
        synchronized (turnedAway) {
            return turnedAway.isEmpty() ? "" : "; turned away: " + String.join("; ", turnedAway);
        }
    }

    private void acceptLoop() {
        try {
            while (!server.isClosed()) {
                Socket socket;
                try {
                    socket = server.accept();
                } catch (IOException e) {
                    return; // closed
                }
                String from = String.valueOf(socket.getRemoteSocketAddress());
                try {
                    start(new Handshake(new Channel(socket, "a peer at " + from), from));
                } catch (IOException e) {
                    closeQuietly(socket);
                }
            }
        } finally {
            handshakes.shutdown(); // those under way end at their deadlines
            stopped();
        }
    }

    /**
     * Holds this JVM's exit (a shutdown hook) until the server socket closes or {@code limit} passes, so that late
     * arrivals are still answered when the process exits, even through {@code System.exit}, right after its job
     * failed.
     */
    synchronized void holdExitUntilClosed(Deadline limit) {
        if (!stopped && exitHold == null) {
            exitHold = new Thread(() -> awaitStopped(limit), "collectives-bootstrap-late-arrivals");
            Runtime.getRuntime().addShutdownHook(exitHold);
        }
    }

    private synchronized void awaitStopped(Deadline limit) {
        while (!stopped && !limit.expired()) {
            try {
                wait(Math.max(1, limit.remainingMillis()));
            } catch (InterruptedException e) {
                return; // the JVM is being torn down regardless
            }
        }
    }

    private synchronized void stopped() {
        stopped = true;
        notifyAll();
        if (exitHold != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(exitHold);
            } catch (IllegalStateException exiting) {
                // the hook is running: it returns now
            }
        }
    }

    /** Starts {@code handshake}, first dropping the oldest one under way if {@link #MAX_HANDSHAKES} are. */
    private void start(Handshake handshake) {
        while (!handshaking.offer(handshake)) { // only this thread adds, so this ends
            Handshake oldest = handshaking.poll();
            if (oldest != null && oldest.settle()) { // not one being admitted this very moment
                note("a connection from " + oldest.from() + " was dropped: " + MAX_HANDSHAKES
                        + " connections were handshaking at once");
                oldest.channel().close();
            }
        }
        handshakes.execute(() -> run(handshake));
    }

    private void run(Handshake handshake) {
        Channel channel = handshake.channel();
        String from = handshake.from();
        Deadline deadline = Deadline.after(handshakeLimit);
        try {
            String rejection = channel.within(deadline, () -> admit(handshake));
            if (rejection != null) {
                channel.close();
            }
        } catch (SocketTimeoutException e) {
            note("a connection from " + from + " did not complete its handshake " + deadline.within());
            channel.close();
        } catch (IOException e) {
            note("a connection from " + from + " failed during the handshake: " + e);
            channel.close();
        } finally {
            handshaking.remove(handshake);
        }
    }

    /** Admits the peer of {@code handshake}, or answers why not; returns the rejection, null when admitted. */
    private String admit(Handshake handshake) throws IOException {
        Channel channel = handshake.channel();
        String from = handshake.from();
        DataOutputStream out = channel.out();
        DataInputStream in = channel.in();
        byte[] serverNonce = JobToken.nonce();
        out.writeInt(Channel.MAGIC);
        out.writeInt(Channel.VERSION);
        out.write(serverNonce);
        out.writeByte(door.hostedByRankZero() ? Channel.HOSTED_BY_RANK_0 : Channel.STANDALONE);
        out.writeInt((int) Math.min(Integer.MAX_VALUE, door.heartbeatTimeout().toMillis()));
        out.flush();
        int magic = in.readInt();
        int version = in.readInt();
        if (magic != Channel.MAGIC) {
            return reject(
                    channel,
                    "a connection from " + from + " is not a collectives bootstrap peer of version " + Channel.VERSION
                            + " (magic " + Integer.toHexString(magic) + ", version " + version + ")",
                    false);
        }
        if (version != Channel.VERSION) {
            return reject(
                    channel,
                    "a rank at " + from + " speaks version " + version + " of the collectives rendezvous protocol, "
                            + "this server version " + Channel.VERSION + " (every rank and the server need the same "
                            + "release of the library)",
                    false);
        }
        FrameRules.Claim kind = FrameRules.Claim.ofWire(in.readByte());
        int rank = in.readInt();
        int size = in.readInt();
        byte[] clientNonce = Channel.readBytes(in, JobToken.NONCE_BYTES);
        byte[] mac = Channel.readBytes(in, JobToken.MAC_BYTES);
        byte[] claim = JobToken.ints(rank, size);
        if (!token.verify(mac, kind.word, serverNonce, clientNonce, claim)) {
            String who = rank < 0 ? "that joins the running job" : "claiming rank " + rank;
            return reject(channel, "a connection from " + from + " " + who + " presented a wrong job token", false);
        }
        if (kind == FrameRules.Claim.FATE) {
            return answerFate(channel, rank);
        }
        if (!handshake.settle()) {
            return "dropped"; // by the acceptor, to make room, before it claimed anything: it may try again
        }
        String ended = door.ended();
        if (ended != null) {
            reject(channel, ended, false);
            door.toldLate(rank);
            return ended;
        }
        if (kind == FrameRules.Claim.GROW) {
            return admit(
                    channel, door.claimJoining(from), from, FrameRules.Claim.GROW, serverNonce, clientNonce, claim);
        }
        boolean replaces = kind == FrameRules.Claim.REPLACE;
        String problem = door.claim(rank, size, from, replaces);
        if (problem != null) {
            return reject(channel, problem, !replaces); // a replacement refused leaves the job as it was
        }
        return admit(channel, rank, from, kind, serverNonce, clientNonce, claim);
    }

    /**
     * Tells the peer it is admitted as {@code rank} (a process that joins at the next growth hears its number too),
     * and hands it to the door; returns null.
     */
    private String admit(
            Channel channel,
            int rank,
            String from,
            FrameRules.Claim kind,
            byte[] serverNonce,
            byte[] clientNonce,
            byte[] claim)
            throws IOException {
        boolean admitted = false;
        try {
            channel.authenticated(
                    Channel.sessionKey(token, serverNonce, clientNonce, rank), true, "rank " + rank + " at " + from);
            door.join(rank, channel, kind, () -> {
                DataOutputStream out = channel.out();
                out.writeByte(Channel.ACCEPTED);
                if (kind == FrameRules.Claim.GROW) {
                    out.writeInt(rank);
                    out.write(token.mac("accept", serverNonce, clientNonce, claim, JobToken.ints(rank)));
                } else {
                    out.write(token.mac("accept", serverNonce, clientNonce, claim));
                }
                out.flush();
            });
            admitted = true;
        } finally {
            if (!admitted) {
                door.unclaim(rank); // it may try again
            }
        }
        return null;
    }

    /**
     * Tells a rank whose connection ended whether, and why, it was excluded from the job; either way it is not
     * admitted, and the job goes on as it was.
     */
    private String answerFate(Channel channel, int rank) throws IOException {
        String exclusion = door.exclusion(rank);
        channel.out().writeByte(exclusion != null ? Channel.EXCLUDED : Channel.REJECTED);
        Channel.writeText(channel.out(), exclusion != null ? exclusion : "rank " + rank + " was not excluded");
        channel.out().flush();
        return exclusion != null ? exclusion : "not excluded";
    }

    /**
     * Tells the peer why it is turned away. A peer without the token, or one that comes after the job ended, is
     * only noted (a stray connection must not end the job); an authenticated peer that cannot be a member means
     * the launch is wrong, which ends the job, before the peer hears why, so that the job has ended by then.
     */
    private String reject(Channel channel, String reason, boolean endsJob) throws IOException {
        if (endsJob) {
            door.endJob(Cause.of(Cause.Kind.MISLAUNCHED, reason)); // before the job formed: it concerns every rank
        } else if (note(reason)) {
            door.refused(Cause.of(Cause.Kind.TURNED_AWAY, reason));
        }
        channel.out().writeByte(Channel.REJECTED);
        Channel.writeText(channel.out(), reason);
        channel.out().flush();
        return reason;
    }

    /** Notes {@code what} for the timeout message; whether it was noted (at most {@link #MAX_NOTES} are). */
    private boolean note(String what) {
        synchronized (turnedAway) {
            return turnedAway.size() < MAX_NOTES && turnedAway.add(what);
        }
    }

    static void closeQuietly(AutoCloseable resource) {
        try {
            resource.close();
        } catch (Exception ignored) {
            // best effort
        }
    }
}
