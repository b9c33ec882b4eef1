package dev.collectives.processor.model;

import java.util.HashMap;
import java.util.Map;

/**
 * The op annotations, with what the processor needs to know of each: attribute names, how far into its send and
 * recv buffers it reaches (count, or count × ranks), and which accelerated algorithms serve it.
 */
public enum OpKind {
    ALL_REDUCE("AllReduce", "allReduce", "AllReduce", "send", "recv", "count", "sendOffset", "recvOffset",
            Extent.COUNT, Extent.COUNT, true),
    ALL_GATHER("AllGather", "allGather", "AllGather", "send", "recv", "sendCount", "sendOffset", "recvOffset",
            Extent.COUNT, Extent.COUNT_TIMES_RANKS, true),
    REDUCE_SCATTER("ReduceScatter", "reduceScatter", "ReduceScatter", "send", "recv", "recvCount", "sendOffset",
            "recvOffset", Extent.COUNT_TIMES_RANKS, Extent.COUNT, true),
    BROADCAST("Broadcast", "broadcast", "Broadcast", "send", "recv", "count", "sendOffset", "recvOffset",
            Extent.COUNT, Extent.COUNT, false),
    REDUCE("Reduce", "reduce", "Reduce", "send", "recv", "count", "sendOffset", "recvOffset",
            Extent.COUNT, Extent.COUNT, false),
    ALL_TO_ALL("AllToAll", "allToAll", "AlltoAll", "send", "recv", "count", "sendOffset", "recvOffset",
            Extent.COUNT_TIMES_RANKS, Extent.COUNT_TIMES_RANKS, false),
    SEND("Send", "send", "Send", "buffer", null, "count", "offset", null, Extent.COUNT, Extent.NONE, false),
    RECV("Recv", "recv", "Recv", null, "buffer", "count", null, "offset", Extent.NONE, Extent.COUNT, false);

    /** How many elements an op touches in one of its buffers. */
    public enum Extent {
        NONE,
        COUNT,
        COUNT_TIMES_RANKS
    }

    private final String annotation;
    private final String method;
    private final String cName;
    private final String sendAttribute;
    private final String recvAttribute;
    private final String countAttribute;
    private final String sendOffsetAttribute;
    private final String recvOffsetAttribute;
    private final Extent sendExtent;
    private final Extent recvExtent;
    private final boolean sharpServed;

    OpKind(String annotation, String method, String cName, String sendAttribute, String recvAttribute,
           String countAttribute, String sendOffsetAttribute, String recvOffsetAttribute, Extent sendExtent,
           Extent recvExtent, boolean sharpServed) {
        this.annotation = annotation;
        this.method = method;
        this.cName = cName;
        this.sendAttribute = sendAttribute;
        this.recvAttribute = recvAttribute;
        this.countAttribute = countAttribute;
        this.sendOffsetAttribute = sendOffsetAttribute;
        this.recvOffsetAttribute = recvOffsetAttribute;
        this.sendExtent = sendExtent;
        this.recvExtent = recvExtent;
        this.sharpServed = sharpServed;
    }

    /** "dev.collectives.annotation.AllReduce" */
    public String qualifiedName() {
        return "dev.collectives.annotation." + annotation;
    }

    /** "dev.collectives.annotation.AllReduce.List" */
    public String containerName() {
        return qualifiedName() + ".List";
    }

    /** "@AllReduce" */
    public String annotation() {
        return "@" + annotation;
    }

    /** The Communicator method: "allReduce". */
    public String method() {
        return method;
    }

    /** The C function without its library's prefix: "AllReduce", for ncclAllReduce and mcclAllReduce. */
    public String cName() {
        return cName;
    }

    public String sendAttribute() {
        return sendAttribute;
    }

    public String recvAttribute() {
        return recvAttribute;
    }

    public String countAttribute() {
        return countAttribute;
    }

    public String sendOffsetAttribute() {
        return sendOffsetAttribute;
    }

    public String recvOffsetAttribute() {
        return recvOffsetAttribute;
    }

    /** count and the offsets its sides have: the attributes that have an {@code ...Expr} twin. */
    public java.util.List<String> numericAttributes() {
        java.util.List<String> attributes = new java.util.ArrayList<>();
        attributes.add(countAttribute);
        if (hasSend()) {
            attributes.add(sendOffsetAttribute);
        }
        if (hasRecv()) {
            attributes.add(recvOffsetAttribute);
        }
        return attributes;
    }

    public Extent sendExtent() {
        return sendExtent;
    }

    public Extent recvExtent() {
        return recvExtent;
    }

    public boolean hasSend() {
        return sendExtent != Extent.NONE;
    }

    public boolean hasRecv() {
        return recvExtent != Extent.NONE;
    }

    public boolean reduces() {
        return this == ALL_REDUCE || this == REDUCE_SCATTER || this == REDUCE;
    }

    public boolean hasRoot() {
        return this == BROADCAST || this == REDUCE;
    }

    public boolean isPointToPoint() {
        return this == SEND || this == RECV;
    }

    /** allreduce, reducescatter and allgather: what IB SHARP (R8) and MTLink SHARP serve. */
    public boolean sharpServed() {
        return sharpServed;
    }

    /** By qualified name of the annotation and of its container: asked for every annotation of every method. */
    private static final Map<String, OpKind> BY_ANNOTATION = new HashMap<>();
    private static final Map<String, OpKind> BY_CONTAINER = new HashMap<>();

    static {
        for (OpKind k : values()) {
            BY_ANNOTATION.put(k.qualifiedName(), k);
            BY_CONTAINER.put(k.containerName(), k);
        }
    }

    public static OpKind byAnnotation(String qualifiedName) {
        return BY_ANNOTATION.get(qualifiedName);
    }

    public static OpKind byContainer(String qualifiedName) {
        return BY_CONTAINER.get(qualifiedName);
    }
}
