// The native shim of the device backends (mccl, nccl). It includes no vendor header and links no vendor library:
// the libraries are opened with dlopen() at run time and every function is resolved by name into a slot of
// cx_lib. The Java side (Dialect.java) turns each slot's generic name into the dialect's symbol name.
//
// Types and prototypes below are declared from the public facts of NCCL's and CUDA's headers (MCCL and MUSA
// mirror them one for one): handles are pointers, enums are ints, ncclUniqueId is 128 bytes.
// All functions return the library's result code (0 = success); outputs go through jlong arrays, so hot calls
// take only primitives and allocate nothing.
#ifndef COLLECTIVES_DEVICE_H
#define COLLECTIVES_DEVICE_H

#include <dlfcn.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// The three libraries of a dialect.
#define CX_CCL 0 /* libnccl.so.2 / libmccl.so */
#define CX_RT 1  /* libcudart / libmusart */
#define CX_DRV 2 /* libcuda.so.1 / libmusa.so */

// One row per function: slot, library, generic name ("ccl"/"rt"/"drv" prefix replaced by the dialect's), and
// whether the backend can work without it (optional functions are capabilities).
#define CX_SYMBOLS(X)                                                          \
    X(GET_VERSION, CX_CCL, "GetVersion", 1)                                    \
    X(GET_UNIQUE_ID, CX_CCL, "GetUniqueId", 1)                                 \
    X(COMM_INIT_RANK, CX_CCL, "CommInitRank", 1)                               \
    X(COMM_INIT_RANK_CONFIG, CX_CCL, "CommInitRankConfig", 0)                  \
    X(COMM_INIT_ALL, CX_CCL, "CommInitAll", 1)                                 \
    X(COMM_SPLIT, CX_CCL, "CommSplit", 0)                                      \
    X(COMM_FINALIZE, CX_CCL, "CommFinalize", 1)                                \
    X(COMM_DESTROY, CX_CCL, "CommDestroy", 1)                                  \
    X(COMM_ABORT, CX_CCL, "CommAbort", 1)                                      \
    X(COMM_GET_ASYNC_ERROR, CX_CCL, "CommGetAsyncError", 1)                    \
    X(GET_ERROR_STRING, CX_CCL, "GetErrorString", 1)                           \
    X(GET_LAST_ERROR, CX_CCL, "GetLastError", 0)                               \
    X(COMM_COUNT, CX_CCL, "CommCount", 1)                                      \
    X(COMM_DEVICE, CX_CCL, "CommDevice", 1)                                    \
    X(COMM_USER_RANK, CX_CCL, "CommUserRank", 1)                               \
    X(ALL_REDUCE, CX_CCL, "AllReduce", 1)                                      \
    X(BROADCAST, CX_CCL, "Broadcast", 1)                                       \
    X(REDUCE, CX_CCL, "Reduce", 1)                                             \
    X(ALL_GATHER, CX_CCL, "AllGather", 1)                                      \
    X(REDUCE_SCATTER, CX_CCL, "ReduceScatter", 1)                              \
    X(ALL_TO_ALL, CX_CCL, "AlltoAll", 0)                                       \
    X(SEND, CX_CCL, "Send", 1)                                                 \
    X(RECV, CX_CCL, "Recv", 1)                                                 \
    X(GROUP_START, CX_CCL, "GroupStart", 1)                                    \
    X(GROUP_END, CX_CCL, "GroupEnd", 1)                                        \
    X(MEM_ALLOC, CX_CCL, "MemAlloc", 1)                                        \
    X(MEM_FREE, CX_CCL, "MemFree", 1)                                          \
    X(COMM_REGISTER, CX_CCL, "CommRegister", 1)                                \
    X(COMM_DEREGISTER, CX_CCL, "CommDeregister", 1)                            \
    X(WINDOW_REGISTER, CX_CCL, "CommWindowRegister", 0)                        \
    X(WINDOW_DEREGISTER, CX_CCL, "CommWindowDeregister", 0)                    \
    X(WIN_GET_USER_PTR, CX_CCL, "WinGetUserPtr", 0)                            \
    X(GET_LSA_DEVICE_POINTER, CX_CCL, "GetLsaDevicePointer", 0)                \
    X(RT_SET_DEVICE, CX_RT, "SetDevice", 1)                                    \
    X(RT_GET_DEVICE_COUNT, CX_RT, "GetDeviceCount", 1)                         \
    X(RT_MALLOC, CX_RT, "Malloc", 1)                                           \
    X(RT_FREE, CX_RT, "Free", 1)                                               \
    X(RT_MEMCPY, CX_RT, "Memcpy", 1)                                           \
    X(RT_MEM_GET_INFO, CX_RT, "MemGetInfo", 1)                                 \
    X(RT_DEVICE_SYNCHRONIZE, CX_RT, "DeviceSynchronize", 1)                    \
    X(RT_GET_ERROR_STRING, CX_RT, "GetErrorString", 1)                         \
    X(RT_STREAM_CREATE_WITH_FLAGS, CX_RT, "StreamCreateWithFlags", 1)          \
    X(RT_STREAM_DESTROY, CX_RT, "StreamDestroy", 1)                            \
    X(RT_STREAM_SYNCHRONIZE, CX_RT, "StreamSynchronize", 1)                    \
    X(RT_STREAM_QUERY, CX_RT, "StreamQuery", 1)                                \
    X(RT_STREAM_BEGIN_CAPTURE, CX_RT, "StreamBeginCapture", 1)                 \
    X(RT_STREAM_END_CAPTURE, CX_RT, "StreamEndCapture", 1)                     \
    X(RT_STREAM_IS_CAPTURING, CX_RT, "StreamIsCapturing", 1)                   \
    X(RT_GRAPH_INSTANTIATE_WITH_FLAGS, CX_RT, "GraphInstantiateWithFlags", 1)  \
    X(RT_GRAPH_LAUNCH, CX_RT, "GraphLaunch", 1)                                \
    X(RT_GRAPH_EXEC_DESTROY, CX_RT, "GraphExecDestroy", 1)                     \
    X(RT_GRAPH_DESTROY, CX_RT, "GraphDestroy", 1)                              \
    X(RT_EVENT_CREATE_WITH_FLAGS, CX_RT, "EventCreateWithFlags", 0)            \
    X(RT_EVENT_RECORD, CX_RT, "EventRecord", 0)                                \
    X(RT_EVENT_SYNCHRONIZE, CX_RT, "EventSynchronize", 0)                      \
    X(RT_EVENT_ELAPSED_TIME, CX_RT, "EventElapsedTime", 0)                     \
    X(RT_EVENT_DESTROY, CX_RT, "EventDestroy", 0)                              \
    X(DRV_INIT, CX_DRV, "Init", 1)                                             \
    X(DRV_DEVICE_GET_ATTRIBUTE, CX_DRV, "DeviceGetAttribute", 1)               \
    X(DRV_GET_ERROR_STRING, CX_DRV, "GetErrorString", 1)                       \
    X(DRV_MEM_GET_ALLOCATION_GRANULARITY, CX_DRV, "MemGetAllocationGranularity", 1) \
    X(DRV_MEM_CREATE, CX_DRV, "MemCreate", 1)                                  \
    X(DRV_MEM_RELEASE, CX_DRV, "MemRelease", 1)                                \
    X(DRV_MEM_ADDRESS_RESERVE, CX_DRV, "MemAddressReserve", 1)                 \
    X(DRV_MEM_ADDRESS_FREE, CX_DRV, "MemAddressFree", 1)                       \
    X(DRV_MEM_MAP, CX_DRV, "MemMap", 1)                                        \
    X(DRV_MEM_UNMAP, CX_DRV, "MemUnmap", 1)                                    \
    X(DRV_MEM_SET_ACCESS, CX_DRV, "MemSetAccess", 1)                           \
    X(RT_EVENT_QUERY, CX_RT, "EventQuery", 0)                                  \
    X(RT_STREAM_WAIT_EVENT, CX_RT, "StreamWaitEvent", 0)                       \
    X(RT_MALLOC_HOST, CX_RT, "MallocHost", 0)                                  \
    X(RT_FREE_HOST, CX_RT, "FreeHost", 0)                                      \
    X(RT_MALLOC_MANAGED, CX_RT, "MallocManaged", 0)                            \
    X(DRV_POINTER_GET_ATTRIBUTES, CX_DRV, "PointerGetAttributes", 0)           \
    X(DRV_MEM_GET_ADDRESS_RANGE, CX_DRV, "MemGetAddressRange_v2", 0)           \
    X(DRV_MEM_RETAIN_ALLOCATION_HANDLE, CX_DRV, "MemRetainAllocationHandle", 0) \
    X(DRV_MEM_GET_ALLOCATION_PROPERTIES_FROM_HANDLE, CX_DRV, "MemGetAllocationPropertiesFromHandle", 0) \
    X(COMM_SHRINK, CX_CCL, "CommShrink", 0)                                    \
    X(RT_HOST_GET_DEVICE_POINTER, CX_RT, "HostGetDevicePointer", 0)            \
    X(COMM_REVOKE, CX_CCL, "CommRevoke", 0)                                    \
    X(GATHER, CX_CCL, "Gather", 0)                                             \
    X(SCATTER, CX_CCL, "Scatter", 0)                                           \
    X(COMM_GET_UNIQUE_ID, CX_CCL, "CommGetUniqueId", 0)                        \
    X(COMM_GROW, CX_CCL, "CommGrow", 0)

#define CX_SLOT_ENUM(slot, library, name, required) CX_##slot,
enum { CX_SYMBOLS(CX_SLOT_ENUM) CX_SLOT_COUNT };
#undef CX_SLOT_ENUM

struct cx_symbol { int library; const char* name; int required; };
#define CX_SLOT_ROW(slot, library, name, required) { library, name, required },
static const cx_symbol cx_symbols[CX_SLOT_COUNT] = { CX_SYMBOLS(CX_SLOT_ROW) };
#undef CX_SLOT_ROW

struct cx_lib {
    void* handles[3];
    void* fn[CX_SLOT_COUNT];
};

struct cx_unique_id { char internal[128]; };

// ncclConfig_t as of 2.28 (v22800); older layouts are prefixes of it and `size` says how much is passed.
struct cx_config {
    size_t size;
    unsigned int magic;
    unsigned int version;
    int blocking;
    int cgaClusterSize;
    int minCTAs;
    int maxCTAs;
    const char* netName;
    int splitShare;
    int trafficClass;
    const char* commName;
    int collnetEnable;
    int CTAPolicy;
    int shrinkShare;
    int nvlsCTAs;
    int nChannelsPerNetPeer;
    int nvlinkCentricSched;
};

// CUmemAllocationProp / CUmemAccessDesc (driver VMM API).
struct cx_mem_location { int type; int id; };
struct cx_mem_prop {
    int type;
    int requestedHandleTypes;
    cx_mem_location location;
    void* win32HandleMetaData;
    unsigned char compressionType;
    unsigned char gpuDirectRDMACapable;
    unsigned short usage;
    unsigned char reserved[4];
};
struct cx_mem_access { cx_mem_location location; int flags; };

#define CX_MEM_ALLOCATION_TYPE_PINNED 1
#define CX_MEM_LOCATION_TYPE_DEVICE 1
#define CX_MEM_ACCESS_READWRITE 3
#define CX_GRANULARITY_RECOMMENDED 1
#define CX_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED 128
#define CX_HANDLE_TYPE_FABRIC 0x8
// CUpointer_attribute and CUmemorytype values used to classify foreign memory.
#define CX_POINTER_ATTRIBUTE_MEMORY_TYPE 2
#define CX_POINTER_ATTRIBUTE_IS_MANAGED 8
#define CX_POINTER_ATTRIBUTE_DEVICE_ORDINAL 9
#define CX_MEMORYTYPE_HOST 1
#define CX_MEMORYTYPE_DEVICE 2

#define CX_CALL(lib, slot, type) ((type)((cx_lib*)(intptr_t)(lib))->fn[CX_##slot])
#define CX_PTR(x) ((void*)(intptr_t)(x))

// ---- opening -----------------------------------------------------------------------------------------------

static inline int cx_slot_count() { return CX_SLOT_COUNT; }
static inline int cx_slot_library(int slot) { return cx_symbols[slot].library; }
static inline const char* cx_slot_name(int slot) { return cx_symbols[slot].name; }
static inline int cx_slot_required(int slot) { return cx_symbols[slot].required; }

static inline jlong cx_new() { return (jlong)(intptr_t)calloc(1, sizeof(cx_lib)); }

/** Opens one library; NULL on success, else dlerror()'s text. */
static inline const char* cx_open(jlong lib, jint library, const char* path) {
    void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char* why = dlerror();
        return why != NULL ? why : "dlopen failed";
    }
    ((cx_lib*)(intptr_t)lib)->handles[library] = handle;
    return NULL;
}

/** Resolves `slot` as `symbol` in its library; 1 when found. */
static inline jint cx_bind(jlong lib, jint slot, const char* symbol) {
    cx_lib* l = (cx_lib*)(intptr_t)lib;
    void* handle = l->handles[cx_symbols[slot].library];
    l->fn[slot] = handle == NULL ? NULL : dlsym(handle, symbol);
    return l->fn[slot] != NULL;
}

/** setenv(name, value) unless the variable is set already: library settings made before its first use. */
static inline void cx_setenv_default(const char* name, const char* value) { setenv(name, value, 0); }

static inline jint cx_has(jlong lib, jint slot) { return ((cx_lib*)(intptr_t)lib)->fn[slot] != NULL; }

/** Closes the libraries of a failed open and frees the table. */
static inline void cx_discard(jlong lib) {
    cx_lib* l = (cx_lib*)(intptr_t)lib;
    for (int i = 0; i < 3; i++) {
        if (l->handles[i] != NULL) dlclose(l->handles[i]);
    }
    free(l);
}

// ---- errors ------------------------------------------------------------------------------------------------

static inline const char* cx_ccl_error_string(jlong lib, jint code) {
    return CX_CALL(lib, GET_ERROR_STRING, const char* (*)(int))(code);
}

static inline const char* cx_ccl_last_error(jlong lib, jlong comm) {
    if (!cx_has(lib, CX_GET_LAST_ERROR)) return "";
    const char* s = CX_CALL(lib, GET_LAST_ERROR, const char* (*)(void*))(CX_PTR(comm));
    return s != NULL ? s : "";
}

static inline const char* cx_rt_error_string(jlong lib, jint code) {
    return CX_CALL(lib, RT_GET_ERROR_STRING, const char* (*)(int))(code);
}

static inline const char* cx_drv_error_string(jlong lib, jint code) {
    const char* s = NULL;
    CX_CALL(lib, DRV_GET_ERROR_STRING, int (*)(int, const char**))(code, &s);
    return s != NULL ? s : "unknown driver error";
}

// ---- communicators -----------------------------------------------------------------------------------------

static inline jint cx_get_version(jlong lib, jint* version) {
    return CX_CALL(lib, GET_VERSION, int (*)(int*))(version);
}

static inline jint cx_get_unique_id(jlong lib, jbyte* id) {
    return CX_CALL(lib, GET_UNIQUE_ID, int (*)(cx_unique_id*))((cx_unique_id*)id);
}

static inline void cx_config_defaults(cx_config* c, size_t size, unsigned int version) {
    memset(c, 0, sizeof(*c));
    c->size = size;
    c->magic = 0xcafebeef;
    c->version = version;
    c->blocking = c->cgaClusterSize = c->minCTAs = c->maxCTAs = INT_MIN;
    c->splitShare = c->trafficClass = c->collnetEnable = c->CTAPolicy = INT_MIN;
    c->shrinkShare = c->nvlsCTAs = c->nChannelsPerNetPeer = c->nvlinkCentricSched = INT_MIN;
}

/**
 * ncclCommInitRankConfig with a config laid out as of `layoutVersion` (22700: up to nvlsCTAs, 22800: up to
 * nvlinkCentricSched); INT_MIN leaves a field to the library. Without a layout (0), plain ncclCommInitRank.
 * A non-blocking init stores the communicator into `comm` again when it completes, from the library's thread: `comm`
 * is native memory the caller keeps until then (a LongPointer), as for every out-parameter below that the library
 * may fill late (split, shrink, window register).
 */
static inline jint cx_comm_init_rank(jlong lib, jlong* comm, jint nranks, jbyte* id, jint rank, jint layoutVersion,
                                     jint blocking, jint collnetEnable, jint ctaPolicy, jint minCtas, jint maxCtas) {
    cx_unique_id uid;
    memcpy(&uid, id, sizeof(uid));
    void** c = (void**)comm;
    int rc;
    if (layoutVersion == 0) {
        rc = CX_CALL(lib, COMM_INIT_RANK, int (*)(void**, int, cx_unique_id, int))(c, nranks, uid, rank);
    } else {
        cx_config config;
        size_t size = layoutVersion >= 22800 ? sizeof(cx_config) : offsetof(cx_config, nChannelsPerNetPeer);
        cx_config_defaults(&config, size, (unsigned int)layoutVersion);
        config.blocking = blocking;
        config.collnetEnable = collnetEnable;
        config.CTAPolicy = ctaPolicy;
        config.minCTAs = minCtas;
        config.maxCTAs = maxCtas;
        rc = CX_CALL(lib, COMM_INIT_RANK_CONFIG, int (*)(void**, int, cx_unique_id, int, cx_config*))(
            c, nranks, uid, rank, &config);
    }
    return rc;
}

static inline jint cx_comm_init_all(jlong lib, jlong* comms, jint ndev, jint* devices) {
    void* c[64];
    if (ndev > 64) return 4;
    int rc = CX_CALL(lib, COMM_INIT_ALL, int (*)(void**, int, const int*))(c, ndev, (const int*)devices);
    for (int i = 0; i < ndev; i++) comms[i] = rc == 0 ? (jlong)(intptr_t)c[i] : 0;
    return rc;
}

/**
 * ncclCommSplit. Inside a group, or on a non-blocking communicator, the library stores the new communicator into
 * `out` when the split completes, after this call returned: `out` is native memory the caller keeps until then (a
 * LongPointer), never a stack slot or a copy of a Java array (a store into a dead stack frame was the "stack smashing
 * detected" abort after a grouped split).
 */
static inline jint cx_comm_split(jlong lib, jlong comm, jint color, jint key, jlong* out) {
    return CX_CALL(lib, COMM_SPLIT, int (*)(void*, int, int, void**, void*))(CX_PTR(comm), color, key,
                                                                             (void**)out, NULL);
}

/**
 * ncclCommShrink (NCCL 2.27 and later): the parent's ranks but the `count` ranks of `excluded`, with the parent's
 * config (NULL); `flags` is NCCL_SHRINK_DEFAULT (0) or NCCL_SHRINK_ABORT (1, stop the parent's pending work first).
 */
static inline jint cx_comm_shrink(jlong lib, jlong comm, jint* excluded, jint count, jlong* out, jint flags) {
    return CX_CALL(lib, COMM_SHRINK, int (*)(void*, int*, int, void**, void*, int))(CX_PTR(comm), (int*)excluded,
                                                                                  count, (void**)out, NULL, flags);
}

/**
 * ncclCommRevoke (NCCL 2.28 and later): stops the communicator's operations in flight and quiesces it, without
 * freeing it; it can then be shrunk or destroyed (not finalized). `flags` is NCCL_REVOKE_DEFAULT (0).
 */
static inline jint cx_comm_revoke(jlong lib, jlong comm, jint flags) {
    return CX_CALL(lib, COMM_REVOKE, int (*)(void*, int))(CX_PTR(comm), flags);
}

/**
 * ncclCommGetUniqueId (NCCL 2.29 and later): on rank 0 of `comm`, the id of its next grow, which the new ranks join
 * with; it is consumed by the grow.
 */
static inline jint cx_comm_get_unique_id(jlong lib, jlong comm, jbyte* id) {
    return CX_CALL(lib, COMM_GET_UNIQUE_ID, int (*)(void*, cx_unique_id*))(CX_PTR(comm), (cx_unique_id*)id);
}

/**
 * ncclCommGrow (NCCL 2.29 and later): the communicator of `nranks` that `comm`'s ranks (with rank -1; only its rank 0
 * passes the id, `hasId`) and the new ranks (`comm` 0, with their `rank` and the id) form, with the parent's config
 * (NULL). The parent must be idle. Like an init, it stores the communicator into `out` again when it completes: `out`
 * is native memory the caller keeps until then.
 */
static inline jint cx_comm_grow(jlong lib, jlong comm, jint nranks, jbyte* id, jint hasId, jint rank, jlong* out) {
    cx_unique_id uid;
    memcpy(&uid, id, sizeof(uid));
    return CX_CALL(lib, COMM_GROW, int (*)(void*, int, const cx_unique_id*, int, void**, void*))(
        CX_PTR(comm), nranks, hasId ? &uid : NULL, rank, (void**)out, NULL);
}

static inline jint cx_comm_finalize(jlong lib, jlong comm) {
    return CX_CALL(lib, COMM_FINALIZE, int (*)(void*))(CX_PTR(comm));
}
static inline jint cx_comm_destroy(jlong lib, jlong comm) {
    return CX_CALL(lib, COMM_DESTROY, int (*)(void*))(CX_PTR(comm));
}
static inline jint cx_comm_abort(jlong lib, jlong comm) {
    return CX_CALL(lib, COMM_ABORT, int (*)(void*))(CX_PTR(comm));
}
/** Returns the call's code; the asynchronous error lands in *error. */
static inline jint cx_comm_async_error(jlong lib, jlong comm, jint* error) {
    return CX_CALL(lib, COMM_GET_ASYNC_ERROR, int (*)(void*, int*))(CX_PTR(comm), error);
}
static inline jint cx_comm_count(jlong lib, jlong comm, jint* out) {
    return CX_CALL(lib, COMM_COUNT, int (*)(void*, int*))(CX_PTR(comm), out);
}
static inline jint cx_comm_device(jlong lib, jlong comm, jint* out) {
    return CX_CALL(lib, COMM_DEVICE, int (*)(void*, int*))(CX_PTR(comm), out);
}
static inline jint cx_comm_user_rank(jlong lib, jlong comm, jint* out) {
    return CX_CALL(lib, COMM_USER_RANK, int (*)(void*, int*))(CX_PTR(comm), out);
}

// ---- collectives and point to point (hot) -----------------------------------------------------------------
// One entry for every op, which picks the library's function by the op's number, as the library's own enqueue
// picks its kernel. The numbers are the ops' places in the Java catalogue (OpKind), in its order. A send reads
// only `send`, a receive writes only `recv`; `op` is read where the op reduces, `peer` (the root, or the peer of
// a send or receive) where it has one.
#define CX_OP_ALL_REDUCE 0
#define CX_OP_BROADCAST 1
#define CX_OP_REDUCE 2
#define CX_OP_ALL_GATHER 3
#define CX_OP_REDUCE_SCATTER 4
#define CX_OP_ALL_TO_ALL 5
#define CX_OP_GATHER 6
#define CX_OP_SCATTER 7
#define CX_OP_SEND 8
#define CX_OP_RECV 9

#define CX_INVALID_ARGUMENT 4 /* ncclInvalidArgument */

static inline jint cx_collective(jlong lib, jint kind, jlong send, jlong recv, jlong count, jint type, jint op,
                                 jint peer, jlong comm, jlong stream) {
    const void* s = CX_PTR(send);
    void* r = CX_PTR(recv);
    size_t n = (size_t)count;
    void* c = CX_PTR(comm);
    void* st = CX_PTR(stream);
    switch (kind) {
        case CX_OP_ALL_REDUCE:
            return CX_CALL(lib, ALL_REDUCE, int (*)(const void*, void*, size_t, int, int, void*, void*))(
                s, r, n, type, op, c, st);
        case CX_OP_BROADCAST:
            return CX_CALL(lib, BROADCAST, int (*)(const void*, void*, size_t, int, int, void*, void*))(
                s, r, n, type, peer, c, st);
        case CX_OP_REDUCE:
            return CX_CALL(lib, REDUCE, int (*)(const void*, void*, size_t, int, int, int, void*, void*))(
                s, r, n, type, op, peer, c, st);
        case CX_OP_ALL_GATHER:
            return CX_CALL(lib, ALL_GATHER, int (*)(const void*, void*, size_t, int, void*, void*))(
                s, r, n, type, c, st);
        case CX_OP_REDUCE_SCATTER:
            return CX_CALL(lib, REDUCE_SCATTER, int (*)(const void*, void*, size_t, int, int, void*, void*))(
                s, r, n, type, op, c, st);
        case CX_OP_ALL_TO_ALL:
            return CX_CALL(lib, ALL_TO_ALL, int (*)(const void*, void*, size_t, int, void*, void*))(
                s, r, n, type, c, st);
        case CX_OP_GATHER:
            return CX_CALL(lib, GATHER, int (*)(const void*, void*, size_t, int, int, void*, void*))(
                s, r, n, type, peer, c, st);
        case CX_OP_SCATTER:
            return CX_CALL(lib, SCATTER, int (*)(const void*, void*, size_t, int, int, void*, void*))(
                s, r, n, type, peer, c, st);
        case CX_OP_SEND:
            return CX_CALL(lib, SEND, int (*)(const void*, size_t, int, int, void*, void*))(s, n, type, peer, c, st);
        case CX_OP_RECV:
            return CX_CALL(lib, RECV, int (*)(void*, size_t, int, int, void*, void*))(r, n, type, peer, c, st);
        default:
            return CX_INVALID_ARGUMENT;
    }
}
static inline jint cx_group_start(jlong lib) { return CX_CALL(lib, GROUP_START, int (*)())(); }
static inline jint cx_group_end(jlong lib) { return CX_CALL(lib, GROUP_END, int (*)())(); }

// ---- memory and registration -------------------------------------------------------------------------------

static inline jint cx_set_device(jlong lib, jint device) {
    return CX_CALL(lib, RT_SET_DEVICE, int (*)(int))(device);
}
static inline jint cx_device_attribute(jlong lib, jint device, jint attribute, jint* out) {
    return CX_CALL(lib, DRV_DEVICE_GET_ATTRIBUTE, int (*)(int*, int, int))(out, attribute, device);
}
static inline jint cx_device_count(jlong lib, jint* out) {
    return CX_CALL(lib, RT_GET_DEVICE_COUNT, int (*)(int*))(out);
}
/** cudaMemGetInfo on `device`: out[0] free, out[1] total. */
static inline jint cx_mem_get_info(jlong lib, jint device, jlong* out) {
    int rc = cx_set_device(lib, device);
    if (rc != 0) return rc;
    size_t freeBytes = 0, total = 0;
    rc = CX_CALL(lib, RT_MEM_GET_INFO, int (*)(size_t*, size_t*))(&freeBytes, &total);
    out[0] = (jlong)freeBytes;
    out[1] = (jlong)total;
    return rc;
}
static inline jint cx_mem_alloc(jlong lib, jint device, jlong bytes, jlong* out) {
    int rc = cx_set_device(lib, device);
    if (rc != 0) return rc;
    void* p = NULL;
    rc = CX_CALL(lib, MEM_ALLOC, int (*)(void**, size_t))(&p, (size_t)bytes);
    *out = (jlong)(intptr_t)p;
    return rc;
}
static inline jint cx_mem_free(jlong lib, jint device, jlong address) {
    int rc = cx_set_device(lib, device);
    return rc != 0 ? rc : CX_CALL(lib, MEM_FREE, int (*)(void*))(CX_PTR(address));
}
static inline jint cx_rt_malloc(jlong lib, jint device, jlong bytes, jlong* out) {
    int rc = cx_set_device(lib, device);
    if (rc != 0) return rc;
    void* p = NULL;
    rc = CX_CALL(lib, RT_MALLOC, int (*)(void**, size_t))(&p, (size_t)bytes);
    *out = (jlong)(intptr_t)p;
    return rc;
}
static inline jint cx_rt_free(jlong lib, jint device, jlong address) {
    int rc = cx_set_device(lib, device);
    return rc != 0 ? rc : CX_CALL(lib, RT_FREE, int (*)(void*))(CX_PTR(address));
}
/**
 * cudaMemcpy with kind cudaMemcpyDefault (4): direction from the addresses. From pageable host memory it may return
 * before the data reaches the device, and the backends' streams do not wait for the legacy stream that carries it:
 * so the legacy stream is synchronized before returning, and an op enqueued next reads the copied data.
 */
static inline jint cx_memcpy(jlong lib, jint device, jlong dst, jlong src, jlong bytes) {
    int rc = cx_set_device(lib, device);
    if (rc == 0) {
        rc = CX_CALL(lib, RT_MEMCPY, int (*)(void*, const void*, size_t, int))(CX_PTR(dst), CX_PTR(src),
                                                                              (size_t)bytes, 4);
    }
    return rc != 0 ? rc : CX_CALL(lib, RT_STREAM_SYNCHRONIZE, int (*)(void*))(NULL);
}
static inline jint cx_comm_register(jlong lib, jlong comm, jlong address, jlong bytes, jlong* handle) {
    void* h = NULL;
    int rc = CX_CALL(lib, COMM_REGISTER, int (*)(void*, void*, size_t, void**))(CX_PTR(comm), CX_PTR(address),
                                                                                (size_t)bytes, &h);
    *handle = (jlong)(intptr_t)h;
    return rc;
}
static inline jint cx_comm_deregister(jlong lib, jlong comm, jlong handle) {
    return CX_CALL(lib, COMM_DEREGISTER, int (*)(void*, void*))(CX_PTR(comm), CX_PTR(handle));
}
static inline jint cx_window_register(jlong lib, jlong comm, jlong address, jlong bytes, jint flags, jlong* win) {
    return CX_CALL(lib, WINDOW_REGISTER, int (*)(void*, void*, size_t, void**, int))(CX_PTR(comm), CX_PTR(address),
                                                                                   (size_t)bytes, (void**)win, flags);
}
static inline jint cx_window_deregister(jlong lib, jlong comm, jlong win) {
    return CX_CALL(lib, WINDOW_DEREGISTER, int (*)(void*, void*))(CX_PTR(comm), CX_PTR(win));
}
static inline jint cx_win_get_user_ptr(jlong lib, jlong comm, jlong win, jlong* out) {
    void* p = NULL;
    int rc = CX_CALL(lib, WIN_GET_USER_PTR, int (*)(void*, void*, void**))(CX_PTR(comm), CX_PTR(win), &p);
    *out = (jlong)(intptr_t)p;
    return rc;
}
static inline jint cx_get_lsa_device_pointer(jlong lib, jlong win, jlong offset, jint lsaRank, jlong* out) {
    void* p = NULL;
    int rc = CX_CALL(lib, GET_LSA_DEVICE_POINTER, int (*)(void*, size_t, int, void**))(CX_PTR(win), (size_t)offset,
                                                                                       lsaRank, &p);
    *out = (jlong)(intptr_t)p;
    return rc;
}

// ---- VMM through the driver API (negative results name the failing step: -1 create, -2 reserve, -3 map,
//      -4 set access; the driver's code is then in out[2]) ----------------------------------------------------

static inline void cx_mem_prop_for(cx_mem_prop* prop, jint device, jint handleTypes) {
    memset(prop, 0, sizeof(*prop));
    prop->type = CX_MEM_ALLOCATION_TYPE_PINNED;
    prop->requestedHandleTypes = handleTypes;
    prop->location.type = CX_MEM_LOCATION_TYPE_DEVICE;
    prop->location.id = device;
}

static inline jint cx_vmm_granularity(jlong lib, jint device, jint handleTypes, jlong* out) {
    int rc = cx_set_device(lib, device);
    if (rc != 0) return rc;
    cx_mem_prop prop;
    cx_mem_prop_for(&prop, device, handleTypes);
    size_t g = 0;
    rc = CX_CALL(lib, DRV_MEM_GET_ALLOCATION_GRANULARITY, int (*)(size_t*, const cx_mem_prop*, int))(
        &g, &prop, CX_GRANULARITY_RECOMMENDED);
    *out = (jlong)g;
    return rc;
}

/** 1 when the device reports FABRIC handles and a FABRIC allocation of one granule can be made, else 0. */
static inline jint cx_vmm_fabric_supported(jlong lib, jint device) {
    if (cx_set_device(lib, device) != 0) return 0;
    int attribute = 0;
    if (CX_CALL(lib, DRV_DEVICE_GET_ATTRIBUTE, int (*)(int*, int, int))(
            &attribute, CX_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, device) != 0 || attribute == 0) {
        return 0;
    }
    jlong granularity = 0;
    if (cx_vmm_granularity(lib, device, CX_HANDLE_TYPE_FABRIC, &granularity) != 0 || granularity == 0) return 0;
    cx_mem_prop prop;
    cx_mem_prop_for(&prop, device, CX_HANDLE_TYPE_FABRIC);
    unsigned long long handle = 0;
    if (CX_CALL(lib, DRV_MEM_CREATE, int (*)(unsigned long long*, size_t, const cx_mem_prop*, unsigned long long))(
            &handle, (size_t)granularity, &prop, 0) != 0) {
        return 0;
    }
    CX_CALL(lib, DRV_MEM_RELEASE, int (*)(unsigned long long))(handle);
    return 1;
}

/** out[0] address, out[1] allocation handle, out[2] the driver's code of a failing step. */
static inline jint cx_vmm_map(jlong lib, jint device, jlong physical, jlong reserved, jlong alignment,
                              jint handleTypes, jlong* out) {
    int rc = cx_set_device(lib, device);
    if (rc != 0) { out[2] = rc; return -1; }
    cx_mem_prop prop;
    cx_mem_prop_for(&prop, device, handleTypes);
    unsigned long long handle = 0, address = 0;
    rc = CX_CALL(lib, DRV_MEM_CREATE, int (*)(unsigned long long*, size_t, const cx_mem_prop*, unsigned long long))(
        &handle, (size_t)physical, &prop, 0);
    if (rc != 0) { out[2] = rc; return -1; }
    rc = CX_CALL(lib, DRV_MEM_ADDRESS_RESERVE,
                 int (*)(unsigned long long*, size_t, size_t, unsigned long long, unsigned long long))(
        &address, (size_t)reserved, (size_t)alignment, 0, 0);
    if (rc != 0) {
        CX_CALL(lib, DRV_MEM_RELEASE, int (*)(unsigned long long))(handle);
        out[2] = rc;
        return -2;
    }
    rc = CX_CALL(lib, DRV_MEM_MAP, int (*)(unsigned long long, size_t, size_t, unsigned long long,
                                          unsigned long long))(address, (size_t)physical, 0, handle, 0);
    if (rc != 0) {
        CX_CALL(lib, DRV_MEM_ADDRESS_FREE, int (*)(unsigned long long, size_t))(address, (size_t)reserved);
        CX_CALL(lib, DRV_MEM_RELEASE, int (*)(unsigned long long))(handle);
        out[2] = rc;
        return -3;
    }
    cx_mem_access access;
    access.location.type = CX_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = device;
    access.flags = CX_MEM_ACCESS_READWRITE;
    rc = CX_CALL(lib, DRV_MEM_SET_ACCESS, int (*)(unsigned long long, size_t, const cx_mem_access*, size_t))(
        address, (size_t)physical, &access, 1);
    if (rc != 0) {
        CX_CALL(lib, DRV_MEM_UNMAP, int (*)(unsigned long long, size_t))(address, (size_t)physical);
        CX_CALL(lib, DRV_MEM_ADDRESS_FREE, int (*)(unsigned long long, size_t))(address, (size_t)reserved);
        CX_CALL(lib, DRV_MEM_RELEASE, int (*)(unsigned long long))(handle);
        out[2] = rc;
        return -4;
    }
    out[0] = (jlong)address;
    out[1] = (jlong)handle;
    out[2] = 0;
    return 0;
}

static inline jint cx_vmm_unmap(jlong lib, jint device, jlong address, jlong physical, jlong reserved,
                                jlong handle) {
    int rc = cx_set_device(lib, device);
    if (rc != 0) return rc;
    rc = CX_CALL(lib, DRV_MEM_UNMAP, int (*)(unsigned long long, size_t))((unsigned long long)address,
                                                                          (size_t)physical);
    int rc2 = CX_CALL(lib, DRV_MEM_RELEASE, int (*)(unsigned long long))((unsigned long long)handle);
    int rc3 = CX_CALL(lib, DRV_MEM_ADDRESS_FREE, int (*)(unsigned long long, size_t))((unsigned long long)address,
                                                                                    (size_t)reserved);
    return rc != 0 ? rc : rc2 != 0 ? rc2 : rc3;
}

static inline jint cx_driver_init(jlong lib) { return CX_CALL(lib, DRV_INIT, int (*)(unsigned int))(0); }

// ---- streams, events, graphs -------------------------------------------------------------------------------

static inline jint cx_stream_create(jlong lib, jint device, jlong* out) {
    int rc = cx_set_device(lib, device);
    if (rc != 0) return rc;
    void* s = NULL;
    rc = CX_CALL(lib, RT_STREAM_CREATE_WITH_FLAGS, int (*)(void**, unsigned int))(&s, 1 /* non-blocking */);
    *out = (jlong)(intptr_t)s;
    return rc;
}
static inline jint cx_stream_destroy(jlong lib, jlong stream) {
    return CX_CALL(lib, RT_STREAM_DESTROY, int (*)(void*))(CX_PTR(stream));
}
static inline jint cx_stream_synchronize(jlong lib, jlong stream) {
    return CX_CALL(lib, RT_STREAM_SYNCHRONIZE, int (*)(void*))(CX_PTR(stream));
}
/** 0 done, 600 (cudaErrorNotReady) pending, else an error. */
static inline jint cx_stream_query(jlong lib, jlong stream) {
    return CX_CALL(lib, RT_STREAM_QUERY, int (*)(void*))(CX_PTR(stream));
}
static inline jint cx_stream_begin_capture(jlong lib, jlong stream, jint mode) {
    return CX_CALL(lib, RT_STREAM_BEGIN_CAPTURE, int (*)(void*, int))(CX_PTR(stream), mode);
}
static inline jint cx_stream_end_capture(jlong lib, jlong stream, jlong* graph) {
    void* g = NULL;
    int rc = CX_CALL(lib, RT_STREAM_END_CAPTURE, int (*)(void*, void**))(CX_PTR(stream), &g);
    *graph = (jlong)(intptr_t)g;
    return rc;
}
static inline jint cx_stream_is_capturing(jlong lib, jlong stream, jint* status) {
    return CX_CALL(lib, RT_STREAM_IS_CAPTURING, int (*)(void*, int*))(CX_PTR(stream), status);
}
static inline jint cx_graph_instantiate(jlong lib, jlong graph, jlong* exec) {
    void* e = NULL;
    int rc = CX_CALL(lib, RT_GRAPH_INSTANTIATE_WITH_FLAGS, int (*)(void**, void*, unsigned long long))(
        &e, CX_PTR(graph), 0);
    *exec = (jlong)(intptr_t)e;
    return rc;
}
static inline jint cx_graph_launch(jlong lib, jlong exec, jlong stream) {
    return CX_CALL(lib, RT_GRAPH_LAUNCH, int (*)(void*, void*))(CX_PTR(exec), CX_PTR(stream));
}
static inline jint cx_graph_exec_destroy(jlong lib, jlong exec) {
    return CX_CALL(lib, RT_GRAPH_EXEC_DESTROY, int (*)(void*))(CX_PTR(exec));
}
static inline jint cx_graph_destroy(jlong lib, jlong graph) {
    return CX_CALL(lib, RT_GRAPH_DESTROY, int (*)(void*))(CX_PTR(graph));
}
/** flags: 0 for timing events, 2 (cudaEventDisableTiming) for events that only order and signal. */
static inline jint cx_event_create(jlong lib, jint device, jint flags, jlong* out) {
    int rc = cx_set_device(lib, device);
    if (rc != 0) return rc;
    void* e = NULL;
    rc = CX_CALL(lib, RT_EVENT_CREATE_WITH_FLAGS, int (*)(void**, unsigned int))(&e, (unsigned int)flags);
    *out = (jlong)(intptr_t)e;
    return rc;
}
static inline jint cx_event_record(jlong lib, jlong event, jlong stream) {
    return CX_CALL(lib, RT_EVENT_RECORD, int (*)(void*, void*))(CX_PTR(event), CX_PTR(stream));
}
static inline jint cx_event_synchronize(jlong lib, jlong event) {
    return CX_CALL(lib, RT_EVENT_SYNCHRONIZE, int (*)(void*))(CX_PTR(event));
}
static inline jint cx_event_elapsed_ms(jlong lib, jlong start, jlong end, jfloat* ms) {
    return CX_CALL(lib, RT_EVENT_ELAPSED_TIME, int (*)(float*, void*, void*))(ms, CX_PTR(start), CX_PTR(end));
}
static inline jint cx_event_destroy(jlong lib, jlong event) {
    return CX_CALL(lib, RT_EVENT_DESTROY, int (*)(void*))(CX_PTR(event));
}
/** 0 done, 600 (cudaErrorNotReady) pending, else an error. */
static inline jint cx_event_query(jlong lib, jlong event) {
    return CX_CALL(lib, RT_EVENT_QUERY, int (*)(void*))(CX_PTR(event));
}
static inline jint cx_stream_wait_event(jlong lib, jlong stream, jlong event) {
    return CX_CALL(lib, RT_STREAM_WAIT_EVENT, int (*)(void*, void*, unsigned int))(CX_PTR(stream), CX_PTR(event), 0);
}

// ---- memory owned elsewhere ----------------------------------------------------------------------------------

/**
 * What the driver says about `address`, asked on `device`'s context: out[0] residence (0 unknown to the driver,
 * 1 device, 2 pinned host, 3 managed), out[1] device ordinal, out[2] the allocation's head, out[3] its size,
 * out[4] 1 for a VMM allocation, out[5] the handle types it was created with. Returns 0, or the driver's code of
 * the failing call with out[6] naming it (1 PointerGetAttributes, 2 MemGetAddressRange).
 */
static inline jint cx_classify(jlong lib, jint device, jlong address, jlong* out) {
    memset(out, 0, 7 * sizeof(jlong));
    int rc = cx_set_device(lib, device);
    if (rc != 0) return rc;
    // zeroed 8-byte slots: the driver writes an int, or a bool for IS_MANAGED
    unsigned long long memoryType = 0, managed = 0, ordinal = 0;
    int attributes[3] = {CX_POINTER_ATTRIBUTE_MEMORY_TYPE, CX_POINTER_ATTRIBUTE_IS_MANAGED,
                         CX_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
    void* data[3] = {&memoryType, &managed, &ordinal};
    rc = CX_CALL(lib, DRV_POINTER_GET_ATTRIBUTES, int (*)(unsigned int, int*, void**, unsigned long long))(
        3, attributes, data, (unsigned long long)address);
    if (rc != 0) { out[6] = 1; return rc; }
    unsigned int type = (unsigned int)memoryType;
    out[0] = managed != 0 ? 3 : type == CX_MEMORYTYPE_HOST ? 2 : type == CX_MEMORYTYPE_DEVICE ? 1 : 0;
    if (out[0] != 1) return 0;
    out[1] = (jlong)(int)(unsigned int)ordinal;
    unsigned long long head = 0;
    size_t size = 0;
    rc = CX_CALL(lib, DRV_MEM_GET_ADDRESS_RANGE, int (*)(unsigned long long*, size_t*, unsigned long long))(
        &head, &size, (unsigned long long)address);
    if (rc != 0) { out[6] = 2; return rc; }
    out[2] = (jlong)head;
    out[3] = (jlong)size;
    // only VMM allocations have an allocation handle to retain; legacy memory makes this call fail
    unsigned long long handle = 0;
    if (CX_CALL(lib, DRV_MEM_RETAIN_ALLOCATION_HANDLE, int (*)(unsigned long long*, void*))(
            &handle, CX_PTR(address)) == 0) {
        cx_mem_prop prop;
        memset(&prop, 0, sizeof(prop));
        int propRc = CX_CALL(lib, DRV_MEM_GET_ALLOCATION_PROPERTIES_FROM_HANDLE,
                             int (*)(cx_mem_prop*, unsigned long long))(&prop, handle);
        CX_CALL(lib, DRV_MEM_RELEASE, int (*)(unsigned long long))(handle);
        out[4] = 1;
        out[5] = propRc == 0 ? prop.requestedHandleTypes : 0;
    }
    return 0;
}

// Pinned host memory: where the per-call check's digests are gathered (mapped into the device, see below), and in
// the tests memory a framework could hand over, of a kind `wrap` refuses.
static inline jint cx_rt_malloc_host(jlong lib, jint device, jlong bytes, jlong* out) {
    int rc = cx_set_device(lib, device);
    if (rc != 0) return rc;
    void* p = NULL;
    rc = CX_CALL(lib, RT_MALLOC_HOST, int (*)(void**, size_t))(&p, (size_t)bytes);
    *out = (jlong)(intptr_t)p;
    return rc;
}
static inline jint cx_rt_free_host(jlong lib, jlong address) {
    return CX_CALL(lib, RT_FREE_HOST, int (*)(void*))(CX_PTR(address));
}
/**
 * cudaHostGetDevicePointer (flags 0): the address at which `device`'s kernels reach pinned host memory, which
 * cudaMallocHost maps into every device under unified addressing (the host address itself, there).
 */
static inline jint cx_rt_host_device_pointer(jlong lib, jint device, jlong host, jlong* out) {
    int rc = cx_set_device(lib, device);
    if (rc != 0) return rc;
    void* p = NULL;
    rc = CX_CALL(lib, RT_HOST_GET_DEVICE_POINTER, int (*)(void**, void*, unsigned int))(&p, CX_PTR(host), 0);
    *out = (jlong)(intptr_t)p;
    return rc;
}
/** Test fixture: cudaMallocManaged with cudaMemAttachGlobal (1), managed memory, which `wrap` refuses. */
static inline jint cx_rt_malloc_managed(jlong lib, jint device, jlong bytes, jlong* out) {
    int rc = cx_set_device(lib, device);
    if (rc != 0) return rc;
    void* p = NULL;
    rc = CX_CALL(lib, RT_MALLOC_MANAGED, int (*)(void**, size_t, unsigned int))(&p, (size_t)bytes, 1);
    *out = (jlong)(intptr_t)p;
    return rc;
}

// ---- benchmark baseline ------------------------------------------------------------------------------------
// The native side of the benchmarks' Java-versus-native comparison: `iters` enqueues of one op in a C loop, in
// the caller's process, on the caller's communicator, buffers and stream, so only the per-call path differs.
/* The loop's kind: an op's number (CX_OP_*), or a graph launch. */
#define CX_BENCH_GRAPH_LAUNCH (-1) /* send: the graph exec */

#define CX_IN_PROGRESS 7 /* ncclInProgress */
#define CX_WAIT_SECONDS_IN_BENCH 60

/**
 * What a C program does after a call on a non-blocking communicator answered ncclInProgress: polls the
 * communicator's state, sleeping between polls for an interval that doubles up to 10 ms, until it is no longer in
 * progress or CX_WAIT_SECONDS_IN_BENCH pass (then it answers in progress still).
 */
static inline jint cx_bench_wait(jlong lib, jlong comm) {
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    long nanos = 1000;
    for (;;) {
        jint state = 0;
        int rc = cx_comm_async_error(lib, comm, &state);
        if (rc != 0) return rc;
        if (state != CX_IN_PROGRESS) return state;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - start.tv_sec > CX_WAIT_SECONDS_IN_BENCH) return CX_IN_PROGRESS;
        struct timespec pause = {0, nanos};
        nanosleep(&pause, NULL);
        if (nanos < 10000000) nanos *= 2;
    }
}

static inline jint cx_bench_enqueue(jlong lib, jint kind, jlong send, jlong recv, jlong count, jint type, jint op,
                                    jint root, jlong comm, jlong stream, jint iters) {
    for (jint i = 0; i < iters; i++) {
        int rc = kind == CX_BENCH_GRAPH_LAUNCH
                     ? cx_graph_launch(lib, send, stream)
                     : cx_collective(lib, kind, send, recv, count, type, op, root, comm, stream);
        if (rc == CX_IN_PROGRESS && kind != CX_BENCH_GRAPH_LAUNCH) rc = cx_bench_wait(lib, comm);
        if (rc != 0) return rc;
    }
    return 0;
}

#endif
