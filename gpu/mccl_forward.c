/*
 * Test fixture: a library that speaks the MCCL dialect (mccl*, musa*, mu*) by calling NCCL, CUDA runtime and
 * CUDA driver (nccl*, cuda*, cu*). Built on the GPU machine by gpu/run-all.sh and named as all three MCCL
 * libraries, so that the whole gpu suite runs with backend `mccl` on NVIDIA GPUs. Only the functions the
 * device backend resolves are forwarded; types are declared here from the public header facts (handles are
 * pointers, enums are ints), so no vendor header is needed.
 */
#include <stddef.h>
#include <stdlib.h>

typedef struct { char internal[128]; } uid_t128;
typedef void* ptr;
typedef unsigned long long u64;

#define FWD(ret, mccl, nccl, params, args) \
    extern ret nccl params;                 \
    __attribute__((visibility("default"))) ret mccl params { return nccl args; }

/* MCCL reads MCCL_* variables: hand them to NCCL under its names (unless set there) before NCCL's first init. */
static void mirror_environment(void) {
    static const char* const names[][2] = {
        {"MCCL_RUNTIME_CONNECT", "NCCL_RUNTIME_CONNECT"},
        {"MCCL_LEGACY_MUSA_REGISTER", "NCCL_LEGACY_CUDA_REGISTER"},
        {"MCCL_COLLNET_ENABLE", "NCCL_COLLNET_ENABLE"},
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const char* value = getenv(names[i][0]);
        if (value != NULL) setenv(names[i][1], value, 0);
    }
}
#define FWD_INIT(ret, mccl, nccl, params, args) \
    extern ret nccl params;                      \
    __attribute__((visibility("default"))) ret mccl params { mirror_environment(); return nccl args; }

/* collective library: mccl* -> nccl* (and the one irregular name, mcclCommMuDevice -> ncclCommCuDevice) */
#ifdef FIXTURE_VERSION
/* Reports FIXTURE_VERSION (e.g. 22809) as the MCCL version instead of NCCL's own, so that the backend's MCCL
 * version gates (registration, windows and config from 2.28.9) open over an NCCL 2.28.x that has those calls. */
__attribute__((visibility("default"))) int mcclGetVersion(int* v) { *v = FIXTURE_VERSION; return 0; }
#else
FWD(int, mcclGetVersion, ncclGetVersion, (int* v), (v))
#endif
FWD_INIT(int, mcclGetUniqueId, ncclGetUniqueId, (uid_t128* id), (id))
FWD_INIT(int, mcclCommInitRank, ncclCommInitRank, (ptr* c, int n, uid_t128 id, int r), (c, n, id, r))
FWD_INIT(int, mcclCommInitRankConfig, ncclCommInitRankConfig, (ptr* c, int n, uid_t128 id, int r, ptr cfg), (c, n, id, r, cfg))
FWD_INIT(int, mcclCommInitAll, ncclCommInitAll, (ptr* c, int n, const int* d), (c, n, d))
FWD(int, mcclCommSplit, ncclCommSplit, (ptr c, int color, int key, ptr* out, ptr cfg), (c, color, key, out, cfg))
FWD(int, mcclCommFinalize, ncclCommFinalize, (ptr c), (c))
FWD(int, mcclCommDestroy, ncclCommDestroy, (ptr c), (c))
FWD(int, mcclCommAbort, ncclCommAbort, (ptr c), (c))
FWD(int, mcclCommGetAsyncError, ncclCommGetAsyncError, (ptr c, int* e), (c, e))
FWD(const char*, mcclGetErrorString, ncclGetErrorString, (int rc), (rc))
FWD(const char*, mcclGetLastError, ncclGetLastError, (ptr c), (c))
FWD(int, mcclCommCount, ncclCommCount, (ptr c, int* n), (c, n))
FWD(int, mcclCommMuDevice, ncclCommCuDevice, (ptr c, int* d), (c, d))
FWD(int, mcclCommUserRank, ncclCommUserRank, (ptr c, int* r), (c, r))
FWD(int, mcclAllReduce, ncclAllReduce, (const void* s, void* r, size_t n, int t, int op, ptr c, ptr st), (s, r, n, t, op, c, st))
FWD(int, mcclBroadcast, ncclBroadcast, (const void* s, void* r, size_t n, int t, int root, ptr c, ptr st), (s, r, n, t, root, c, st))
FWD(int, mcclReduce, ncclReduce, (const void* s, void* r, size_t n, int t, int op, int root, ptr c, ptr st), (s, r, n, t, op, root, c, st))
FWD(int, mcclAllGather, ncclAllGather, (const void* s, void* r, size_t n, int t, ptr c, ptr st), (s, r, n, t, c, st))
FWD(int, mcclReduceScatter, ncclReduceScatter, (const void* s, void* r, size_t n, int t, int op, ptr c, ptr st), (s, r, n, t, op, c, st))
FWD(int, mcclSend, ncclSend, (const void* b, size_t n, int t, int peer, ptr c, ptr st), (b, n, t, peer, c, st))
FWD(int, mcclRecv, ncclRecv, (void* b, size_t n, int t, int peer, ptr c, ptr st), (b, n, t, peer, c, st))
FWD(int, mcclGroupStart, ncclGroupStart, (void), ())
FWD(int, mcclGroupEnd, ncclGroupEnd, (void), ())
FWD(int, mcclMemAlloc, ncclMemAlloc, (ptr* p, size_t n), (p, n))
FWD(int, mcclMemFree, ncclMemFree, (ptr p), (p))
FWD(int, mcclCommRegister, ncclCommRegister, (ptr c, ptr b, size_t n, ptr* h), (c, b, n, h))
FWD(int, mcclCommDeregister, ncclCommDeregister, (ptr c, ptr h), (c, h))
FWD(int, mcclCommWindowRegister, ncclCommWindowRegister, (ptr c, ptr b, size_t n, ptr* w, int f), (c, b, n, w, f))
FWD(int, mcclCommWindowDeregister, ncclCommWindowDeregister, (ptr c, ptr w), (c, w))
/* AlltoAll, Gather, Scatter, WinGetUserPtr and GetLsaDevicePointer are left out on purpose when NCCL lacks them (2.28): the
   backend must then report them absent. gpu/run-all.sh adds -DFORWARD_NEWER when NCCL exports them. */
#ifdef FORWARD_ALLTOALL
FWD(int, mcclAlltoAll, ncclAlltoAll, (const void* s, void* r, size_t n, int t, ptr c, ptr st), (s, r, n, t, c, st))
#endif
#ifdef FORWARD_GATHER_SCATTER
FWD(int, mcclGather, ncclGather, (const void* s, void* r, size_t n, int t, int root, ptr c, ptr st), (s, r, n, t, root, c, st))
FWD(int, mcclScatter, ncclScatter, (const void* s, void* r, size_t n, int t, int root, ptr c, ptr st), (s, r, n, t, root, c, st))
#endif
#ifdef FORWARD_WINDOW_HELPERS
FWD(int, mcclWinGetUserPtr, ncclWinGetUserPtr, (ptr c, ptr w, ptr* p), (c, w, p))
FWD(int, mcclGetLsaDevicePointer, ncclGetLsaDevicePointer, (ptr w, size_t o, int r, ptr* p), (w, o, r, p))
#endif

/* device runtime: musa* -> cuda* */
FWD(int, musaSetDevice, cudaSetDevice, (int d), (d))
FWD(int, musaGetDeviceCount, cudaGetDeviceCount, (int* n), (n))
FWD(int, musaMalloc, cudaMalloc, (ptr* p, size_t n), (p, n))
FWD(int, musaFree, cudaFree, (ptr p), (p))
FWD(int, musaMemcpy, cudaMemcpy, (void* d, const void* s, size_t n, int k), (d, s, n, k))
FWD(int, musaMallocHost, cudaMallocHost, (void** p, size_t n), (p, n))
FWD(int, musaFreeHost, cudaFreeHost, (void* p), (p))
FWD(int, musaHostGetDevicePointer, cudaHostGetDevicePointer, (void** d, void* h, unsigned f), (d, h, f))
FWD(int, musaMemGetInfo, cudaMemGetInfo, (size_t* f, size_t* t), (f, t))
FWD(int, musaDeviceSynchronize, cudaDeviceSynchronize, (void), ())
FWD(const char*, musaGetErrorString, cudaGetErrorString, (int rc), (rc))
FWD(int, musaStreamCreateWithFlags, cudaStreamCreateWithFlags, (ptr* s, unsigned f), (s, f))
FWD(int, musaStreamDestroy, cudaStreamDestroy, (ptr s), (s))
FWD(int, musaStreamSynchronize, cudaStreamSynchronize, (ptr s), (s))
FWD(int, musaStreamQuery, cudaStreamQuery, (ptr s), (s))
FWD(int, musaStreamBeginCapture, cudaStreamBeginCapture, (ptr s, int m), (s, m))
FWD(int, musaStreamEndCapture, cudaStreamEndCapture, (ptr s, ptr* g), (s, g))
FWD(int, musaStreamIsCapturing, cudaStreamIsCapturing, (ptr s, int* st), (s, st))
FWD(int, musaGraphInstantiateWithFlags, cudaGraphInstantiateWithFlags, (ptr* e, ptr g, u64 f), (e, g, f))
FWD(int, musaGraphLaunch, cudaGraphLaunch, (ptr e, ptr s), (e, s))
FWD(int, musaGraphExecDestroy, cudaGraphExecDestroy, (ptr e), (e))
FWD(int, musaGraphDestroy, cudaGraphDestroy, (ptr g), (g))
FWD(int, musaEventCreateWithFlags, cudaEventCreateWithFlags, (ptr* e, unsigned f), (e, f))
FWD(int, musaEventRecord, cudaEventRecord, (ptr e, ptr s), (e, s))
FWD(int, musaEventSynchronize, cudaEventSynchronize, (ptr e), (e))
FWD(int, musaEventElapsedTime, cudaEventElapsedTime, (float* ms, ptr a, ptr b), (ms, a, b))
FWD(int, musaEventDestroy, cudaEventDestroy, (ptr e), (e))

/* driver: mu* -> cu* */
FWD(int, muInit, cuInit, (unsigned f), (f))
FWD(int, muDeviceGetAttribute, cuDeviceGetAttribute, (int* v, int a, int d), (v, a, d))
FWD(int, muGetErrorString, cuGetErrorString, (int rc, const char** s), (rc, s))
FWD(int, muMemGetAllocationGranularity, cuMemGetAllocationGranularity, (size_t* g, const void* p, int o), (g, p, o))
FWD(int, muMemCreate, cuMemCreate, (u64* h, size_t n, const void* p, u64 f), (h, n, p, f))
FWD(int, muMemRelease, cuMemRelease, (u64 h), (h))
FWD(int, muMemAddressReserve, cuMemAddressReserve, (u64* a, size_t n, size_t al, u64 addr, u64 f), (a, n, al, addr, f))
FWD(int, muMemAddressFree, cuMemAddressFree, (u64 a, size_t n), (a, n))
FWD(int, muMemMap, cuMemMap, (u64 a, size_t n, size_t o, u64 h, u64 f), (a, n, o, h, f))
FWD(int, muMemUnmap, cuMemUnmap, (u64 a, size_t n), (a, n))
FWD(int, muMemSetAccess, cuMemSetAccess, (u64 a, size_t n, const void* d, size_t c), (a, n, d, c))
