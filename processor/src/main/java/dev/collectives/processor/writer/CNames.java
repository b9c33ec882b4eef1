package dev.collectives.processor.writer;

import dev.collectives.annotation.DataType;
import dev.collectives.annotation.Peer;
import dev.collectives.annotation.ReduceOp;

/**
 * The C spelling of functions, types, ops and peers, for the comments that make generated code read like the C of
 * the NCCL/MCCL user-buffer-registration guide. The convention, stated in each generated class's Javadoc: a function
 * is named with both libraries' prefixes in braces, {@code {nccl,mccl}AllReduce}, so that the comment reads right for
 * either backend; constants are spelled as in NCCL.
 */
final class CNames {
    /** The generated class's Javadoc paragraph that states the convention. */
    static final String CONVENTION = "<p>The comment over each native call names the function as both libraries "
            + "do: {@code {nccl,mccl}AllReduce} is ncclAllReduce or mcclAllReduce, {@code {cuda,musa}} and "
            + "{@code {cu,mu}} likewise; constants are spelled as in NCCL (ncclFloat is mcclFloat).";

    private CNames() {}

    /** A function of the collective library: {nccl,mccl}AllReduce. */
    static String ccl(String function) {
        return "{nccl,mccl}" + function;
    }

    /** A function of the device runtime: {cuda,musa}StreamBeginCapture. */
    static String runtime(String function) {
        return "{cuda,musa}" + function;
    }

    /** A function of the device driver: {cu,mu}MemCreate. */
    static String driver(String function) {
        return "{cu,mu}" + function;
    }

    static String dataType(DataType type) {
        switch (type) {
            case INT8:
                return "ncclInt8";
            case UINT8:
                return "ncclUint8";
            case INT32:
                return "ncclInt32";
            case UINT32:
                return "ncclUint32";
            case INT64:
                return "ncclInt64";
            case UINT64:
                return "ncclUint64";
            case FLOAT16:
                return "ncclFloat16";
            case FLOAT32:
                return "ncclFloat";
            case FLOAT64:
                return "ncclFloat64";
            case BFLOAT16:
                return "ncclBfloat16";
            case FP8_E4M3:
                return "ncclFloat8e4m3";
            default:
                return "ncclFloat8e5m2";
        }
    }

    /** The C element type, for pointer arithmetic in comments: (float*)sendbuff + 1024. */
    static String elementType(DataType type) {
        switch (type) {
            case INT8:
                return "int8_t";
            case UINT8:
                return "uint8_t";
            case INT32:
                return "int32_t";
            case UINT32:
                return "uint32_t";
            case INT64:
                return "int64_t";
            case UINT64:
                return "uint64_t";
            case FLOAT16:
                return "half";
            case FLOAT32:
                return "float";
            case FLOAT64:
                return "double";
            case BFLOAT16:
                return "bfloat16";
            default:
                return "uint8_t";
        }
    }

    static String reduceOp(ReduceOp op) {
        switch (op) {
            case SUM:
                return "ncclSum";
            case PROD:
                return "ncclProd";
            case MAX:
                return "ncclMax";
            case MIN:
                return "ncclMin";
            default:
                return "ncclAvg";
        }
    }

    static String peer(Peer peer, int peerRank) {
        switch (peer) {
            case NEXT:
                return "(rank + 1) % size";
            case PREVIOUS:
                return "(rank - 1 + size) % size";
            default:
                return Integer.toString(peerRank);
        }
    }

    /** "sendbuff" or "(float*)sendbuff + 1024"; the offset as written, a number or an expression. */
    static String pointer(String buffer, DataType type, String elementOffset) {
        return elementOffset.equals("0") ? buffer : "(" + elementType(type) + "*)" + buffer + " + " + elementOffset;
    }
}
