package dev.collectives.backend.sim;

import dev.collectives.annotation.Allocator;
import dev.collectives.annotation.DataType;
import dev.collectives.annotation.OpKind;
import dev.collectives.annotation.ReduceOp;
import dev.collectives.backend.sim.internal.Kernels;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.DeviceMemory;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ProtocolException;
import java.nio.ByteBuffer;

/**
 * How a rank's call travels to ranks in other processes: what it passed (op, count, type, buffers as addresses,
 * offsets and allocations, registration, graph), so that {@link CallAgreement} and {@link WindowArrival} check the
 * same values on every rank, followed by the bytes the others need of its send buffer. Buffers come back as
 * {@link RemoteMemory} buffers that print as they printed on their own rank.
 */
final class WireFormat {
    private WireFormat() {}

    /** A rank's collective or send/recv call and the bytes it contributes (read from its send buffer). */
    record Contribution(Launched op, byte[] body, int dataOffset) {
        int dataBytes() {
            return body.length - dataOffset;
        }
    }

    /** {@code op}'s description, then {@code dataBytes} of its send buffer. */
    static byte[] launched(Launched op, long dataBytes) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            OpCall call = op.call();
            out.writeUTF(call.kind().name());
            writeBuffer(out, call.send());
            out.writeLong(call.sendOffset());
            writeBuffer(out, call.recv());
            out.writeLong(call.recvOffset());
            out.writeLong(call.count());
            out.writeUTF(call.type().name());
            out.writeUTF(call.op() == null ? "" : call.op().name());
            out.writeInt(call.peer());
            writeFlag(out, call.sendRegistered());
            writeFlag(out, call.recvRegistered());
            out.writeInt(op.graphOp());
            out.writeLong(op.seq());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        int descriptor = bytes.size();
        byte[] body = new byte[Math.toIntExact(descriptor + dataBytes)];
        System.arraycopy(bytes.toByteArray(), 0, body, 0, descriptor);
        if (dataBytes > 0) {
            Kernels.view(op.call().send().address(), dataBytes).get(body, descriptor, (int) dataBytes);
        }
        return body;
    }

    /** Rank {@code rank}'s call from its message; its data must be what the call contributes among {@code ranks}. */
    static Contribution readLaunched(int rank, byte[] body, int ranks) throws ProtocolException {
        ByteArrayInputStream bytes = new ByteArrayInputStream(body);
        try (DataInputStream in = new DataInputStream(bytes)) {
            OpKind kind = OpKind.valueOf(in.readUTF());
            DeviceBuffer send = readBuffer(in, rank);
            long sendOffset = in.readLong();
            DeviceBuffer recv = readBuffer(in, rank);
            long recvOffset = in.readLong();
            long count = in.readLong();
            DataType type = DataType.valueOf(in.readUTF());
            String op = in.readUTF();
            OpCall call = new OpCall(
                    kind,
                    send,
                    sendOffset,
                    recv,
                    recvOffset,
                    count,
                    type,
                    op.isEmpty() ? null : ReduceOp.valueOf(op),
                    in.readInt(),
                    readFlag(in),
                    readFlag(in));
            int graphOp = in.readInt();
            // another rank's flight-recorder entry is not needed here: each rank names calls by its own
            Launched launched = new Launched(call, in.readLong(), 0, graphOp);
            int dataOffset = body.length - bytes.available();
            if (body.length - dataOffset != Movement.contribution(call, ranks)) {
                throw new ProtocolException(body.length - dataOffset + " bytes of data for " + call.describe());
            }
            return new Contribution(launched, body, dataOffset);
        } catch (IOException | IllegalArgumentException e) {
            throw malformed(rank, "call", e);
        }
    }

    static byte[] window(WindowArrival arrival) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeBoolean(arrival.register());
            writeBuffer(out, arrival.buffer());
            out.writeBoolean(arrival.symmetric());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static WindowArrival readWindow(int rank, byte[] body) throws ProtocolException {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(body))) {
            return new WindowArrival(in.readBoolean(), readBuffer(in, rank), in.readBoolean());
        } catch (IOException | IllegalArgumentException e) {
            throw malformed(rank, "window call", e);
        }
    }

    /** A split's color and key, or the ranks a shrink excludes. */
    static byte[] ints(int... values) {
        ByteBuffer bytes = ByteBuffer.allocate(Integer.BYTES * values.length);
        for (int value : values) {
            bytes.putInt(value);
        }
        return bytes.array();
    }

    static int[] readInts(int rank, byte[] body) throws ProtocolException {
        if (body.length % Integer.BYTES != 0) {
            throw new ProtocolException("rank " + rank + " sent " + body.length + " bytes where whole ints belong");
        }
        int[] values = new int[body.length / Integer.BYTES];
        ByteBuffer.wrap(body).asIntBuffer().get(values);
        return values;
    }

    private static void writeBuffer(DataOutputStream out, DeviceBuffer buffer) throws IOException {
        out.writeBoolean(buffer != null);
        if (buffer == null) {
            return;
        }
        DeviceMemory memory = buffer.memory();
        out.writeLong(memory.address());
        out.writeLong(memory.size());
        out.writeUTF(memory.allocator().name());
        out.writeLong(memory.physicalSize());
        out.writeLong(memory.reservedSize());
        out.writeUTF(memory.isForeign() ? memory.origin() : "");
        out.writeLong(buffer.headOffset());
        out.writeUTF(buffer.type().name());
        out.writeLong(buffer.count());
    }

    private static DeviceBuffer readBuffer(DataInputStream in, int rank) throws IOException {
        if (!in.readBoolean()) {
            return null;
        }
        long address = in.readLong();
        long size = in.readLong();
        Allocator allocator = Allocator.valueOf(in.readUTF());
        long physical = in.readLong();
        long reserved = in.readLong();
        String foreign = in.readUTF();
        RemoteMemory memory = new RemoteMemory(
                rank, address, size, allocator, physical, reserved, foreign.isEmpty() ? null : foreign);
        return DeviceBuffer.wrapped(memory, in.readLong(), DataType.valueOf(in.readUTF()), in.readLong());
    }

    /** Registration flags: null (no buffer), false, true. */
    private static void writeFlag(DataOutputStream out, Boolean flag) throws IOException {
        out.writeByte(flag == null ? 0 : flag ? 2 : 1);
    }

    private static Boolean readFlag(DataInputStream in) throws IOException {
        byte b = in.readByte();
        return b == 0 ? null : b == 2;
    }

    private static ProtocolException malformed(int rank, String what, Exception e) {
        ProtocolException p = new ProtocolException("rank " + rank + " sent a malformed " + what + ": " + e);
        p.initCause(e);
        return p;
    }
}
