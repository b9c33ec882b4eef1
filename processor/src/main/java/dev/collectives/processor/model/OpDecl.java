package dev.collectives.processor.model;

import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.ExecutableElement;

import dev.collectives.annotation.Peer;
import dev.collectives.annotation.ReduceOp;

/**
 * One op annotation of a step, in source order. {@code send}/{@code recv} name the accessors (a {@code @Send}'s
 * buffer is its send side, a {@code @Recv}'s its recv side); attributes that could not be read are null.
 */
public final class OpDecl extends Annotated {
    private final OpKind kind;
    private final int index;
    String send;
    String recv;
    Long count;
    Long sendOffset;
    Long recvOffset;
    ReduceOp op;
    Integer root;
    Peer peer;
    Integer peerRank;

    OpDecl(ExecutableElement method, AnnotationMirror mirror, OpKind kind, int index) {
        super(method, mirror);
        this.kind = kind;
        this.index = index;
    }

    /** The same op at another position of its step. */
    OpDecl withIndex(int newIndex) {
        OpDecl o = new OpDecl((ExecutableElement) element(), mirror(), kind, newIndex);
        o.send = send;
        o.recv = recv;
        o.count = count;
        o.sendOffset = sendOffset;
        o.recvOffset = recvOffset;
        o.op = op;
        o.root = root;
        o.peer = peer;
        o.peerRank = peerRank;
        o.expressions.putAll(expressions);
        return o;
    }

    public OpKind kind() {
        return kind;
    }

    /** Position in its step, from 0. */
    public int index() {
        return index;
    }

    public String send() {
        return send;
    }

    public String recv() {
        return recv;
    }

    /** count, sendCount (allgather) or recvCount (reducescatter). */
    public Long count() {
        return count;
    }

    public Long sendOffset() {
        return sendOffset;
    }

    public Long recvOffset() {
        return recvOffset;
    }

    public ReduceOp op() {
        return op;
    }

    public Integer root() {
        return root;
    }

    public Peer peer() {
        return peer;
    }

    public Integer peerRank() {
        return peerRank;
    }

    public Site sendSite() {
        return site(kind.sendAttribute());
    }

    public Site recvSite() {
        return site(kind.recvAttribute());
    }

    public Site countSite() {
        return site(kind.countAttribute());
    }

    @Override
    public String toString() {
        return kind.annotation() + " #" + index + " of " + element().getSimpleName() + "()";
    }
}
