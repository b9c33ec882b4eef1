package dev.collectives.backend.sim;

/** The kinds of communication op, named as the API names them. */
enum CallKind {
    ALL_REDUCE("allReduce"),
    ALL_GATHER("allGather"),
    REDUCE_SCATTER("reduceScatter"),
    BROADCAST("broadcast"),
    REDUCE("reduce"),
    ALL_TO_ALL("allToAll"),
    SEND("send"),
    RECV("recv");

    private final String apiName;

    CallKind(String apiName) {
        this.apiName = apiName;
    }

    boolean isCollective() {
        return this != SEND && this != RECV;
    }

    boolean reduces() {
        return this == ALL_REDUCE || this == REDUCE_SCATTER || this == REDUCE;
    }

    boolean rooted() {
        return this == BROADCAST || this == REDUCE;
    }

    @Override
    public String toString() {
        return apiName;
    }
}
