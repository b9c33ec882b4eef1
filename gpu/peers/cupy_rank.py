#!/usr/bin/env python3
"""One CuPy rank of a peers job (gpu/peers.sh): a job whose other ranks are Java ranks of Collectives.

The rank forms its NCCL communicator with cupy.cuda.nccl.NcclCommunicator from a unique id passed through a file:
with --make-id FILE it makes the id (cupy.cuda.nccl.get_unique_id()) and writes its 256 hex digits to FILE; with
--id-file FILE it waits for that file, which a Java rank ('tools peers-rank --make-id FILE') or another Python rank
wrote. The ops and their checks are peer_job.py's. --print-nccl prints the file of the NCCL library that CuPy loaded,
for COLLECTIVES_NCCL_CCL_LIBRARY: the Java ranks must load the same NCCL.

Needs CuPy (14, on NCCL 2.28.9 from the nvidia-nccl-cu* package) and NumPy; device 0.
"""
import sys

import peer_job


class CupyPeer(peer_job.Peer):
    name = "cupy"

    def __init__(self):
        import cupy
        from cupy.cuda import nccl
        self.cupy, self.nccl = cupy, nccl
        cupy.cuda.Device(0).use()
        self.stream = None
        self.comm = None

    def nccl_file(self):
        self.nccl.get_version()  # the library is loaded by now
        return peer_job.loaded_nccl(peer_job.packaged_nccl)

    def unique_id(self):
        return bytes(b & 0xFF for b in self.nccl.get_unique_id())

    def join(self, size, raw, rank):
        try:
            self.comm = self.nccl.NcclCommunicator(size, raw, rank)  # CuPy 14 takes the id as 128 bytes
        except TypeError:  # older CuPy: a tuple of C chars, signed on x86-64
            self.comm = self.nccl.NcclCommunicator(size, tuple(b - 256 if b > 127 else b for b in raw), rank)
        self.stream = self.cupy.cuda.Stream(non_blocking=True)
        version = self.nccl.get_version()
        return "cupy %s, nccl %d.%d.%d from %s" % (self.cupy.__version__, version // 10000, version // 100 % 100,
                                                  version % 100, self.nccl_file())

    def empty(self, count):
        return self.cupy.empty(count, dtype=self.cupy.float32)

    def ptr(self, array, elements=0):
        return array.data.ptr + elements * peer_job.FLOAT_BYTES

    def put(self, array, host):
        array.set(host)
        self.cupy.cuda.Device(0).synchronize()

    def get(self, array):
        return array.get()

    def all_reduce(self, send, recv, count):
        self.comm.allReduce(send, recv, count, self.nccl.NCCL_FLOAT32, self.nccl.NCCL_SUM, self.stream.ptr)

    def all_gather(self, send, recv, count):
        self.comm.allGather(send, recv, count, self.nccl.NCCL_FLOAT32, self.stream.ptr)

    def reduce_scatter(self, send, recv, count):
        self.comm.reduceScatter(send, recv, count, self.nccl.NCCL_FLOAT32, self.nccl.NCCL_SUM, self.stream.ptr)

    def broadcast(self, send, recv, count, root):
        self.comm.broadcast(send, recv, count, self.nccl.NCCL_FLOAT32, root, self.stream.ptr)

    def synchronize(self):
        self.stream.synchronize()

    def destroy(self):
        if self.comm is not None:
            self.comm.destroy()


if __name__ == "__main__":
    sys.exit(peer_job.main(CupyPeer(), __doc__.splitlines()[0]))
