package dev.collectives.annotation;

import java.lang.annotation.Annotation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The catalogue of ops: one constant per op annotation, with what the rest of the project derives from it. It is the
 * single source of the ops: the annotation processor reads and checks the annotations it names and writes the calls
 * it names, the sim backend issues and moves data by it, the differential corpus draws every op of it and the
 * benchmarks choose theirs from it. Adding an op is one constant here, plus its kernels and tests.
 *
 * <p>Per op: its annotation and the container of its repeats, the {@code Communicator} method and the C function
 * (without the {@code nccl}/{@code mccl} prefix), the attributes that name its buffers, its offsets and its count
 * (each numeric one with an {@code ...Expr} twin, {@link #exprTwin}), how many elements it touches on each side
 * ({@link Extent}) and whether a rank other than the root passes it, whether it reduces, has a root or is point to
 * point, and whether SHARP serves it.
 *
 * <p>Constants are ordered as the differential corpus draws them: ops whose sides both hold {@code count} elements,
 * then those with a side of {@code count × ranks}, then point to point; the corpus of a seed depends on that order.
 */
public enum OpKind {
    /** {@link AllReduce}: {@code ncclAllReduce}. */
    ALL_REDUCE(
            AllReduce.class,
            AllReduce.List.class,
            "allReduce",
            "AllReduce",
            "count",
            side("send", "sendOffset", Extent.COUNT),
            side("recv", "recvOffset", Extent.COUNT),
            Role.REDUCES,
            true),
    /** {@link Broadcast}: {@code ncclBroadcast}. */
    BROADCAST(
            Broadcast.class,
            Broadcast.List.class,
            "broadcast",
            "Broadcast",
            "count",
            rootOnly(side("send", "sendOffset", Extent.COUNT)),
            side("recv", "recvOffset", Extent.COUNT),
            Role.ROOTED,
            false),
    /** {@link Reduce}: {@code ncclReduce}. */
    REDUCE(
            Reduce.class,
            Reduce.List.class,
            "reduce",
            "Reduce",
            "count",
            side("send", "sendOffset", Extent.COUNT),
            rootOnly(side("recv", "recvOffset", Extent.COUNT)),
            Role.REDUCES_TO_ROOT,
            false),
    /** {@link AllGather}: {@code ncclAllGather}. */
    ALL_GATHER(
            AllGather.class,
            AllGather.List.class,
            "allGather",
            "AllGather",
            "sendCount",
            side("send", "sendOffset", Extent.COUNT),
            side("recv", "recvOffset", Extent.COUNT_TIMES_RANKS),
            Role.PLAIN,
            true),
    /** {@link ReduceScatter}: {@code ncclReduceScatter}. */
    REDUCE_SCATTER(
            ReduceScatter.class,
            ReduceScatter.List.class,
            "reduceScatter",
            "ReduceScatter",
            "recvCount",
            side("send", "sendOffset", Extent.COUNT_TIMES_RANKS),
            side("recv", "recvOffset", Extent.COUNT),
            Role.REDUCES,
            true),
    /** {@link AllToAll}: {@code ncclAlltoAll}. */
    ALL_TO_ALL(
            AllToAll.class,
            AllToAll.List.class,
            "allToAll",
            "AlltoAll",
            "count",
            side("send", "sendOffset", Extent.COUNT_TIMES_RANKS),
            side("recv", "recvOffset", Extent.COUNT_TIMES_RANKS),
            Role.PLAIN,
            false),
    /** {@link Gather}: {@code ncclGather}, the root's recv rank-major. */
    GATHER(
            Gather.class,
            Gather.List.class,
            "gather",
            "Gather",
            "sendCount",
            side("send", "sendOffset", Extent.COUNT),
            rootOnly(side("recv", "recvOffset", Extent.COUNT_TIMES_RANKS)),
            Role.ROOTED,
            false),
    /** {@link Scatter}: {@code ncclScatter}, the root's send rank-major. */
    SCATTER(
            Scatter.class,
            Scatter.List.class,
            "scatter",
            "Scatter",
            "recvCount",
            rootOnly(side("send", "sendOffset", Extent.COUNT_TIMES_RANKS)),
            side("recv", "recvOffset", Extent.COUNT),
            Role.ROOTED,
            false),
    /** {@link Send}: {@code ncclSend}. */
    SEND(
            Send.class,
            Send.List.class,
            "send",
            "Send",
            "count",
            side("buffer", "offset", Extent.COUNT),
            noSide(),
            Role.POINT_TO_POINT,
            false),
    /** {@link Recv}: {@code ncclRecv}. */
    RECV(
            Recv.class,
            Recv.List.class,
            "recv",
            "Recv",
            "count",
            noSide(),
            side("buffer", "offset", Extent.COUNT),
            Role.POINT_TO_POINT,
            false);

    /** How many elements an op touches in one of its buffers, per rank's call. */
    public enum Extent {
        /** The op has no buffer on this side (a send's recv, a receive's send). */
        NONE,
        /** {@code count} elements. */
        COUNT,
        /**
         * {@code count × ranks} elements: allgather's and gather's recv, reducescatter's and scatter's send and both of
         * alltoall's.
         */
        COUNT_TIMES_RANKS;

        /** The elements this side of a call of {@code count} touches on a communicator of {@code ranks}. */
        public long elements(long count, int ranks) {
            switch (this) {
                case NONE:
                    return 0;
                case COUNT:
                    return count;
                default:
                    return count * ranks;
            }
        }
    }

    /**
     * The attributes of one side: the buffer's accessor, the offset into it, how far the op reaches, and whether only
     * the root uses it (a broadcast's send, a reduce's or gather's recv, a scatter's send).
     */
    private record Side(String bufferAttribute, String offsetAttribute, Extent extent, boolean rootOnly) {}

    /** What an op takes besides buffers, count and type. */
    private enum Role {
        PLAIN,
        REDUCES,
        ROOTED,
        REDUCES_TO_ROOT,
        POINT_TO_POINT
    }

    /** By qualified name of the annotation and of its container: asked for every annotation of every method. */
    private static final Map<String, OpKind> BY_ANNOTATION = new HashMap<>();

    private static final Map<String, OpKind> BY_CONTAINER = new HashMap<>();

    static {
        for (OpKind kind : values()) {
            BY_ANNOTATION.put(kind.qualifiedName(), kind);
            BY_CONTAINER.put(kind.containerName(), kind);
        }
    }

    private final Class<? extends Annotation> annotationType;
    private final Class<? extends Annotation> containerType;
    private final String method;
    private final String cName;
    private final String countAttribute;
    private final Side send;
    private final Side recv;
    private final Role role;
    private final boolean sharpServed;

    OpKind(
            Class<? extends Annotation> annotationType,
            Class<? extends Annotation> containerType,
            String method,
            String cName,
            String countAttribute,
            Side send,
            Side recv,
            Role role,
            boolean sharpServed) {
        this.annotationType = annotationType;
        this.containerType = containerType;
        this.method = method;
        this.cName = cName;
        this.countAttribute = countAttribute;
        this.send = send;
        this.recv = recv;
        this.role = role;
        this.sharpServed = sharpServed;
    }

    private static Side side(String bufferAttribute, String offsetAttribute, Extent extent) {
        return new Side(bufferAttribute, offsetAttribute, extent, false);
    }

    private static Side rootOnly(Side side) {
        return new Side(side.bufferAttribute(), side.offsetAttribute(), side.extent(), true);
    }

    /** The side a send has no recv on, and a receive no send. */
    private static Side noSide() {
        return new Side(null, null, Extent.NONE, false);
    }

    /** The op's annotation, such as {@code AllReduce.class}. */
    public Class<? extends Annotation> annotationType() {
        return annotationType;
    }

    /** The container javac gathers its repeats into, such as {@code AllReduce.List.class}. */
    public Class<? extends Annotation> containerType() {
        return containerType;
    }

    /** "dev.collectives.annotation.AllReduce" */
    public String qualifiedName() {
        return annotationType.getCanonicalName();
    }

    /** "dev.collectives.annotation.AllReduce.List" */
    public String containerName() {
        return containerType.getCanonicalName();
    }

    /** "@AllReduce", as messages name the op. */
    public String annotation() {
        return "@" + annotationType.getSimpleName();
    }

    /** The {@code Communicator} method: "allReduce". */
    public String method() {
        return method;
    }

    /** The C function without its library's prefix: "AllReduce", for ncclAllReduce and mcclAllReduce. */
    public String cName() {
        return cName;
    }

    /** The attribute naming the send buffer ("send", "buffer" of {@code @Send}); null without a send side. */
    public String sendAttribute() {
        return send.bufferAttribute();
    }

    /** The attribute naming the recv buffer ("recv", "buffer" of {@code @Recv}); null without a recv side. */
    public String recvAttribute() {
        return recv.bufferAttribute();
    }

    /** The count attribute: "count", "sendCount" of {@code @AllGather}, "recvCount" of {@code @ReduceScatter}. */
    public String countAttribute() {
        return countAttribute;
    }

    /** The count's expression twin: "countExpr", "sendCountExpr", "recvCountExpr". */
    public String countExprAttribute() {
        return exprTwin(countAttribute);
    }

    /** The offset into the send buffer ("sendOffset", "offset" of {@code @Send}); null without a send side. */
    public String sendOffsetAttribute() {
        return send.offsetAttribute();
    }

    /** The offset into the recv buffer ("recvOffset", "offset" of {@code @Recv}); null without a recv side. */
    public String recvOffsetAttribute() {
        return recv.offsetAttribute();
    }

    /** Count and the offsets its sides have: the attributes that have an {@code ...Expr} twin. */
    public List<String> numericAttributes() {
        List<String> attributes = new ArrayList<>();
        attributes.add(countAttribute);
        if (hasSend()) {
            attributes.add(sendOffsetAttribute());
        }
        if (hasRecv()) {
            attributes.add(recvOffsetAttribute());
        }
        return attributes;
    }

    /** The attribute that gives {@code attribute} as an expression: "countExpr" for "count". */
    public static String exprTwin(String attribute) {
        return attribute + "Expr";
    }

    /** How many elements the op touches in its send buffer. */
    public Extent sendExtent() {
        return send.extent();
    }

    /** How many elements the op touches in its recv buffer. */
    public Extent recvExtent() {
        return recv.extent();
    }

    /** Whether only the root uses the send side: a broadcast's and a scatter's; other ranks may pass none. */
    public boolean sendOnlyAtRoot() {
        return send.rootOnly();
    }

    /** Whether only the root uses the recv side: a reduce's and a gather's; other ranks may pass none. */
    public boolean recvOnlyAtRoot() {
        return recv.rootOnly();
    }

    /** Whether {@code rank} uses the op's send buffer, for a root (or peer) {@code peer}. */
    public boolean usesSend(int rank, int peer) {
        return hasSend() && (!send.rootOnly() || rank == peer);
    }

    /** Whether {@code rank} uses the op's recv buffer, for a root (or peer) {@code peer}. */
    public boolean usesRecv(int rank, int peer) {
        return hasRecv() && (!recv.rootOnly() || rank == peer);
    }

    /** Whether it reads a send buffer (all but {@code @Recv}). */
    public boolean hasSend() {
        return send.extent() != Extent.NONE;
    }

    /** Whether it writes a recv buffer (all but {@code @Send}). */
    public boolean hasRecv() {
        return recv.extent() != Extent.NONE;
    }

    /**
     * Whether send and recv at the same offset of one buffer is its in-place form: where both sides hold
     * {@code count} elements. Allgather and reducescatter are in place only at a rank's block, alltoall never.
     */
    public boolean inPlaceAtSameOffset() {
        return send.extent() == Extent.COUNT && recv.extent() == Extent.COUNT;
    }

    /** Whether it takes a reduce op ({@code op = ReduceOp.SUM}): allreduce, reduce and reducescatter. */
    public boolean reduces() {
        return role == Role.REDUCES || role == Role.REDUCES_TO_ROOT;
    }

    /**
     * Whether consecutive calls over adjacent ranges compute what one call over their union does, element by element:
     * an op of {@code count} elements on both sides that is not point to point (allreduce, broadcast, reduce). Ops
     * with a side of {@code count × ranks} are rank-major and never fuse.
     */
    public boolean elementwise() {
        return inPlaceAtSameOffset() && !isPointToPoint();
    }

    /** Whether it takes a {@code root}: broadcast, reduce, gather and scatter. */
    public boolean hasRoot() {
        return role == Role.ROOTED || role == Role.REDUCES_TO_ROOT;
    }

    /** Whether it is a send or a receive: one buffer, a {@code peer}, grouped with the step's other such ops. */
    public boolean isPointToPoint() {
        return role == Role.POINT_TO_POINT;
    }

    /** Allreduce, reducescatter and allgather: what IB SHARP (R8) and MTLink SHARP serve. */
    public boolean sharpServed() {
        return sharpServed;
    }

    /** The op of an annotation's qualified name ("dev.collectives.annotation.AllReduce"), or null. */
    public static OpKind byAnnotation(String qualifiedName) {
        return BY_ANNOTATION.get(qualifiedName);
    }

    /** The op whose repeats a container of this qualified name holds, or null. */
    public static OpKind byContainer(String qualifiedName) {
        return BY_CONTAINER.get(qualifiedName);
    }
}
