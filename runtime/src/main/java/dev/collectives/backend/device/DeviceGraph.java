package dev.collectives.backend.device;

import dev.collectives.runtime.Graph;
import dev.collectives.runtime.GraphExec;
import java.util.List;
import java.util.Set;

/**
 * A captured graph. It and each of its instantiations hold the memory the captured ops use, which therefore
 * cannot be freed before they are closed (R5).
 */
final class DeviceGraph implements Graph {
    private final DeviceRank comm;
    /** The communicator whose calls were captured, through which the graph is destroyed. */
    private final NativeComm owner;

    private final long handle;
    private final List<NativeMemory> memory;
    private boolean closed;

    DeviceGraph(DeviceRank comm, NativeComm owner, long handle, Set<NativeMemory> memory) {
        this.comm = comm;
        this.owner = owner;
        this.handle = handle;
        this.memory = List.copyOf(memory);
        hold(this.memory, 1);
    }

    /** The native handle of an instantiation made here, for {@link NativeLoop}. */
    static long execHandle(GraphExec exec) {
        if (!(exec instanceof Exec)) {
            throw new IllegalArgumentException(exec + " is not a graph of a device backend");
        }
        return ((Exec) exec).exec;
    }

    static void hold(List<NativeMemory> memory, int delta) {
        memory.forEach(m -> m.graphs.addAndGet(delta));
    }

    @Override
    public synchronized GraphExec instantiate() {
        if (closed) {
            throw dev.collectives.runtime.CollectivesException.usage(comm.rank(), "instantiate of a closed graph");
        }
        NativeLibrary n = comm.library();
        long[] out = new long[1];
        n.checkRuntime(n.api.graphInstantiate(n.lib, handle, out), comm.rank(), "GraphInstantiateWithFlags");
        return new Exec(out[0]);
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            NativeLibrary n = comm.library();
            owner.frees()
                    .releaseNow(() -> n.checkRuntime(n.api.graphDestroy(n.lib, handle), comm.rank(), "GraphDestroy"));
            hold(memory, -1);
        }
    }

    /** An instantiated graph; launching it is one native call. */
    private final class Exec implements GraphExec {
        private final long exec;
        private volatile boolean execClosed;

        Exec(long exec) {
            this.exec = exec;
            hold(memory, 1);
        }

        @Override
        public void launch(dev.collectives.runtime.Stream stream) {
            if (execClosed) {
                throw dev.collectives.runtime.CollectivesException.usage(
                        comm.rank(), "launch of a closed graph (R5: its buffers may be freed)");
            }
            NativeLibrary n = comm.library();
            IssuedStream onto = IssuedStream.of(stream, comm.rank());
            onto.issuedBy(owner);
            int rc = n.api.graphLaunch(n.lib, exec, onto.handle());
            if (rc != 0) {
                n.checkRuntime(rc, comm.rank(), "GraphLaunch");
            }
            comm.recorder().graphLaunched(onto);
        }

        @Override
        public synchronized void close() {
            if (!execClosed) {
                execClosed = true;
                NativeLibrary n = comm.library();
                owner.frees()
                        .releaseNow(() ->
                                n.checkRuntime(n.api.graphExecDestroy(n.lib, exec), comm.rank(), "GraphExecDestroy"));
                hold(memory, -1);
            }
        }
    }
}
