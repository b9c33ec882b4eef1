package dev.collectives.runtime.bootstrap.server;

import dev.collectives.runtime.bootstrap.Settings;
import dev.collectives.runtime.bootstrap.wire.Channel;
import dev.collectives.runtime.bootstrap.wire.Dumps;
import dev.collectives.runtime.bootstrap.wire.FrameRules;
import dev.collectives.runtime.bootstrap.wire.FrameType;
import java.io.IOException;
import java.net.ProtocolException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Dumps on demand, as a job's server serves them on its loop thread: a client admitted with a "dump" claim asks
 * (DUMP), every live rank is asked to write its records now, and once each has answered (DUMPED), or the heartbeat
 * timeout passed, the client hears every rank's answer or why there is none. Nothing here waits: the answers are
 * gathered as they arrive, and the deadline is one of the loop's timers.
 */
final class ServedDumps {
    private final ServedJob job;
    /** The clients admitted to ask, until they asked and were answered. */
    private final Set<ServerConnection> clients = new HashSet<>();
    /** The requests under way, by number: the members answer with it. */
    private final Map<Integer, Request> requests = new HashMap<>();

    private int lastNumber;

    /** One client's request: the ranks still awaited, and the answers so far. */
    private static final class Request {
        final int number;
        final ServerConnection client;
        final Set<Integer> awaited = new HashSet<>();
        final Map<Integer, List<String>> written = new TreeMap<>();
        ServerLoop.Timer deadline;

        Request(int number, ServerConnection client) {
            this.number = number;
            this.client = client;
        }
    }

    ServedDumps(ServedJob job) {
        this.job = job;
    }

    /** A client proved it holds the job's token: its request is read from now on. */
    void admitted(ServerConnection client) {
        clients.add(client);
    }

    /** Whether {@code connection} is a client that asks for records (not a rank). */
    boolean serves(ServerConnection connection) {
        return clients.contains(connection);
    }

    /**
     * Reads what the client sent: a DUMP starts its request; an ABORT or LEAVE from it only closes it (a client is no
     * rank: it cannot end the job).
     */
    void readable(ServerConnection client) {
        while (!client.isClosed()) {
            Channel.Frame frame;
            try {
                frame = client.nextFrame(0);
                if (frame == null) {
                    return;
                }
                FrameRules.check(FrameRules.Phase.DUMPER, frame);
            } catch (ProtocolException e) {
                ended(client, e);
                return;
            }
            if (frame.type() == FrameType.DUMP) {
                ask(client, frame.bytes());
            } else if (frame.type() != FrameType.HEARTBEAT) {
                ended(client, null);
            }
        }
    }

    /** The client's connection ended ({@code cause}; null where it closed it), or it is closed: its request is dropped. */
    void ended(ServerConnection client, IOException cause) {
        clients.remove(client);
        requests.values().removeIf(request -> request.client == client);
        client.close();
    }

    private void ask(ServerConnection client, byte[] directory) {
        Request request = new Request(++lastNumber, client);
        requests.put(request.number, request);
        for (int rank = 0; rank < job.roster.size(); rank++) {
            Slot slot = job.roster.slot(rank);
            if (slot != null && slot.fate == Slot.Fate.ALIVE && !slot.connection.isClosed()) {
                request.awaited.add(rank);
                job.send(slot, FrameType.DUMP, directory, request.number);
            }
        }
        if (request.awaited.isEmpty()) {
            answer(request);
        } else {
            request.deadline = job.loop.after(job.heartbeatTimeout, () -> answer(request));
        }
    }

    /** Rank {@code rank} answered the request its DUMPED is numbered as. */
    void answered(int rank, Channel.Frame frame) throws ProtocolException {
        Request request = requests.get(frame.operation());
        if (request == null || !request.awaited.remove(rank)) {
            return; // too late, or for a client that went away
        }
        try {
            request.written.put(rank, Dumps.readWritten(frame.bytes()));
        } catch (IOException e) {
            throw new ProtocolException("an answer to a dump that does not read: " + e.getMessage());
        }
        if (request.awaited.isEmpty()) {
            request.deadline.cancel();
            answer(request);
        }
    }

    /** Tells the client every rank's answer, or why there is none; its connection closes after. */
    private void answer(Request request) {
        if (requests.remove(request.number) == null) {
            return;
        }
        List<Dumps.Answer> answers = new ArrayList<>();
        for (int rank = 0; rank < job.roster.size(); rank++) {
            List<String> files = request.written.get(rank);
            answers.add(files != null ? wrote(rank, files) : unanswered(rank));
        }
        clients.remove(request.client);
        request.client.send(FrameType.DUMPED, request.number, Dumps.report(answers));
        job.closeSoon(request.client);
    }

    private static Dumps.Answer wrote(int rank, List<String> files) {
        return new Dumps.Answer(
                rank,
                Dumps.Outcome.WROTE,
                files,
                files.isEmpty()
                        ? "no communicator of its process keeps a flight record with a directory to write to"
                        : "");
    }

    private Dumps.Answer unanswered(int rank) {
        Slot slot = job.roster.slot(rank);
        String gone = slot == null
                ? "it never joined"
                : slot.fate == Slot.Fate.LEFT
                        ? "it closed its rendezvous"
                        : slot.exclusion != null ? slot.exclusion : slot.why != null ? slot.why.text() : null;
        return gone != null
                ? new Dumps.Answer(rank, Dumps.Outcome.GONE, List.of(), gone)
                : new Dumps.Answer(
                        rank,
                        Dumps.Outcome.NO_ANSWER,
                        List.of(),
                        "no answer within " + Settings.formatDuration(job.heartbeatTimeout)
                                + " (a rank reads its server's messages inside a rendezvous operation, or while its"
                                + " job is watched)");
    }
}
