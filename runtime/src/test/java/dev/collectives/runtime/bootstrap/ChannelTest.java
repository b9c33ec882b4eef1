package dev.collectives.runtime.bootstrap;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.collectives.runtime.bootstrap.wire.Channel;
import dev.collectives.runtime.bootstrap.wire.FrameType;
import dev.collectives.runtime.bootstrap.wire.JobToken;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** One connection between rank 0 and a member, read by one thread and written by another at once. */
class ChannelTest {
    private static final JobToken SESSION_KEY = JobToken.of(RankThreadsForTests.TOKEN, 0);

    @Test
    void aMessageSentWithADeadlineLeavesAReadWithoutOneUnbounded() throws IOException {
        InetAddress loopback = InetAddress.getLoopbackAddress();
        try (ServerSocket listening = new ServerSocket(0, 1, loopback);
                Socket memberSide = new Socket(loopback, listening.getLocalPort());
                Socket rootSide = listening.accept();
                Channel member = new Channel(memberSide, "rank 0");
                Channel root = new Channel(rootSide, "rank 1")) {
            member.authenticated(SESSION_KEY, false, "rank 0");
            root.authenticated(SESSION_KEY, true, "rank 1");
            memberSide.setSoTimeout(0); // where a watcher reads with no deadline (receiveAny)

            member.send(
                    FrameType.STALL,
                    3,
                    Cause.of(Cause.Kind.STALLED, "its stream waited 300 s", 1).bytes(),
                    Deadline.after(Duration.ofSeconds(1)));

            // A send's deadline bounding the watcher's read would end it with "Read timed out", a second later,
            // as if rank 0 were gone.
            assertEquals(0, memberSide.getSoTimeout());
            Channel.Frame heard = root.receive(3, 0, Deadline.after(Duration.ofSeconds(20)));
            assertEquals(FrameType.STALL, heard.type());
            assertEquals(Cause.of(Cause.Kind.STALLED, "its stream waited 300 s", 1), heard.cause());
        }
    }
}
