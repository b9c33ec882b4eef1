package dev.collectives.runtime.bootstrap;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ProtocolException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Rank 0 of a TCP rendezvous: serves at the endpoint, admits each other rank once after it proves it holds the
 * job token, then relays every operation (a star: the values of a job's bootstrap are small). It keeps serving
 * until closed so that a late duplicate of a rank is turned away, and fails the job, rather than left to time out.
 */
final class TcpRoot extends Exchange {
    /** How long one peer's handshake may take before the next connection is served. */
    private static final Duration HANDSHAKE_LIMIT = Duration.ofSeconds(5);
    /** How many turned-away connections a timeout message lists. */
    private static final int MAX_NOTES = 8;

    private final RendezvousEndpoint endpoint;
    private final JobToken token;
    private final ServerSocket server;
    private final Thread acceptor;
    private final Object lock = new Object();
    private final Channel[] members;
    private final List<String> turnedAway = new ArrayList<>();
    private int joined;
    private String fatal;

    private TcpRoot(RendezvousEndpoint endpoint, int size, JobToken token, Duration timeout, ServerSocket server) {
        super(0, size, endpoint.toString(), timeout);
        this.endpoint = endpoint;
        this.token = token;
        this.server = server;
        this.members = new Channel[size];
        this.acceptor = new Thread(this::acceptLoop, "collectives-bootstrap-acceptor");
        acceptor.setDaemon(true);
    }

    /** Serves at {@code endpoint} until every rank has joined, or fails naming the ranks missing. */
    static TcpRoot serve(RendezvousEndpoint endpoint, int size, JobToken token, Duration timeout) {
        Deadline deadline = Deadline.after(timeout);
        TcpRoot root = new TcpRoot(endpoint, size, token, timeout, listen(endpoint));
        root.acceptor.start();
        root.awaitMembers(deadline);
        return root;
    }

    /**
     * Listens on the endpoint's port: on the loopback address if that is the endpoint, else on every interface
     * (a host name may resolve to another of this host's addresses here than on the other nodes), after checking
     * that the endpoint is an address of this host at all.
     */
    private static ServerSocket listen(RendezvousEndpoint endpoint) {
        InetAddress address;
        try {
            address = InetAddress.getByName(endpoint.host());
            if (!address.isLoopbackAddress() && !address.isAnyLocalAddress()
                    && NetworkInterface.getByInetAddress(address) == null) {
                throw BootstrapException.settings(0, "rank 0 must run on the rendezvous host, but " + endpoint
                        + " (" + address.getHostAddress() + ") is not an address of this host ("
                        + InetAddress.getLocalHost().getHostName() + ")");
            }
        } catch (UnknownHostException e) {
            throw BootstrapException.settings(0, "cannot resolve the rendezvous host of " + endpoint + ": "
                    + e.getMessage());
        } catch (SocketException e) {
            throw BootstrapException.failed(0, "cannot list this host's network interfaces: " + e.getMessage(), e);
        }
        InetSocketAddress bindTo = address.isLoopbackAddress()
                ? new InetSocketAddress(address, endpoint.port()) : new InetSocketAddress(endpoint.port());
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
            throw BootstrapException.failed(0, "rank 0 cannot listen at " + endpoint + ": " + e.getMessage()
                    + " (another job on this port, or a second process with rank 0?)", e);
        } catch (IOException e) {
            throw BootstrapException.failed(0, "rank 0 cannot listen at " + endpoint + ": " + e, e);
        }
    }

    private void awaitMembers(Deadline deadline) {
        String failure;
        synchronized (lock) {
            while (fatal == null && joined < size() - 1 && !deadline.expired()) {
                try {
                    lock.wait(Math.max(1, deadline.remainingMillis()));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    fatal = "interrupted while waiting for the ranks to join";
                }
            }
            if (fatal == null && joined == size() - 1) {
                return;
            }
            failure = fatal != null ? fatal : missing() + " did not join at " + where() + " " + deadline.within()
                    + (turnedAway.isEmpty() ? "" : "; turned away: " + String.join("; ", turnedAway));
        }
        throw fail(failure, null);
    }

    /** "rank 3", "ranks 1, 2" */
    private String missing() {
        List<String> ranks = IntStream.range(1, size()).filter(r -> members[r] == null).mapToObj(Integer::toString)
                .collect(Collectors.toList());
        return (ranks.size() == 1 ? "rank " : "ranks ") + String.join(", ", ranks);
    }

    // ---- joining: runs on the acceptor thread for as long as the rendezvous is open --------------------------

    private void acceptLoop() {
        while (!server.isClosed()) {
            Socket socket;
            try {
                socket = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            handshake(socket);
        }
    }

    private void handshake(Socket socket) {
        String from = String.valueOf(socket.getRemoteSocketAddress());
        Channel channel;
        try {
            channel = new Channel(socket, "a peer at " + from);
        } catch (IOException e) {
            closeQuietly(socket);
            return;
        }
        Deadline deadline = Deadline.after(HANDSHAKE_LIMIT.compareTo(timeout()) < 0 ? HANDSHAKE_LIMIT : timeout());
        try {
            String rejection = channel.within(deadline, () -> admit(channel, from));
            if (rejection != null) {
                channel.close();
            }
        } catch (IOException e) {
            note("a connection from " + from + " failed during the handshake: " + e);
            channel.close();
        }
    }

    /** Admits the peer on {@code channel}, or answers why not; returns the rejection, null when admitted. */
    private String admit(Channel channel, String from) throws IOException {
        DataOutputStream out = channel.out();
        DataInputStream in = channel.in();
        byte[] serverNonce = JobToken.nonce();
        out.writeInt(Channel.MAGIC);
        out.writeInt(Channel.VERSION);
        out.write(serverNonce);
        out.flush();
        int magic = in.readInt();
        int version = in.readInt();
        if (magic != Channel.MAGIC || version != Channel.VERSION) {
            return reject(channel, "a connection from " + from + " is not a collectives bootstrap peer of version "
                    + Channel.VERSION + " (magic " + Integer.toHexString(magic) + ", version " + version + ")", false);
        }
        int rank = in.readInt();
        int size = in.readInt();
        byte[] clientNonce = Channel.readBytes(in, JobToken.NONCE_BYTES);
        byte[] mac = Channel.readBytes(in, JobToken.MAC_BYTES);
        byte[] claim = JobToken.ints(rank, size);
        if (!token.verify(mac, "join", serverNonce, clientNonce, claim)) {
            return reject(channel, "a connection from " + from + " claiming rank " + rank
                    + " presented a wrong job token", false);
        }
        String problem = membershipProblem(rank, size, from);
        if (problem != null) {
            return reject(channel, problem, true);
        }
        channel.authenticated(Channel.sessionKey(token, serverNonce, clientNonce, rank), true,
                "rank " + rank + " at " + from);
        out.writeByte(Channel.ACCEPTED);
        out.write(token.mac("accept", serverNonce, clientNonce, claim));
        out.flush();
        String lateFailure;
        synchronized (lock) {
            lateFailure = fatal != null ? fatal : server.isClosed() ? "rank 0 closed the rendezvous" : null;
            if (lateFailure == null) {
                members[rank] = channel;
                joined++;
                lock.notifyAll();
                return null;
            }
        }
        // the job failed while this peer was being admitted: tell it why rather than just closing
        channel.send(Channel.ABORT, 0, Channel.truncate("rank 0 ended the job: " + lateFailure),
                Deadline.after(Duration.ofSeconds(1)));
        return lateFailure;
    }

    /** Why an authenticated peer cannot be rank {@code rank} of this job; null if it can. */
    private String membershipProblem(int rank, int size, String from) {
        synchronized (lock) {
            if (fatal != null) {
                return fatal;
            }
            if (size != size()) {
                return "rank " + rank + " at " + from + " says the world size is " + size + ", rank 0 at " + where()
                        + " says " + size();
            }
            if (rank == 0) {
                return "a second process with rank 0 at " + from + " tried to join rank 0 at " + where();
            }
            if (rank < 0 || rank >= size()) {
                return "a peer at " + from + " claims rank " + rank + ", outside 0.." + (size() - 1);
            }
            if (members[rank] != null) {
                return "duplicate rank " + rank + ": it joined from " + members[rank].peer().replace("rank " + rank
                        + " at ", "") + " and again from " + from;
            }
            return null;
        }
    }

    /**
     * Tells the peer why it is turned away. A peer without the token is only noted (a stray connection must not
     * end the job); an authenticated peer that cannot be a member means the launch is wrong, which ends the job.
     */
    private String reject(Channel channel, String reason, boolean endsJob) throws IOException {
        channel.out().writeByte(Channel.REJECTED);
        Channel.writeText(channel.out(), reason);
        channel.out().flush();
        if (endsJob) {
            synchronized (lock) {
                if (fatal == null) {
                    fatal = reason;
                }
                lock.notifyAll();
            }
        } else {
            note(reason);
        }
        return reason;
    }

    private void note(String what) {
        synchronized (lock) {
            if (turnedAway.size() < MAX_NOTES) {
                turnedAway.add(what);
            }
        }
    }

    // ---- operations -----------------------------------------------------------------------------------------

    @Override
    protected byte[] doBroadcast(byte[] value, Deadline deadline) {
        checkNoLateFailure();
        for (int r = 1; r < size(); r++) {
            sendTo(r, value, deadline);
        }
        return value;
    }

    @Override
    protected byte[][] doAllGather(byte[] value, Deadline deadline) {
        checkNoLateFailure();
        byte[][] values = new byte[size()][];
        values[0] = value;
        byte[] all = new byte[value.length * size()];
        System.arraycopy(value, 0, all, 0, value.length);
        for (int r = 1; r < size(); r++) {
            Channel member = members[r];
            Channel.Frame frame;
            try {
                frame = member.receive(sequence(), MAX_VALUE_BYTES, deadline);
            } catch (IOException e) {
                throw fail(describe(member, e, deadline), e);
            }
            if (frame.type() != Channel.DATA || frame.bytes().length != value.length) {
                throw fail(member.peer() + " contributed " + frame.bytes().length + " bytes to " + operation()
                        + ", rank 0 " + value.length + " bytes (the ranks called it with different sizes)", null);
            }
            values[r] = frame.bytes();
            System.arraycopy(frame.bytes(), 0, all, r * value.length, value.length);
        }
        for (int r = 1; r < size(); r++) {
            sendTo(r, all, deadline);
        }
        return values;
    }

    private void sendTo(int rank, byte[] bytes, Deadline deadline) {
        try {
            members[rank].send(Channel.DATA, sequence(), bytes, deadline);
        } catch (IOException e) {
            throw fail(describe(members[rank], e, deadline), e);
        }
    }

    private void checkNoLateFailure() {
        String late;
        synchronized (lock) {
            late = fatal;
        }
        if (late != null) {
            throw fail(late, null);
        }
    }

    private String describe(Channel member, IOException e, Deadline deadline) {
        if (e instanceof SocketTimeoutException) {
            return member.peer() + " did not take part in " + operation() + " " + deadline.within();
        }
        if (e instanceof ProtocolException) {
            return member.peer() + " sent " + e.getMessage() + " in " + operation();
        }
        if (e instanceof EOFException || e instanceof SocketException) {
            return member.peer() + " is gone: its connection ended during " + operation() + " (" + e + ")";
        }
        return member.peer() + " failed during " + operation() + ": " + e;
    }

    /** Tells every member why the job ends (best effort, briefly), closes everything, and returns the failure. */
    private BootstrapException fail(String reason, Throwable cause) {
        synchronized (lock) {
            if (fatal == null) {
                fatal = reason;
            }
        }
        Deadline brief = Deadline.after(Duration.ofMillis(Math.min(1000, timeout().toMillis())));
        byte[] text = Channel.truncate("rank 0 ended the job: " + reason);
        for (Channel member : members) {
            if (member != null) {
                try {
                    member.send(Channel.ABORT, sequence(), text, brief);
                } catch (IOException ignored) {
                    // that member is gone or stuck; it fails on its own deadline
                }
            }
        }
        return fail(BootstrapException.failed(0, reason, cause));
    }

    @Override
    protected void doClose() {
        closeQuietly(server);
        synchronized (lock) {
            for (Channel member : members) {
                if (member != null) {
                    member.close();
                }
            }
        }
    }

    private static void closeQuietly(AutoCloseable resource) {
        try {
            resource.close();
        } catch (Exception ignored) {
            // best effort
        }
    }
}
