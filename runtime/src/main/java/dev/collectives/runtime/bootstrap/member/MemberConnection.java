package dev.collectives.runtime.bootstrap.member;

import dev.collectives.runtime.bootstrap.Deadline;
import dev.collectives.runtime.bootstrap.RecordsOnDemand;
import dev.collectives.runtime.bootstrap.Settings;
import dev.collectives.runtime.bootstrap.Timeouts;
import dev.collectives.runtime.bootstrap.wire.Channel;
import dev.collectives.runtime.bootstrap.wire.EventLoop;
import dev.collectives.runtime.bootstrap.wire.FrameType;
import dev.collectives.runtime.bootstrap.wire.JobToken;
import dev.collectives.runtime.bootstrap.wire.NioConnection;
import java.io.EOFException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ProtocolException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * A member's control connection, served by its process's {@link MemberLoop}: the loop reads the server's messages
 * into an inbox (heartbeats only refresh when the server was last heard), beats every
 * {@link Timeouts#beatInterval()}, and writes what the member queues. The member's callers take the server's news from
 * the inbox on their own threads ({@link #next}); a watch hears of it as it comes ({@link #onNews}).
 */
public final class MemberConnection extends NioConnection implements EventLoop.Selected {
    /** What the inbox holds after the messages that came before the connection ended. */
    private static final Object ENDED = new Object();

    private final EventLoop loop;
    /** The server's messages, other than heartbeats, in order; then {@link #ENDED}. */
    private final LinkedBlockingQueue<Object> inbox = new LinkedBlockingQueue<>();
    /** How long the server may be silent before this member gives up on it, in nanoseconds. */
    private final long silenceNanos;
    /** The bound of an operation's answer, which grows with the job. */
    private final IntSupplier maxData;
    /** Each beat's bytes: the rank, and where it stands. */
    private final Supplier<byte[]> beat;
    /** The beats' pace: the server's heartbeat timeout. */
    private final Timeouts beats;
    /** When the beat after the one under way is due ({@link #beat}). */
    private long nextBeatDue = System.nanoTime();

    private volatile long lastHeard = System.nanoTime();
    /** Why the connection ended (the server closed it, a read failed, or the server fell silent), or null. */
    private volatile IOException ended;
    /** Told on the loop thread of each news, while the job is watched; else null. */
    private volatile Runnable onNews;

    private MemberConnection(
            EventLoop loop,
            SocketChannel socket,
            SelectionKey key,
            JobToken sessionKey,
            Duration silence,
            Timeouts beats,
            IntSupplier maxData,
            Supplier<byte[]> beat) {
        super(socket, key, false, sessionKey);
        this.loop = loop;
        this.silenceNanos = silence.toNanos();
        this.beats = beats;
        this.maxData = maxData;
        this.beat = beat;
    }

    /**
     * Hands {@code socket}, connected and past its handshake, to {@code loop}, with the bytes read past the handshake
     * ({@code unread}); it beats {@code beat} as often as the server's timeouts ({@code beats}) ask, and gives up on
     * the server after {@code silence} without a message.
     */
    static MemberConnection serve(
            EventLoop loop,
            SocketChannel socket,
            byte[] unread,
            JobToken sessionKey,
            Duration silence,
            Timeouts beats,
            IntSupplier maxData,
            Supplier<byte[]> beat)
            throws IOException {
        socket.configureBlocking(false);
        CompletableFuture<MemberConnection> served = new CompletableFuture<>();
        loop.execute(() -> {
            try {
                SelectionKey key = loop.register(socket, SelectionKey.OP_READ, null);
                MemberConnection connection =
                        new MemberConnection(loop, socket, key, sessionKey, silence, beats, maxData, beat);
                key.attach(connection);
                connection.unread(unread);
                connection.received();
                connection.beat();
                served.complete(connection);
            } catch (IOException | RuntimeException e) {
                served.completeExceptionally(e);
            }
        });
        try {
            return served.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        }
    }

    @Override
    public void selected(SelectionKey key) {
        try {
            if (key.isWritable()) {
                flush();
            }
            if (key.isValid() && key.isReadable()) {
                boolean open = read();
                received();
                if (!open) {
                    end(new EOFException("the server closed the connection"));
                }
            }
        } catch (IOException e) {
            endAfterReading(e);
        }
    }

    /**
     * Hands every whole message read to the inbox, but beats and a dump on demand, which this connection answers
     * itself, whatever its member is doing: the records are written on a thread of {@link MemberLoop#NEWS}, since
     * the loop never waits.
     */
    private void received() throws IOException {
        for (Channel.Frame frame; !isClosed() && (frame = nextFrame(maxData.getAsInt())) != null; ) {
            lastHeard = System.nanoTime();
            if (frame.type() == FrameType.DUMP) {
                Channel.Frame asked = frame;
                MemberLoop.NEWS.execute(() -> post(FrameType.DUMPED, asked.operation(), RecordsOnDemand.answer(asked)));
            } else if (frame.type() != FrameType.HEARTBEAT) {
                inbox.add(frame);
                tell();
            }
        }
    }

    /**
     * Beats, unless a message waits to go out (which is a sign of life too), and minds the server's silence. At a
     * fixed rate: a beat that went out late (the process starved of a core) is followed by the next one interval
     * after it was due, not after it went out, so that one late beat does not add an interval to the silence the
     * server sees.
     */
    private void beat() {
        if (isClosed()) {
            return;
        }
        long now = System.nanoTime();
        if (stuckFor(beats.heartbeat().toNanos(), now)) {
            end(new SocketException(
                    "the server took nothing this rank sent for " + Settings.formatDuration(beats.heartbeat())));
            return;
        }
        if (onNews != null && loop.roundStarted() - lastHeard > silenceNanos) {
            end(new Channel.Silence((int) TimeUnit.NANOSECONDS.toMillis(silenceNanos)));
            return;
        }
        if (idle()) {
            send(FrameType.HEARTBEAT, 0, beat.get(), null);
        }
        long interval = beats.beatInterval().toNanos();
        nextBeatDue = Math.max(nextBeatDue + interval, now);
        loop.after(Duration.ofNanos(nextBeatDue - now), this::beat);
    }

    private void end(IOException why) {
        if (ended == null) {
            ended = asEnded(why);
            inbox.add(ENDED);
            tell();
        }
        close();
    }

    /**
     * {@code why} as a member's callers read it: the server's silence, what it sent that breaks the protocol, or
     * that the connection ended (a failed write or read, whatever the system calls it).
     */
    private static IOException asEnded(IOException why) {
        if (why instanceof Channel.Silence
                || why instanceof EOFException
                || why instanceof SocketException
                || why instanceof ProtocolException) {
            return why;
        }
        SocketException ended = new SocketException("the connection to the server ended: " + why.getMessage());
        ended.initCause(why);
        return ended;
    }

    private void tell() {
        Runnable news = onNews;
        if (news != null) {
            news.run();
        }
    }

    @Override
    protected void writeFailed(IOException cause) {
        loop.execute(() -> endAfterReading(cause));
    }

    /**
     * The connection failed as {@code cause} says: what the server said before it ended (an exclusion, the job's end)
     * is read first, and reaches the callers before the end does.
     */
    private void endAfterReading(IOException cause) {
        if (isClosed()) {
            return;
        }
        readWhatArrived();
        try {
            received();
        } catch (IOException e) {
            end(e);
            return;
        }
        end(cause);
    }

    /**
     * Queues a message for the server; the result hears when it went out whole, or that it never will (the
     * connection ended: what the server said before it did is in the inbox).
     */
    CompletableFuture<Void> post(FrameType type, int operation, byte[] bytes) {
        CompletableFuture<Void> written = new CompletableFuture<>();
        loop.execute(() -> {
            if (!send(type, operation, bytes, written)) {
                end(new SocketException(
                        "the server read none of the last " + MAX_QUEUED_FRAMES + " messages this rank sent"));
            }
        });
        return written;
    }

    /**
     * The server's next message other than a heartbeat, by {@code deadline}: past it, a {@link SocketTimeoutException};
     * where the server sent nothing, not even a heartbeat, for the silence this member allows, a
     * {@link Channel.Silence}; where the connection ended, why.
     */
    Channel.Frame next(Deadline deadline) throws IOException {
        while (true) {
            Object item = inbox.poll();
            if (item == null) {
                long silentFor = loop.roundStarted() - lastHeard;
                if (deadline.expired()) {
                    throw new SocketTimeoutException("no message from the server by the deadline");
                }
                if (silentFor >= silenceNanos) {
                    throw new Channel.Silence((int) TimeUnit.NANOSECONDS.toMillis(silenceNanos));
                }
                long wait =
                        Math.min(TimeUnit.MILLISECONDS.toNanos(deadline.remainingMillis()), silenceNanos - silentFor);
                try {
                    item = inbox.poll(Math.max(1, wait), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new InterruptedIOException("interrupted while waiting for the server");
                }
                if (item == null) {
                    continue;
                }
            }
            if (item == ENDED) {
                inbox.add(ENDED); // every later read hears it too
                throw ended;
            }
            return (Channel.Frame) item;
        }
    }

    /** The server's next message other than a heartbeat, if one came; else null. Fails where the connection ended. */
    Channel.Frame poll() throws IOException {
        Object item = inbox.poll();
        if (item == ENDED) {
            inbox.add(ENDED);
            throw ended;
        }
        return (Channel.Frame) item;
    }

    /** Tells {@code news} (on the loop thread) of each message or end from now on, and at once if one waits. */
    void onNews(Runnable news) {
        onNews = news;
        if (news != null && !inbox.isEmpty()) {
            news.run();
        }
    }

    /** Closes the connection once what waits has gone out, or past {@code limit}. */
    void closeAfterSending(Duration limit) {
        loop.execute(() -> {
            onNews = null;
            closeWhenSent();
            loop.after(limit, this::close);
        });
    }
}
