package dev.collectives.runtime.internal;

import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.Registration;
import dev.collectives.runtime.Capabilities;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Pipeline;
import dev.collectives.runtime.RegisteredWindow;
import java.util.ArrayList;
import java.util.List;

/** What a generated {@link Pipeline#describe()} shows: a table of its ops, then notes on its buffers. */
public final class DescribeTable {
    private static final String[] HEADER = {"step", "op", "buffers", "offsets", "count", "registration path: why"};

    /** How {@code describe()} starts the line that says why the checks across ranks are off. */
    public static final String CROSS_RANK_CHECKS_OFF =
            "checks across ranks (the fingerprint: R14, R1, R2; step arguments) are off: ";

    private DescribeTable() {}

    /**
     * A title line with the backend and the rank, one row per op (step, op, buffers, offsets, count, registration
     * path) as aligned columns, then the notes, then the ops {@code comm} issues as a group of sends and receives
     * ({@link Communicator#sendRecvForm}), and last, where they are off, why the checks across ranks are.
     */
    public static String describe(Communicator comm, String title, String[][] ops, String... notes) {
        List<String[]> rows = new ArrayList<>(ops.length + 1);
        rows.add(HEADER);
        rows.addAll(List.of(ops));
        StringBuilder text = new StringBuilder(
                title + " on " + comm.backendName() + ", rank " + comm.rank() + " of " + comm.size() + "\n");
        text.append(table(rows));
        for (String note : notes) {
            text.append(note);
        }
        for (OpKind kind : OpKind.values()) {
            if (usesOp(ops, kind)) {
                comm.sendRecvForm(kind)
                        .ifPresent(why -> text.append(kind.method())
                                .append(": a group of ")
                                .append(comm.libraryFunction(OpKind.SEND.cName()))
                                .append('/')
                                .append(comm.libraryFunction(OpKind.RECV.cName()))
                                .append(" instead of ")
                                .append(comm.libraryFunction(kind.cName()))
                                .append(": ")
                                .append(why)
                                .append('\n'));
            }
        }
        comm.crossRankChecksOff()
                .ifPresent(why -> text.append(CROSS_RANK_CHECKS_OFF).append(why).append('\n'));
        return text.toString();
    }

    /** Whether a row's op column ("allToAll", "send (grouped)") names an op of {@code kind}. */
    private static boolean usesOp(String[][] ops, OpKind kind) {
        for (String[] row : ops) {
            String op = row[1];
            int space = op.indexOf(' ');
            if ((space < 0 ? op : op.substring(0, space)).equals(kind.method())) {
                return true;
            }
        }
        return false;
    }

    /**
     * The registration path an op of registered buffers gets on {@code comm}, and why. Local registration names
     * the register function of {@code comm}'s library.
     *
     * @param mtlinkSharp  the pipeline asks for MTLink SHARP and it serves this op
     * @param ibSharp      the pipeline asks for IB SHARP and it serves this op
     * @param registration the pipeline's registration, GRAPH or LOCAL
     */
    public static String registrationPath(
            Communicator comm, boolean mtlinkSharp, boolean ibSharp, Registration registration) {
        String how = registration == Registration.GRAPH
                ? "registered when the step's graph was captured"
                : "registered once at bind (" + comm.libraryFunction("CommRegister") + ")";
        Capabilities capabilities = comm.capabilities();
        if (!capabilities.registration()) {
            return "none: this library (" + capabilities.libraryVersion() + ") cannot register user buffers";
        }
        if (mtlinkSharp && capabilities.mtlinkSharp()) {
            return "MTLink SHARP: " + how;
        }
        if (ibSharp && capabilities.ibSharp()) {
            return "IB SHARP: " + how + ", 1 rank per node";
        }
        return "general: " + how
                + (mtlinkSharp
                        ? " (MTLink SHARP asked for, not available here)"
                        : ibSharp
                                ? " (IB SHARP asked for, not available here)"
                                : " (no SHARP acceleration serves this op)");
    }

    /**
     * Whether window {@code name} has its helpers (R10), as a note. Once the pipeline is closed its window is
     * deregistered and is not asked (the library would be handed a freed window).
     */
    public static String windowHelpers(String name, boolean symmetric, RegisteredWindow window, boolean closed) {
        return "window " + name + " (" + (symmetric ? "symmetric" : "asymmetric") + "): helpers (R10) "
                + (closed
                        ? "not known: the window was deregistered when the pipeline closed"
                        : window == null
                                ? "not registered"
                                : window.userPointer().isPresent()
                                        ? "available"
                                        : "missing from this library: no user pointer, no LSA device pointers")
                + "\n";
    }

    /** A note: what external {@code name} was bound to, and where in its allocation. */
    public static String externalMemory(String name, DeviceBuffer buffer) {
        return "external " + name + ": " + buffer.memory().origin() + ", " + buffer.headOffset()
                + " bytes from its allocation's head\n";
    }

    private static String table(List<String[]> rows) {
        int[] widths = new int[rows.get(0).length];
        for (String[] row : rows) {
            for (int c = 0; c < row.length; c++) {
                widths[c] = Math.max(widths[c], row[c].length());
            }
        }
        StringBuilder text = new StringBuilder();
        for (String[] row : rows) {
            for (int c = 0; c < row.length; c++) {
                text.append(c == 0 ? "" : " | ").append(row[c]);
                text.append(" ".repeat(c == row.length - 1 ? 0 : widths[c] - row[c].length()));
            }
            text.append('\n');
        }
        return text.toString();
    }
}
