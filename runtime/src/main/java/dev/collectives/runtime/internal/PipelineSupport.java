package dev.collectives.runtime.internal;

import dev.collectives.annotation.DataType;
import dev.collectives.rules.PeerPairing;
import dev.collectives.rules.Rule;
import dev.collectives.runtime.Capabilities;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.Graph;
import dev.collectives.runtime.Pipeline;
import dev.collectives.runtime.Stream;
import dev.collectives.runtime.RegisteredWindow;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;

/**
 * What every generated pipeline class does alike, so that the generated code itself reads as the C sequence of the
 * MCCL user-buffer-registration guide: allocate, lay out views, agree across ranks, check, register or capture,
 * issue, release. Each method takes the communicator and the pipeline's name, for messages that say which rank and
 * which pipeline. Binds (with each op's registration path), failed binds and graph captures are logged at
 * {@code DEBUG} to the {@code System.Logger} named {@value #BIND_LOGGER}.
 */
public final class PipelineSupport {
    private static final String[] DESCRIPTION_HEADER =
            {"step", "op", "buffers", "offsets", "count", "registration path: why"};

    /** The logger of binds, registration paths and captures. */
    public static final String BIND_LOGGER = "dev.collectives.bind";
    private static final System.Logger LOG = System.getLogger(BIND_LOGGER);

    private PipelineSupport() {
    }

    // ---- bind and close ----------------------------------------------------------------------------------------

    /**
     * Runs {@code open} on a freshly made {@code pipeline}; if it fails, closes what it made (the failure stays
     * first, a close failure is attached to it) and rethrows.
     */
    public static <P extends Pipeline> P open(P pipeline, Runnable open) {
        try {
            open.run();
            LOG.log(Level.DEBUG, () -> "bound " + pipeline.describe());
            return pipeline;
        } catch (RuntimeException | Error failure) {
            LOG.log(Level.DEBUG, "bind failed: " + failure.getMessage(), failure);
            try {
                pipeline.close();
            } catch (RuntimeException closeFailure) {
                failure.addSuppressed(closeFailure);
            }
            throw failure;
        }
    }

    /**
     * Closes each resource that was made (null ones were not), in the order given: graphs before their buffers
     * (R5). Every one is tried; the first failure is thrown at the end with the later ones attached.
     */
    public static void closeInOrder(AutoCloseable... resources) {
        RuntimeException failure = null;
        for (AutoCloseable resource : resources) {
            if (resource == null) {
                continue;
            }
            try {
                resource.close();
            } catch (Exception e) {
                RuntimeException unchecked = e instanceof RuntimeException ? (RuntimeException) e
                        : new IllegalStateException(e);
                if (failure == null) {
                    failure = unchecked;
                } else {
                    failure.addSuppressed(unchecked);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** A step of a LOCAL or NONE pipeline called after {@code close()}. */
    public static void requireOpen(Communicator comm, String pipeline, boolean closed, String step) {
        if (closed) {
            throw CollectivesException.usage(comm.rank(), "pipeline " + pipeline + " is closed: " + step
                    + "() called after close()");
        }
    }

    /** A step of a GRAPH pipeline called after {@code close()}: replaying it would touch freed buffers (R5). */
    public static void requireOpenForReplay(Communicator comm, String pipeline, boolean closed, String step) {
        if (closed) {
            throw CollectivesException.violation(Rule.R5_GRAPH_LIFETIME, comm.rank(), "pipeline " + pipeline
                    + " is closed: " + step + "() after close() would replay a destroyed graph");
        }
    }

    // ---- run-time checks at bind -------------------------------------------------------------------------------

    /** An external buffer must have its declared element type and at least its declared count (R13). */
    public static void requireExternal(Communicator comm, String pipeline, DeviceBuffer buffer, String name,
                                       DataType type, long count) {
        if (buffer.type() != type || buffer.count() < count) {
            throw CollectivesException.violation(Rule.R13_TYPES, comm.rank(), pipeline + ": external buffer `"
                    + name + "` must hold at least " + count + " x " + type + "; bind was given " + buffer);
        }
    }

    // ---- sizes at bind and at call -----------------------------------------------------------------------------

    /** A value the binder must have been given: a dim or an external, named by its setter. */
    public static <T> T given(Communicator comm, String pipeline, T value, String setter) {
        if (value == null) {
            throw CollectivesException.usage(comm.rank(), pipeline + ": bind() needs " + setter + "(...), which the "
                    + "binder was not given; set every dim and external first");
        }
        return value;
    }

    /** A dim is a size: at least 1, as every expression using it assumes (R13). */
    public static void requireDim(Communicator comm, String pipeline, String dim, long value) {
        if (value < 1) {
            throw CollectivesException.violation(Rule.R13_TYPES, comm.rank(), pipeline + ": dim `" + dim + "` is "
                    + value + "; dims are sizes, at least 1");
        }
    }

    /**
     * {@code value <= bound}, the condition a rule puts on sizes and offsets known only at bind or at the call;
     * {@code condition} names where and what ("bucket(): @AllReduce #0: recv stays inside `grads`: offset + n &lt;=
     * elements"). Allocates nothing unless it fails.
     */
    public static void requireAtMost(Communicator comm, String pipeline, Rule rule, String condition, long value,
                                     long bound) {
        if (value > bound) {
            throw CollectivesException.violation(rule, comm.rank(), pipeline + ": " + condition + " does not hold: "
                    + value + " > " + bound);
        }
    }

    /** {@code value} is a multiple of {@code alignment}: a view's head aligned to its element size (R7). */
    public static void requireAligned(Communicator comm, String pipeline, Rule rule, String condition, long value,
                                      long alignment) {
        if (value % alignment != 0) {
            throw CollectivesException.violation(rule, comm.rank(), pipeline + ": " + condition + " does not hold: "
                    + value + " is not a multiple of " + alignment);
        }
    }

    /**
     * An op's send bytes [sendStart, sendEnd) and recv bytes [recvStart, recvEnd) of one allocation either
     * coincide at the start (in place, where the op allows it) or do not overlap (R7).
     */
    public static void requireInPlaceOrApart(Communicator comm, String pipeline, String op, boolean inPlaceAllowed,
                                             long sendStart, long sendEnd, long recvStart, long recvEnd) {
        boolean apart = sendEnd <= recvStart || recvEnd <= sendStart;
        if (!apart && !(inPlaceAllowed && sendStart == recvStart)) {
            throw CollectivesException.violation(Rule.R7_ARENA, comm.rank(), pipeline + ": " + op + ": send bytes ["
                    + sendStart + ", " + sendEnd + ") and recv bytes [" + recvStart + ", " + recvEnd + ") overlap"
                    + (inPlaceAllowed ? " without coinciding" : ", and this op cannot run in place"));
        }
    }

    /**
     * Bytes [firstStart, firstEnd) and [secondStart, secondEnd) of one allocation, used by two ops of a group, at least
     * one of which receives into them, do not overlap: the ops run concurrently (R7). {@code ops} names them.
     */
    public static void requireApartInGroup(Communicator comm, String pipeline, String ops, long firstStart,
                                           long firstEnd, long secondStart, long secondEnd) {
        if (firstStart < secondEnd && secondStart < firstEnd) {
            throw CollectivesException.violation(Rule.R7_ARENA, comm.rank(), pipeline + ": " + ops + ": bytes ["
                    + firstStart + ", " + firstEnd + ") and [" + secondStart + ", " + secondEnd + ") overlap at "
                    + comm.size() + " ranks; give each op of a group its own range");
        }
    }

    /** A size or offset that overflows a long, or divides by zero, while {@code where} is checked (R13). */
    public static CollectivesException overflow(Communicator comm, String pipeline, String where,
                                                ArithmeticException cause) {
        return CollectivesException.violation(Rule.R13_TYPES, comm.rank(), pipeline + ": " + where
                + ": an expression overflows a long or divides by zero (" + cause.getMessage() + ")");
    }

    /** {@code a / b}, throwing where Java's division would wrap ({@code Long.MIN_VALUE / -1}). */
    public static long divideExact(long a, long b) {
        if (a == Long.MIN_VALUE && b == -1) {
            throw new ArithmeticException("long overflow");
        }
        return a / b;
    }

    /** A pipeline that declares its world size binds only on a communicator of that size (R14). */
    public static void requireRanks(Communicator comm, String pipeline, int ranks) {
        if (comm.size() != ranks) {
            throw CollectivesException.violation(Rule.R14_SHAPE, comm.rank(), pipeline + " declares ranks = "
                    + ranks + ", but the communicator has " + comm.size());
        }
    }

    /**
     * A root or an absolute peer must be a rank of the communicator, which only bind knows when ranks = 0: the
     * processor's [DSL step] check, made with the communicator's size.
     */
    public static void requireRank(Communicator comm, String pipeline, int rank, String what) {
        if (rank < 0 || rank >= comm.size()) {
            throw CollectivesException.declaration(PeerPairing.TAG, PeerPairing.ANCHOR, comm.rank(), pipeline
                    + ": the " + what + " is rank " + rank + ", but the communicator has " + comm.size() + " ranks");
        }
    }

    /**
     * The point-to-point ops of {@code step} pair up across the communicator's ranks ({@link PeerPairing}), checked
     * at bind where the pipeline does not declare {@code ranks}; every rank reaches the same verdict, so every rank
     * throws the same message.
     */
    public static void requirePaired(Communicator comm, String pipeline, String step, PeerPairing.Op... ops) {
        List<PeerPairing.Unpaired> unpaired = PeerPairing.unpaired(List.of(ops), comm.size());
        if (!unpaired.isEmpty()) {
            PeerPairing.Unpaired first = unpaired.get(0);
            throw CollectivesException.declaration(PeerPairing.TAG, PeerPairing.ANCHOR, comm.rank(), pipeline + ": "
                    + ops[first.op()].label() + " in " + step + "(): " + first.problem()
                    + (unpaired.size() > 1 ? " (and " + (unpaired.size() - 1) + " more unpaired in this step)" : ""));
        }
    }

    /** IB SHARP registration serves communicators with 1 rank per node only (R8). */
    public static void requireOneRankPerNode(Communicator comm, String pipeline) {
        if (comm.topology().ranksPerNode() != 1) {
            throw CollectivesException.violation(Rule.R8_IB_SHARP, comm.rank(), pipeline + " asks for IB SHARP "
                    + "registration, which needs 1 rank per node; this communicator has " + comm.topology());
        }
    }

    /** MTLink SHARP registration of an external buffer needs mcclMemAlloc or qualified VMM memory (R3). */
    public static void requireMtlinkSharpMemory(Communicator comm, String pipeline, DeviceBuffer buffer,
                                                String name) {
        if (!buffer.memory().isVirtualMemory()) {
            throw CollectivesException.violation(Rule.R3_MTLS_ALLOC, comm.rank(), pipeline + ": MTLink SHARP "
                    + "registration needs mcclMemAlloc or qualified VMM memory; external `" + name + "` is " + buffer);
        }
    }

    /** A registered external of wrapped VMM memory must look like a qualified allocator's memory (R11). */
    public static void requireQualifiedForeignMemory(Communicator comm, String pipeline, DeviceBuffer buffer,
                                                     String name) {
        AllocatorRule.checkForeign(comm, buffer, pipeline + ": external buffer `" + name + "`");
    }

    /** A line of {@code describe()}: what external {@code name} was bound to, and where in its allocation. */
    public static String externalMemory(String name, DeviceBuffer buffer) {
        return "external " + name + ": " + buffer.memory().origin() + ", " + buffer.headOffset()
                + " bytes from its allocation's head\n";
    }

    /**
     * {@code buffer + offset}, {@code count} elements long, for {@code op} ("the recv of @AllGather #0 in
     * gather()"); an op reaching past its buffer breaks R7.
     */
    public static DeviceBuffer slice(Communicator comm, String pipeline, DeviceBuffer buffer, String name, String op,
                                     long offset, long count) {
        if (offset + count > buffer.count()) {
            throw CollectivesException.violation(Rule.R7_ARENA, comm.rank(), pipeline + ": " + op + " reaches past `"
                    + name + "`: elements [" + offset + ", " + (offset + count) + ") of " + buffer.count() + " ("
                    + comm.size() + " ranks)");
        }
        return buffer.slice(offset, count);
    }

    /**
     * R7 at bind, for what only bind knows: whether two externals are parts of one allocation. Their send and recv
     * ranges (offsets and counts in elements of their buffers) are then held to {@link #requireInPlaceOrApart}.
     */
    public static void requireApart(Communicator comm, String pipeline, String op, boolean inPlace,
                                    DeviceBuffer send, long sendOffset, long sendCount,
                                    DeviceBuffer recv, long recvOffset, long recvCount) {
        if (send.memory() != recv.memory()) {
            return;
        }
        long sendStart = send.headOffset() + sendOffset * send.type().size();
        long recvStart = recv.headOffset() + recvOffset * recv.type().size();
        requireInPlaceOrApart(comm, pipeline, op + " (on one allocation)", inPlace, sendStart,
                sendStart + sendCount * send.type().size(), recvStart, recvStart + recvCount * recv.type().size());
    }

    // ---- graph capture -----------------------------------------------------------------------------------------

    /**
     * Captures what {@code ops} issue on {@code stream} into a graph (R4): begin capture (thread-local mode), the
     * ops, end capture. If the ops fail, the capture is ended and its partial graph destroyed before rethrowing.
     */
    public static Graph capture(Stream stream, Runnable ops) {
        stream.beginCapture();
        try {
            ops.run();
        } catch (RuntimeException | Error failure) {
            if (stream.captureStatus() != Stream.CaptureStatus.NONE) {
                try {
                    stream.endCapture().close();
                } catch (RuntimeException endFailure) {
                    failure.addSuppressed(endFailure);
                }
            }
            throw failure;
        }
        Graph graph = stream.endCapture();
        LOG.log(Level.DEBUG, () -> "captured " + graph + " on " + stream);
        return graph;
    }

    // ---- describe() --------------------------------------------------------------------------------------------

    /**
     * The registration path an op of registered buffers gets on {@code comm}, and why.
     *
     * @param mtlinkSharp the pipeline asks for MTLink SHARP and it serves this op
     * @param ibSharp     the pipeline asks for IB SHARP and it serves this op
     * @param how         when the buffers are registered
     */
    public static String registrationPath(Communicator comm, boolean mtlinkSharp, boolean ibSharp, String how) {
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
        return "general: " + how + (mtlinkSharp ? " (MTLink SHARP asked for, not available here)"
                : ibSharp ? " (IB SHARP asked for, not available here)" : " (no SHARP acceleration serves this op)");
    }

    /**
     * Whether window {@code name} has its helpers (R10), as a line of {@code describe()}. Once the pipeline is
     * closed its window is deregistered and is not asked (the library would be handed a freed window).
     */
    public static String windowHelpers(String name, boolean symmetric, RegisteredWindow window, boolean closed) {
        return "window " + name + " (" + (symmetric ? "symmetric" : "asymmetric") + "): helpers (R10) "
                + (closed ? "not known: the window was deregistered when the pipeline closed"
                : window == null ? "not registered"
                : window.userPointer().isPresent() ? "available"
                : "missing from this library: no user pointer, no LSA device pointers") + "\n";
    }

    /**
     * {@link Pipeline#describe()}: a title line with the backend and the rank, one row per op (step, op, buffers,
     * offsets, count, registration path) as aligned columns, then the notes.
     */
    public static String describe(Communicator comm, String title, String[][] ops, String... notes) {
        List<String[]> rows = new ArrayList<>(ops.length + 1);
        rows.add(DESCRIPTION_HEADER);
        rows.addAll(List.of(ops));
        StringBuilder text = new StringBuilder(title + " on " + comm.backendName() + ", rank " + comm.rank()
                + " of " + comm.size() + "\n");
        text.append(table(rows));
        for (String note : notes) {
            text.append(note);
        }
        return text.toString();
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
