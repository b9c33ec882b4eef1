#!/usr/bin/env python3
"""One CuPy rank of a peers job (gpu/peers.sh): a job whose other ranks are Java ranks of Collectives.

The rank forms its NCCL communicator from a unique id passed through a file: with --make-id FILE it makes the id
(cupy.cuda.nccl.get_unique_id()) and writes its 256 hex digits to FILE; with --id-file FILE it waits for that file,
which a Java rank ('tools peers-rank --make-id FILE') or another CuPy rank wrote. Then, each iteration, it issues the
same ops, with the same data, as the Java ranks' pipeline (tools/.../peers/PeersOps.java): the seed examples' two
allreduces, an allgather, a reducescatter and a broadcast of weights from rank 0, and compares every result element by
element. It prints 'peers: rank R (cupy): every result right' and exits 0, or says what was wrong and exits 1.

--print-nccl prints the file of the NCCL library that CuPy loaded, for COLLECTIVES_NCCL_CCL_LIBRARY: the Java ranks
must load the same NCCL.

Needs CuPy (14, on NCCL 2.28.9 from the nvidia-nccl-cu* package) and NumPy; device 0.
"""
import argparse
import os
import sys
import time

import numpy as np

PERIOD = 4093  # HostData's values run from 1 to this prime
UNTOUCHED = np.float32(-1)
SEED_BUFFER = 4096
COUNT = 1024
SECOND_SEND_OFFSET = 1024
SECOND_RECV_OFFSET = 2048
SHARD = 1024
WEIGHTS = 4096
ROOT = 0
ITERATIONS = 2
FLOAT_BYTES = 4
UNIQUE_ID_BYTES = 128


def values(iteration, rank, first, count):
    """What a rank puts at elements first..first+count-1 (HostData.value): small integers, exact sums in float32."""
    index = np.arange(first, first + count, dtype=np.int64)
    return (1 + np.mod(iteration * 7919 + rank * 1009 + index, PERIOD)).astype(np.float32)


def total(iteration, size, first, count):
    """The sum over every rank of its values (HostData.sum)."""
    return np.sum([values(iteration, r, first, count) for r in range(size)], axis=0, dtype=np.float32)


def untouched(count):
    return np.full(count, UNTOUCHED, dtype=np.float32)


def nccl_file():
    """The libnccl that CuPy's NCCL module loaded into this process, from /proc/self/maps."""
    from cupy.cuda import nccl
    nccl.get_version()  # the library is loaded by now
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if "/libnccl.so" in path:
                return os.path.realpath(path)
    import nvidia.nccl  # the nvidia-nccl-cu* package, where the maps do not name it
    return os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so.2")


def join(nccl, size, raw, rank):
    """CuPy 14 takes the id as 128 bytes; older CuPy as a tuple of C chars (signed on x86-64)."""
    try:
        return nccl.NcclCommunicator(size, raw, rank)
    except TypeError:
        return nccl.NcclCommunicator(size, tuple(b - 256 if b > 127 else b for b in raw), rank)


def read_id(path, timeout):
    deadline = time.monotonic() + timeout
    while not os.path.exists(path):
        if time.monotonic() > deadline:
            sys.exit("peers: no unique id in %s within %d s" % (path, timeout))
        time.sleep(0.1)
    with open(path) as f:
        text = f.read().strip()
    raw = bytes.fromhex(text)
    if len(raw) != UNIQUE_ID_BYTES:
        sys.exit("peers: %s holds %d bytes, not a unique id of %d" % (path, len(raw), UNIQUE_ID_BYTES))
    return raw


def write_id(path, raw):
    part = path + ".part"
    with open(part, "w") as f:
        f.write(raw.hex() + "\n")
    os.replace(part, path)


def compare(rank, what, expected, actual):
    """None when equal element by element, else the first difference."""
    if expected.shape != actual.shape:
        return "rank %d: %s has %d elements, expected %d" % (rank, what, actual.size, expected.size)
    wrong = np.nonzero(expected.view(np.int32) != actual.view(np.int32))[0]
    if wrong.size == 0:
        return None
    i = int(wrong[0])
    return "rank %d: %s[%d] is %s, expected %s (%d elements differ)" % (
        rank, what, i, actual[i], expected[i], wrong.size)


def run(args):
    import cupy
    from cupy.cuda import nccl

    cupy.cuda.Device(0).use()
    if args.make_id:
        raw = bytes(b & 0xFF for b in nccl.get_unique_id())
        write_id(args.make_id, raw)
        print("peers: rank %d made the unique id, written to %s" % (args.rank, args.make_id), flush=True)
    else:
        raw = read_id(args.id_file, args.timeout)
    comm = join(nccl, args.size, raw, args.rank)
    version = nccl.get_version()
    print("peers: rank %d of %d joined (cupy %s, nccl %d.%d.%d from %s)" % (
        args.rank, args.size, cupy.__version__, version // 10000, version // 100 % 100, version % 100,
        nccl_file()), flush=True)

    stream = cupy.cuda.Stream(non_blocking=True)
    f32, total_sum = nccl.NCCL_FLOAT32, nccl.NCCL_SUM
    r, n = args.rank, args.size
    sendbuff = cupy.empty(SEED_BUFFER, dtype=cupy.float32)
    recvbuff = cupy.empty(SEED_BUFFER, dtype=cupy.float32)
    shard = cupy.empty(SHARD, dtype=cupy.float32)
    full = cupy.empty(SHARD * n, dtype=cupy.float32)
    reduced = cupy.empty(SHARD, dtype=cupy.float32)
    weights = cupy.empty(WEIGHTS, dtype=cupy.float32)

    def at(array, elements=0):
        return array.data.ptr + elements * FLOAT_BYTES

    def step(fills, issue):
        """Fills the buffers, waits for the copies, issues the op on the stream and waits for it."""
        for array, host in fills:
            array.set(host)
        cupy.cuda.Device(0).synchronize()
        issue()
        stream.synchronize()

    for it in range(ITERATIONS):
        step([(sendbuff, values(it, r, 0, SEED_BUFFER)), (recvbuff, untouched(SEED_BUFFER))], lambda: (
            comm.allReduce(at(sendbuff), at(recvbuff), COUNT, f32, total_sum, stream.ptr),
            comm.allReduce(at(sendbuff, SECOND_SEND_OFFSET), at(recvbuff, SECOND_RECV_OFFSET), COUNT, f32,
                           total_sum, stream.ptr)))
        seed = untouched(SEED_BUFFER)
        seed[:COUNT] = total(it, n, 0, COUNT)
        seed[SECOND_RECV_OFFSET:SECOND_RECV_OFFSET + COUNT] = total(it, n, SECOND_SEND_OFFSET, COUNT)

        step([(shard, values(it, r, 0, SHARD)), (full, untouched(SHARD * n))],
             lambda: comm.allGather(at(shard), at(full), SHARD, f32, stream.ptr))
        gathered = np.concatenate([values(it, q, 0, SHARD) for q in range(n)])
        gathered_got = full.get()

        step([(full, values(it, r, 0, SHARD * n)), (reduced, untouched(SHARD))],
             lambda: comm.reduceScatter(at(full), at(reduced), SHARD, f32, total_sum, stream.ptr))
        scattered = total(it, n, r * SHARD, SHARD)

        root_weights = values(it, ROOT, 0, WEIGHTS)
        step([(weights, root_weights if r == ROOT else untouched(WEIGHTS))],
             lambda: comm.broadcast(at(weights), at(weights), WEIGHTS, f32, ROOT, stream.ptr))

        for what, expected, actual in (("seed recvbuff", seed, recvbuff.get()),
                                       ("allgather full", gathered, gathered_got),
                                       ("reducescatter reduced", scattered, reduced.get()),
                                       ("broadcast weights", root_weights, weights.get())):
            wrong = compare(r, what, expected, actual)
            if wrong:
                print("peers: WRONG: iteration %d: %s" % (it, wrong), flush=True)
                comm.destroy()
                return 1
    comm.destroy()
    print("peers: rank %d (cupy): every result right" % r, flush=True)
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rank", type=int)
    parser.add_argument("--size", type=int)
    parser.add_argument("--make-id", metavar="FILE", help="make the unique id and write its hex to FILE")
    parser.add_argument("--id-file", metavar="FILE", help="wait for the unique id's hex in FILE")
    parser.add_argument("--timeout", type=int, default=120, help="seconds to wait for the id file")
    parser.add_argument("--print-nccl", action="store_true", help="print the NCCL library CuPy loads, and exit")
    args = parser.parse_args()
    if args.print_nccl:
        print(nccl_file())
        return 0
    if args.rank is None or args.size is None or not (args.make_id or args.id_file):
        parser.error("--rank, --size and one of --make-id or --id-file are needed")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
