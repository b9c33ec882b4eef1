package dev.collectives.tools.differential;

/**
 * The ops of the DSL as the corpus draws them: the annotation, the name of its count attribute, which of its sides
 * reach {@code count × ranks} elements, and what it takes besides buffers.
 */
enum OpKind {
    ALL_REDUCE("AllReduce", "count", false, false, true, false, true),
    BROADCAST("Broadcast", "count", false, false, false, true, true),
    REDUCE("Reduce", "count", false, false, true, true, true),
    ALL_GATHER("AllGather", "sendCount", false, true, false, false, false),
    REDUCE_SCATTER("ReduceScatter", "recvCount", true, false, true, false, false),
    ALL_TO_ALL("AllToAll", "count", true, true, false, false, false),
    SEND("Send", "count", false, false, false, false, false),
    RECV("Recv", "count", false, false, false, false, false);

    final String annotation;
    final String countAttribute;
    final boolean sendTimesRanks;
    final boolean recvTimesRanks;
    final boolean reduces;
    final boolean rooted;
    final boolean inPlaceAllowed;

    OpKind(String annotation, String countAttribute, boolean sendTimesRanks, boolean recvTimesRanks, boolean reduces,
            boolean rooted, boolean inPlaceAllowed) {
        this.annotation = annotation;
        this.countAttribute = countAttribute;
        this.sendTimesRanks = sendTimesRanks;
        this.recvTimesRanks = recvTimesRanks;
        this.reduces = reduces;
        this.rooted = rooted;
        this.inPlaceAllowed = inPlaceAllowed;
    }

    /** Send and recv: one buffer each, paired across ranks in the step's group. */
    boolean pointToPoint() {
        return this == SEND || this == RECV;
    }
}
