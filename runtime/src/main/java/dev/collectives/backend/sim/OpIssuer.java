package dev.collectives.backend.sim;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.OpKind;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.spi.FlightRecorder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where a rank's checked ops go: into the calling thread's group between {@code groupStart} and {@code groupEnd},
 * then, a step at a time (an op or a group), into the stream's capture or onto the stream. On the stream's worker it
 * launches them (pins their memory, numbers them for matching across ranks) and runs them with the other ranks.
 */
final class OpIssuer {
    private final FlightRecorder recorder;
    private final SimCommunicator comm;
    private final int rank;
    private final CommGroup group;
    private final SimConfig config;
    private final RegistrationCache registrations;
    private final ThreadLocal<GroupState> groupState = ThreadLocal.withInitial(GroupState::new);
    private long collectiveSeq;
    private final Map<Integer, long[]> peerSeqs = new HashMap<>();

    OpIssuer(
            SimCommunicator comm,
            CommGroup group,
            SimConfig config,
            RegistrationCache registrations,
            FlightRecorder recorder) {
        this.comm = comm;
        this.recorder = recorder;
        this.rank = comm.rank();
        this.group = group;
        this.config = config;
        this.registrations = registrations;
    }

    void groupStart() {
        groupState.get().depth++;
    }

    void groupEnd() {
        GroupState state = groupState.get();
        if (state.depth == 0) {
            throw CollectivesException.usage(rank, "groupEnd() without groupStart()");
        }
        if (--state.depth == 0 && !state.ops.isEmpty()) {
            List<OpCall> ops = List.copyOf(state.ops);
            SimStream stream = state.stream;
            state.ops.clear();
            state.stream = null;
            submit(stream, ops);
        }
    }

    void issue(SimStream stream, OpCall call) {
        GroupState state = groupState.get();
        if (state.depth > 0) {
            if (state.stream != null && state.stream != stream) {
                throw CollectivesException.usage(
                        rank,
                        "the ops of one group must go to one stream: " + call.describe() + " goes to " + stream
                                + ", earlier ones to " + state.stream);
            }
            state.stream = stream;
            state.ops.add(call);
            return;
        }
        submit(stream, List.of(call));
    }

    /** One step (an op or a group) into the stream's capture, or onto the stream. */
    private void submit(SimStream stream, List<OpCall> step) {
        boolean capturing = stream.isCapturedBy(Thread.currentThread());
        List<OpCall> flagged = new ArrayList<>(step.size());
        long[] entries = new long[step.size()];
        for (int i = 0; i < step.size(); i++) {
            OpCall call = step.get(i);
            OpCall flaggedCall =
                    call.withRegistration(registration(call.send(), capturing), registration(call.recv(), capturing));
            flagged.add(flaggedCall);
            entries[i] = recorder.enqueued(
                    flaggedCall.kind(),
                    flaggedCall.sendHead(),
                    flaggedCall.sendOffset(),
                    flaggedCall.recvHead(),
                    flaggedCall.recvOffset(),
                    flaggedCall.count(),
                    flaggedCall.type(),
                    flaggedCall.peer(),
                    stream,
                    capturing,
                    flaggedCall.registered());
        }
        if (capturing) {
            stream.capture(comm, flagged);
        } else {
            stream.enqueue(() -> launch(List.of(flagged), entries, 0));
        }
    }

    /**
     * Whether the library registers {@code buffer} for an op: locally registered, or captured into a graph when the
     * library registers at capture, which it does for VMM memory, and for legacy memory ({@code cudaMalloc}) too
     * when the legacy-registration variable is "1" (R9), as NCCL with {@code NCCL_LEGACY_CUDA_REGISTER=1} does.
     */
    private Boolean registration(DeviceBuffer buffer, boolean captured) {
        if (buffer == null) {
            return null;
        }
        boolean graphRegistered = captured
                && config.capabilities().registration()
                && (buffer.memory().isVirtualMemory()
                        || buffer.allocator() == Allocator.LEGACY
                                && config.environment(SimConfig.LEGACY_REGISTER_VARIABLE)
                                        .equals(Optional.of("1")));
        return graphRegistered || registrations.contains(buffer);
    }

    void launchGraph(List<List<OpCall>> steps, SimStream stream) {
        if (stream.isCapturedBy(Thread.currentThread())) {
            throw CollectivesException.usage(
                    rank, "launching a graph into " + stream + " while capturing it is not" + " supported");
        }
        // numbered once the stream accepted the launch, on this thread, which is in the step that launches it
        stream.enqueue(() -> launch(steps, null, recorder.graphLaunched(stream)));
    }

    /**
     * Pins the ops' memory until they ran, then numbers them for matching across ranks, in issue order. The ops are
     * those of one eager step, whose flight-recorder entries are {@code entries}, or else the steps of the graph
     * launched as entry {@code graphEntry}. Called with the stream's monitor held (see {@link SimStream#enqueue}).
     */
    private synchronized Work launch(List<List<OpCall>> steps, long[] entries, long graphEntry) {
        boolean fromGraph = entries == null;
        group.requireNotAborted(
                rank, fromGraph ? "graph launch" : steps.get(0).get(0).describe());
        List<SimMemory.Pin> pinned = new ArrayList<>();
        try {
            for (List<OpCall> step : steps) {
                for (OpCall call : step) {
                    pin(call.send(), call, false, pinned);
                    pin(call.recv(), call, true, pinned);
                }
            }
        } catch (RuntimeException e) {
            pinned.forEach(SimMemory.Pin::release);
            throw e;
        }
        List<List<Launched>> launched = new ArrayList<>(steps.size());
        int graphOp = 0;
        for (List<OpCall> step : steps) {
            List<Launched> ops = new ArrayList<>(step.size());
            for (int i = 0; i < step.size(); i++) {
                OpCall call = step.get(i);
                ops.add(
                        fromGraph
                                ? new Launched(call, nextSeq(call), graphEntry, graphOp++)
                                : new Launched(call, nextSeq(call), entries[i], -1));
            }
            launched.add(ops);
        }
        return new Work(this, launched, pinned);
    }

    private static void pin(DeviceBuffer buffer, OpCall call, boolean writes, List<SimMemory.Pin> pinned) {
        if (buffer != null) {
            SimMemory memory = (SimMemory) buffer.memory();
            // an op of no elements touches no bytes
            long bytes = call.count() == 0 ? 0 : buffer.sizeBytes();
            pinned.add(memory.pin(call.describe(), buffer.headOffset(), bytes, writes));
        }
    }

    private long nextSeq(OpCall call) {
        if (!call.kind().isPointToPoint()) {
            return collectiveSeq++;
        }
        long[] counters = peerSeqs.computeIfAbsent(call.peer(), p -> new long[2]);
        return counters[call.kind() == OpKind.SEND ? 0 : 1]++;
    }

    /**
     * Runs one stream item on the stream's worker: each step posts its sends and recvs, runs its collectives in
     * order, then waits for its sends and recvs. Every op runs even after one failed; the first failure is thrown. A
     * step waits for the other ranks one timeout in all, however many ops it groups: its ops share one deadline.
     */
    void execute(List<List<Launched>> steps) {
        RuntimeException first = null;
        for (List<Launched> step : steps) {
            long deadline = System.nanoTime() + group.timeoutNanos();
            List<Runnable> posted = new ArrayList<>();
            for (Launched op : step) {
                if (op.call().kind().isPointToPoint()) {
                    try {
                        posted.add(group.post(rank, op, deadline));
                    } catch (RuntimeException e) {
                        first = first == null ? e : first;
                    }
                }
            }
            for (Launched op : step) {
                if (!op.call().kind().isPointToPoint()) {
                    try {
                        group.requireNotAborted(rank, op.call().describe());
                        group.collective(rank, op, deadline);
                    } catch (RuntimeException e) {
                        first = first == null ? e : first;
                    }
                }
            }
            for (Runnable completion : posted) {
                try {
                    completion.run();
                } catch (RuntimeException e) {
                    first = first == null ? e : first;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** The ops a thread collects between groupStart and groupEnd. */
    private static final class GroupState {
        int depth;
        final List<OpCall> ops = new ArrayList<>();
        SimStream stream;
    }
}
