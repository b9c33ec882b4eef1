#!/usr/bin/env python3
"""One PyTorch rank of a peers job (gpu/peers.sh): a job whose other ranks are Java ranks of Collectives.

PyTorch's own torch.cuda.nccl.init_rank does not work with every build, so this rank reaches NCCL the way inference
engines do: the libnccl that PyTorch loaded, called through ctypes, on torch tensors' data_ptr() and a torch stream's
cuda_stream. The unique id comes through a file as in cupy_rank.py (--make-id FILE or --id-file FILE); the ops and
their checks are peer_job.py's. --print-nccl prints the NCCL file, for COLLECTIVES_NCCL_CCL_LIBRARY.

Needs PyTorch with CUDA and NumPy; device 0.
"""
import ctypes
import sys

import peer_job


class UniqueId(ctypes.Structure):
    """ncclUniqueId: 128 bytes, passed by value to ncclCommInitRank."""
    _fields_ = [("internal", ctypes.c_char * peer_job.UNIQUE_ID_BYTES)]


class Nccl:
    """The NCCL calls a rank needs, from nccl.h's prototypes; each raises with ncclGetErrorString on failure."""

    def __init__(self, path):
        lib = ctypes.CDLL(path)
        ptr, size_t, c_int = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int
        self.signatures = {
            "ncclGetVersion": [ctypes.POINTER(c_int)],
            "ncclGetUniqueId": [ctypes.POINTER(UniqueId)],
            "ncclCommInitRank": [ctypes.POINTER(ptr), c_int, UniqueId, c_int],
            "ncclAllReduce": [ptr, ptr, size_t, c_int, c_int, ptr, ptr],
            "ncclAllGather": [ptr, ptr, size_t, c_int, ptr, ptr],
            "ncclReduceScatter": [ptr, ptr, size_t, c_int, c_int, ptr, ptr],
            "ncclBroadcast": [ptr, ptr, size_t, c_int, c_int, ptr, ptr],
            "ncclCommDestroy": [ptr],
        }
        for name, argtypes in self.signatures.items():
            function = getattr(lib, name)
            function.argtypes, function.restype = argtypes, c_int
        lib.ncclGetErrorString.argtypes, lib.ncclGetErrorString.restype = [c_int], ctypes.c_char_p
        self.lib = lib

    def __call__(self, name, *args):
        result = getattr(self.lib, name)(*args)
        if result != 0:
            raise RuntimeError("%s failed: %d %s" % (name, result, self.lib.ncclGetErrorString(result).decode()))

    def version(self):
        version = ctypes.c_int()
        self("ncclGetVersion", ctypes.byref(version))
        return version.value


class TorchPeer(peer_job.Peer):
    name = "torch"

    def __init__(self):
        import torch
        self.torch = torch
        torch.cuda.set_device(0)
        self.nccl = Nccl(self.nccl_file())
        self.comm = None
        self.stream = None

    def nccl_file(self):
        return peer_job.loaded_nccl(peer_job.packaged_nccl)  # libtorch_cuda links libnccl: mapped once torch is in

    def unique_id(self):
        made = UniqueId()
        self.nccl("ncclGetUniqueId", ctypes.byref(made))
        return ctypes.string_at(ctypes.addressof(made), peer_job.UNIQUE_ID_BYTES)  # the field stops at a zero byte

    def join(self, size, raw, rank):
        given = UniqueId()
        ctypes.memmove(ctypes.addressof(given), raw, peer_job.UNIQUE_ID_BYTES)
        comm = ctypes.c_void_p()
        self.nccl("ncclCommInitRank", ctypes.byref(comm), size, given, rank)
        self.comm = comm
        self.stream = self.torch.cuda.Stream()
        version = self.nccl.version()
        return "torch %s, nccl %d.%d.%d from %s through ctypes" % (
            self.torch.__version__, version // 10000, version // 100 % 100, version % 100, self.nccl_file())

    def empty(self, count):
        return self.torch.empty(count, dtype=self.torch.float32, device="cuda")

    def ptr(self, array, elements=0):
        return array.data_ptr() + elements * peer_job.FLOAT_BYTES

    def put(self, array, host):
        array.copy_(self.torch.from_numpy(host))
        self.torch.cuda.synchronize()

    def get(self, array):
        return array.cpu().numpy()

    def on_stream(self):
        return ctypes.c_void_p(self.stream.cuda_stream)

    def all_reduce(self, send, recv, count):
        self.nccl("ncclAllReduce", send, recv, count, peer_job.NCCL_FLOAT32, peer_job.NCCL_SUM, self.comm,
                  self.on_stream())

    def all_gather(self, send, recv, count):
        self.nccl("ncclAllGather", send, recv, count, peer_job.NCCL_FLOAT32, self.comm, self.on_stream())

    def reduce_scatter(self, send, recv, count):
        self.nccl("ncclReduceScatter", send, recv, count, peer_job.NCCL_FLOAT32, peer_job.NCCL_SUM, self.comm,
                  self.on_stream())

    def broadcast(self, send, recv, count, root):
        self.nccl("ncclBroadcast", send, recv, count, peer_job.NCCL_FLOAT32, root, self.comm, self.on_stream())

    def synchronize(self):
        self.stream.synchronize()

    def destroy(self):
        if self.comm is not None:
            self.nccl("ncclCommDestroy", self.comm)


if __name__ == "__main__":
    sys.exit(peer_job.main(TorchPeer(), __doc__.splitlines()[0]))
