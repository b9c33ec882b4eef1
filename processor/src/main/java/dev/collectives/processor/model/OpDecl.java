package dev.collectives.processor.model;

import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.Peer;
import dev.collectives.annotation.ReduceOp;
import java.util.ArrayList;
import java.util.List;
import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.ExecutableElement;

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
    private List<OpSide> sides = List.of();

    OpDecl(ExecutableElement method, AnnotationMirror mirror, OpKind kind, int index) {
        super(method, mirror);
        this.kind = kind;
        this.index = index;
    }

    /** The same op at another position of its step. */
    OpDecl withIndex(int newIndex) {
        OpDecl o = new OpDecl((ExecutableElement) element(), mirror(), kind, newIndex);
        copyAttributes(this, o);
        return o;
    }

    private static void copyAttributes(OpDecl from, OpDecl to) {
        to.send = from.send;
        to.recv = from.recv;
        to.count = from.count;
        to.sendOffset = from.sendOffset;
        to.recvOffset = from.recvOffset;
        to.op = from.op;
        to.root = from.root;
        to.peer = from.peer;
        to.peerRank = from.peerRank;
        to.expressions.putAll(from.expressions);
    }

    public OpKind kind() {
        return kind;
    }

    /** "#3" for the third op of its step: its position as messages count, from 1. */
    public String ordinal() {
        return "#" + (index + 1);
    }

    /** Position in its step, from 0. */
    public int index() {
        return index;
    }

    /**
     * Its send side, then its recv side, each where the op has it and its accessor exists (an unknown name is
     * [DSL unknown-buffer]'s to report).
     */
    public List<OpSide> sides() {
        return sides;
    }

    /** Resolves the sides' accessors, once every accessor of the pipeline is read. */
    void resolveSides(PipelineModel model) {
        List<OpSide> resolved = new ArrayList<>(2);
        if (kind.hasSend() && send != null) {
            model.buffer(send).ifPresent(b -> resolved.add(new OpSide(this, OpSide.Role.SEND, b)));
        }
        if (kind.hasRecv() && recv != null) {
            model.buffer(recv).ifPresent(b -> resolved.add(new OpSide(this, OpSide.Role.RECV, b)));
        }
        sides = List.copyOf(resolved);
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

    /** "@AllReduce #1 in step()", as messages name it. */
    public String label() {
        return kind.annotation() + " " + ordinal() + " in " + element().getSimpleName() + "()";
    }

    @Override
    public String toString() {
        return kind.annotation() + " " + ordinal() + " of " + element().getSimpleName() + "()";
    }
}
