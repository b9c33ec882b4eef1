"""What every Python rank of a peers job (gpu/peers.sh) shares, whichever library it issues NCCL calls through.

A peers job is one NCCL communicator whose ranks are Python processes (CuPy, or PyTorch with NCCL loaded through
ctypes) and Java ranks of Collectives. Every rank forms the communicator from a unique id passed through a file (its
256 hex digits): the maker writes it, the others wait for it. Then, each iteration, a rank issues the same ops, with
the same data, as the Java ranks' pipeline (tools/.../peers/PeersOps.java): the seed examples' two allreduces, an
allgather, a reducescatter and a broadcast of weights from rank 0, and compares every result element by element. It
prints 'peers: rank R (LIBRARY): every result right' and exits 0, or says what was wrong and exits 1.

A library's script gives main() a Peer: how it makes an id, joins, allocates and copies, and issues the five calls.
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
# nccl.h: ncclFloat32 and ncclSum
NCCL_FLOAT32 = 7
NCCL_SUM = 0


def values(iteration, rank, first, count):
    """What a rank puts at elements first..first+count-1 (HostData.value): small integers, exact sums in float32."""
    index = np.arange(first, first + count, dtype=np.int64)
    return (1 + np.mod(iteration * 7919 + rank * 1009 + index, PERIOD)).astype(np.float32)


def total(iteration, size, first, count):
    """The sum over every rank of its values (HostData.sum)."""
    return np.sum([values(iteration, r, first, count) for r in range(size)], axis=0, dtype=np.float32)


def untouched(count):
    return np.full(count, UNTOUCHED, dtype=np.float32)


def loaded_nccl(fallback):
    """The libnccl file mapped into this process (from /proc/self/maps), else fallback()."""
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if "/libnccl.so" in path:
                return os.path.realpath(path)
    return fallback()


def packaged_nccl():
    """The NCCL of the nvidia-nccl-cu* package."""
    import nvidia.nccl
    return os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so.2")


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


class Peer:
    """One library's side of a peers job; every count is in float32 elements, every pointer a device address."""

    name = None

    def nccl_file(self):
        """The NCCL library file this side loads (the Java ranks must load the same)."""
        raise NotImplementedError

    def unique_id(self):
        """A new unique id: 128 bytes."""
        raise NotImplementedError

    def join(self, size, raw, rank):
        """Forms this rank's communicator from the id; returns a line that says what was joined."""
        raise NotImplementedError

    def empty(self, count):
        raise NotImplementedError

    def ptr(self, array, elements=0):
        raise NotImplementedError

    def put(self, array, host):
        """Copies the NumPy array host into array and waits for the copy."""
        raise NotImplementedError

    def get(self, array):
        """array's values as a NumPy array."""
        raise NotImplementedError

    def all_reduce(self, send, recv, count):
        raise NotImplementedError

    def all_gather(self, send, recv, count):
        raise NotImplementedError

    def reduce_scatter(self, send, recv, count):
        raise NotImplementedError

    def broadcast(self, send, recv, count, root):
        raise NotImplementedError

    def synchronize(self):
        """Waits for the ops issued on this rank's stream."""
        raise NotImplementedError

    def destroy(self):
        raise NotImplementedError


def check_ops(peer, r, n):
    """Runs the iterations; 0 when every result was right, else 1 after printing the first wrong one."""
    sendbuff, recvbuff = peer.empty(SEED_BUFFER), peer.empty(SEED_BUFFER)
    shard, full, reduced = peer.empty(SHARD), peer.empty(SHARD * n), peer.empty(SHARD)
    weights = peer.empty(WEIGHTS)

    def step(fills, issue):
        """Fills the buffers, issues the ops on the stream and waits for them."""
        for array, host in fills:
            peer.put(array, host)
        issue()
        peer.synchronize()

    for it in range(ITERATIONS):
        step([(sendbuff, values(it, r, 0, SEED_BUFFER)), (recvbuff, untouched(SEED_BUFFER))], lambda: (
            peer.all_reduce(peer.ptr(sendbuff), peer.ptr(recvbuff), COUNT),
            peer.all_reduce(peer.ptr(sendbuff, SECOND_SEND_OFFSET), peer.ptr(recvbuff, SECOND_RECV_OFFSET), COUNT)))
        seed = untouched(SEED_BUFFER)
        seed[:COUNT] = total(it, n, 0, COUNT)
        seed[SECOND_RECV_OFFSET:SECOND_RECV_OFFSET + COUNT] = total(it, n, SECOND_SEND_OFFSET, COUNT)

        step([(shard, values(it, r, 0, SHARD)), (full, untouched(SHARD * n))],
             lambda: peer.all_gather(peer.ptr(shard), peer.ptr(full), SHARD))
        gathered = np.concatenate([values(it, q, 0, SHARD) for q in range(n)])
        gathered_got = peer.get(full)

        step([(full, values(it, r, 0, SHARD * n)), (reduced, untouched(SHARD))],
             lambda: peer.reduce_scatter(peer.ptr(full), peer.ptr(reduced), SHARD))
        scattered = total(it, n, r * SHARD, SHARD)

        root_weights = values(it, ROOT, 0, WEIGHTS)
        step([(weights, root_weights if r == ROOT else untouched(WEIGHTS))],
             lambda: peer.broadcast(peer.ptr(weights), peer.ptr(weights), WEIGHTS, ROOT))

        for what, expected, actual in (("seed recvbuff", seed, peer.get(recvbuff)),
                                       ("allgather full", gathered, gathered_got),
                                       ("reducescatter reduced", scattered, peer.get(reduced)),
                                       ("broadcast weights", root_weights, peer.get(weights))):
            wrong = compare(r, what, expected, actual)
            if wrong:
                print("peers: WRONG: iteration %d: %s" % (it, wrong), flush=True)
                return 1
    return 0


def main(peer, description):
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--rank", type=int)
    parser.add_argument("--size", type=int)
    parser.add_argument("--make-id", metavar="FILE", help="make the unique id and write its hex to FILE")
    parser.add_argument("--id-file", metavar="FILE", help="wait for the unique id's hex in FILE")
    parser.add_argument("--timeout", type=int, default=120, help="seconds to wait for the id file")
    parser.add_argument("--print-nccl", action="store_true", help="print the NCCL library this side loads, and exit")
    args = parser.parse_args()
    if args.print_nccl:
        print(peer.nccl_file())
        return 0
    if args.rank is None or args.size is None or not (args.make_id or args.id_file):
        parser.error("--rank, --size and one of --make-id or --id-file are needed")
    if args.make_id:
        raw = peer.unique_id()
        write_id(args.make_id, raw)
        print("peers: rank %d made the unique id, written to %s" % (args.rank, args.make_id), flush=True)
    else:
        raw = read_id(args.id_file, args.timeout)
    joined = peer.join(args.size, raw, args.rank)
    print("peers: rank %d of %d joined (%s)" % (args.rank, args.size, joined), flush=True)
    try:
        status = check_ops(peer, args.rank, args.size)
    finally:
        peer.destroy()
    if status == 0:
        print("peers: rank %d (%s): every result right" % (args.rank, peer.name), flush=True)
    return status
