package dev.collectives.runtime.internal;

import dev.collectives.rules.Message;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;

/**
 * R7 on byte ranges, the one check behind bind (generated code) and each call (the sim's argument checks): an op's
 * send and recv ranges of one allocation are in place or apart, the ops of a group use ranges apart, and an op
 * stays inside its buffer. A range is {@code [start, end)}; the messages are the catalogue's ({@link Message}).
 */
public final class ByteRanges {
    private ByteRanges() {}

    /**
     * An op's send bytes and recv bytes of one allocation either coincide at the start (in place, where the op
     * allows it) or do not overlap. {@code op} names it for the message.
     */
    public static void requireInPlaceOrApart(
            Communicator comm,
            String pipeline,
            String op,
            boolean inPlaceAllowed,
            long sendStart,
            long sendEnd,
            long recvStart,
            long recvEnd) {
        String named = pipeline + ": " + op;
        if (inPlaceAllowed) {
            requireInPlaceOrApart(comm.rank(), named, 0, sendStart, sendEnd, recvStart, recvEnd);
        } else if (overlap(sendStart, sendEnd, recvStart, recvEnd)) {
            throw CollectivesException.violation(
                    Message.R7_NOT_IN_PLACE, comm.rank(), named, sendStart, sendEnd, recvStart, recvEnd);
        }
    }

    /**
     * An op's send bytes and recv bytes either do not overlap or are in place: send starts {@code inPlaceShift}
     * bytes after recv (0 where in place means the same start; an allgather's send is this rank's share of its
     * recv, a reducescatter's recv this rank's share of its send).
     */
    public static void requireInPlaceOrApart(
            int rank, String op, long inPlaceShift, long sendStart, long sendEnd, long recvStart, long recvEnd) {
        if (overlap(sendStart, sendEnd, recvStart, recvEnd) && sendStart != recvStart + inPlaceShift) {
            throw CollectivesException.violation(
                    inPlaceShift == 0 ? Message.R7_IN_PLACE_OR_APART : Message.R7_NOT_IN_PLACE,
                    rank,
                    op,
                    sendStart,
                    sendEnd,
                    recvStart,
                    recvEnd);
        }
    }

    /**
     * R7 at bind, for what only bind knows: whether two externals are parts of one allocation. Their send and recv
     * ranges (offsets and counts in elements of their buffers) are then held to
     * {@link #requireInPlaceOrApart(Communicator, String, String, boolean, long, long, long, long)}.
     */
    public static void requireApart(
            Communicator comm,
            String pipeline,
            String op,
            boolean inPlaceAllowed,
            DeviceBuffer send,
            long sendOffset,
            long sendCount,
            DeviceBuffer recv,
            long recvOffset,
            long recvCount) {
        if (send.memory() != recv.memory()) {
            return;
        }
        long sendStart = send.headOffset() + sendOffset * send.type().size();
        long recvStart = recv.headOffset() + recvOffset * recv.type().size();
        requireInPlaceOrApart(
                comm,
                pipeline,
                op + " (on one allocation)",
                inPlaceAllowed,
                sendStart,
                sendStart + sendCount * send.type().size(),
                recvStart,
                recvStart + recvCount * recv.type().size());
    }

    /**
     * Two sides of ops of one group, at least one of which receives, use bytes of one allocation that do not
     * overlap: the ops run concurrently. {@code first} and {@code second} name the sides.
     */
    public static void requireApartInGroup(
            Communicator comm,
            String pipeline,
            String first,
            String second,
            long firstStart,
            long firstEnd,
            long secondStart,
            long secondEnd) {
        if (overlap(firstStart, firstEnd, secondStart, secondEnd)) {
            throw CollectivesException.violation(
                    Message.R7_GROUP_APART,
                    comm.rank(),
                    pipeline + ": " + first,
                    second,
                    firstStart,
                    firstEnd,
                    secondStart,
                    secondEnd);
        }
    }

    /**
     * {@code buffer + offset}, {@code count} elements long, for {@code side} ("the recv of @AllGather #1 in
     * gather()"), which must not reach past the buffer's end.
     */
    public static DeviceBuffer slice(
            Communicator comm,
            String pipeline,
            DeviceBuffer buffer,
            String name,
            String side,
            long offset,
            long count) {
        if (offset + count > buffer.count()) {
            throw CollectivesException.violation(
                    Message.R7_PAST_BUFFER,
                    comm.rank(),
                    pipeline + ": " + side,
                    name,
                    offset,
                    offset + count,
                    buffer.count());
        }
        return buffer.slice(offset, count);
    }

    private static boolean overlap(long firstStart, long firstEnd, long secondStart, long secondEnd) {
        return firstStart < secondEnd && secondStart < firstEnd;
    }
}
