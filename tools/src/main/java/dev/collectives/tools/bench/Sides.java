package dev.collectives.tools.bench;

import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.Graph;
import dev.collectives.runtime.GraphExec;
import dev.collectives.runtime.Stream;

/** The Java and the native side of one size and placement; in GRAPH mode both launch the same captured graph. */
record Sides(Batch java, Batch nat, Graph graph, GraphExec exec) implements AutoCloseable {
    static Sides of(Mode mode, Communicator comm, Stream stream, Placement at) {
        Op op = at.op;
        Step call = s -> op.call(comm, at.send, at.recv, at.count, s);
        if (mode != Mode.GRAPH) {
            return new Sides(call.batch(), (s, n) -> op.callNative(comm, at.send, at.recv, at.count, s, n), null, null);
        }
        call.issue(stream); // one eager op first: the library sets up this size's connections outside the capture
        stream.synchronize();
        stream.beginCapture();
        call.issue(stream);
        Graph graph = stream.endCapture();
        GraphExec exec = graph.instantiate();
        Step launch = exec::launch;
        return new Sides(launch.batch(), (s, n) -> NativeBaseline.of(comm).launchLoop(exec, s, n), graph, exec);
    }

    @Override
    public void close() {
        if (exec != null) {
            exec.close();
            graph.close();
        }
    }
}
