package dev.collectives.runtime.bootstrap.member;

import dev.collectives.runtime.BootstrapException;
import dev.collectives.runtime.RendezvousEndpoint;
import dev.collectives.runtime.bootstrap.Deadline;
import dev.collectives.runtime.bootstrap.Rendezvous;
import dev.collectives.runtime.bootstrap.Timeouts;
import dev.collectives.runtime.bootstrap.wire.Channel;
import dev.collectives.runtime.bootstrap.wire.Dumps;
import dev.collectives.runtime.bootstrap.wire.FrameRules;
import dev.collectives.runtime.bootstrap.wire.FrameType;
import dev.collectives.runtime.bootstrap.wire.JobToken;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * Asks a job's rendezvous server for every live rank's flight record now: it proves it holds the job's token (a
 * "dump" claim, not a rank's), sends one DUMP, and reads every rank's answer, or why there is none.
 */
public final class DumpClient {
    private DumpClient() {}

    /**
     * Asks the server at {@code endpoint}, proving {@code jobToken}, that every live rank write its records into
     * {@code directory} (an absolute path; empty: each rank's own directory); connecting and the handshake within
     * {@code timeout}, the answers within the server's heartbeat timeout after.
     */
    public static List<Dumps.Answer> ask(
            RendezvousEndpoint endpoint, String jobToken, String directory, Duration timeout) {
        byte[] asked = directory.getBytes(StandardCharsets.UTF_8);
        if (asked.length > Dumps.MAX_DIRECTORY_BYTES) {
            throw BootstrapException.settings(
                    -1,
                    "the directory to dump into takes " + asked.length + " bytes, above " + Dumps.MAX_DIRECTORY_BYTES);
        }
        JobToken token = JobToken.of(jobToken, -1);
        Deadline deadline = Deadline.after(timeout);
        String server = "the rendezvous at " + endpoint;
        try (Socket socket = connected(endpoint, deadline);
                Channel channel = new Channel(socket, server)) {
            MemberJoin.Admitted admitted = channel.within(
                    deadline, () -> MemberJoin.admit(channel, endpoint, -1, -1, token, FrameRules.Claim.DUMP));
            channel.authenticated(admitted.sessionKey(), false, server);
            channel.send(FrameType.DUMP, 0, asked, deadline);
            Duration answering = admitted.greeting()
                    .heartbeatTimeout()
                    .plus(Timeouts.withDefaultHeartbeat(timeout).notice());
            Channel.Frame answer = FrameRules.check(
                    FrameRules.Phase.DUMPING,
                    channel.receive(0, Rendezvous.MAX_VALUE_BYTES, Deadline.after(answering)));
            return Dumps.readReport(answer.bytes());
        } catch (IOException e) {
            throw BootstrapException.failed(-1, "cannot ask " + server + " for the ranks' records: " + e, e);
        }
    }

    private static Socket connected(RendezvousEndpoint endpoint, Deadline deadline) throws IOException {
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress(endpoint.host(), endpoint.port()), deadline.timeoutMillis());
            return socket;
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }
}
