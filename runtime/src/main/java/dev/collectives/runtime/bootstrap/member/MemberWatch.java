package dev.collectives.runtime.bootstrap.member;

import dev.collectives.runtime.bootstrap.Cause;
import dev.collectives.runtime.bootstrap.JobState;
import dev.collectives.runtime.bootstrap.wire.Channel;
import dev.collectives.runtime.bootstrap.wire.FrameRules;
import dev.collectives.runtime.bootstrap.wire.FrameType;
import java.io.IOException;
import java.net.ProtocolException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * One watch of a member's job ({@link TcpMember#watch}): it hears the server's news as its member's loop reads it,
 * on a thread of {@link MemberLoop#NEWS} (hearing it may take a question to the server, and the loop never waits):
 * the job's end (an ABORT, with why), a rank's death (GONE), or that rank 0 closed the job (LEAVE). A connection that
 * ends otherwise, while the member neither aborted nor closed, means the server is gone.
 */
final class MemberWatch {
    /** What a watch heard when no news has come yet. */
    private static final Cause NOT_YET = Cause.of(Cause.Kind.ABORTED, "");

    private final TcpMember member;
    private final MemberConnection root;
    private final Consumer<Cause> onFailure;
    private final CompletableFuture<Void> over = new CompletableFuture<>();

    MemberWatch(TcpMember member, MemberConnection root, Consumer<Cause> onFailure) {
        this.member = member;
        this.root = root;
        this.onFailure = onFailure;
    }

    /** Whether the watch is over: it heard the job's news, or its end. */
    CompletableFuture<Void> over() {
        return over;
    }

    /** On the member loop: news came; it is heard on a thread of its own, since hearing it may ask the server. */
    void wake() {
        MemberLoop.NEWS.execute(this::hear);
    }

    private synchronized void hear() {
        if (over.isDone()) {
            return;
        }
        Cause failure = heard();
        if (failure == NOT_YET) {
            return;
        }
        root.onNews(null);
        over.complete(null);
        if (failure != null) {
            onFailure.accept(failure);
        }
    }

    /** The failure the news is, null where it is none (the watch ends quietly), or {@link #NOT_YET}. */
    private Cause heard() {
        try {
            Channel.Frame frame = nextNews();
            if (frame == null) {
                return NOT_YET;
            }
            if (frame.type() == FrameType.LEAVE || frame.type() == FrameType.UNWATCH) {
                return null;
            }
            if (frame.type() == FrameType.GONE) {
                // before the watcher hears it: it may resume at once
                member.state().on(JobState.Event.DEATH, frame.cause().text());
                return frame.cause();
            }
            member.endOf(frame);
            return ended(frame.cause());
        } catch (ProtocolException e) {
            return ended(member.serverLost(member.server() + " sent " + e.getMessage()));
        } catch (IOException e) {
            if (member.ending()) {
                return null;
            }
            String exclusion = member.excludedAfter(e, "while the job ran");
            return ended(
                    exclusion != null
                            ? Cause.of(Cause.Kind.EXCLUDED, exclusion, member.rank())
                            : member.serverLost(
                                    e instanceof Channel.Silence
                                            ? member.server()
                                                    + " sent nothing, not even a heartbeat, while the job ran: "
                                                    + e.getMessage()
                                                    + " (it is stopped, cut off from this host, or gone)"
                                            : member.server() + " is gone: the connection ended while the job ran (" + e
                                                    + ")"));
        }
    }

    /** The next news legal while watching, after logging the claims refused; null until one came. */
    private Channel.Frame nextNews() throws IOException {
        for (Channel.Frame frame; (frame = root.poll()) != null; ) {
            FrameRules.check(FrameRules.Phase.WATCHING, frame);
            if (frame.type() != FrameType.REFUSED) {
                return frame;
            }
            member.logRefused(frame.cause().text());
        }
        return null;
    }

    private Cause ended(Cause failure) {
        member.state().on(JobState.Event.END, failure.text());
        return failure;
    }
}
