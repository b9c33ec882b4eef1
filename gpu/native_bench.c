/*
 * The native baseline of the benchmark: the same calls the Java benchmark (DeviceBenchmark) makes, in C, one
 * thread per GPU, timed the same way. Prints one line per size:
 *   op mode bytes count time_us algbw_GBps busbw_GBps host_us
 * (host_us: the time the enqueue loop alone took per op, before the stream is synchronized)
 * Modes: none (plain buffers), local (ncclCommRegister), graph (each op captured once, the graph launched per
 * iteration), window (symmetric windows). All buffers come from ncclMemAlloc. Declarations are our own, from
 * the public header facts; it links libnccl.so.2 and libcudart.
 *
 * Usage: native_bench OP MODE MIN_BYTES MAX_BYTES RANKS
 *        native_bench memory INSTANCES   (device memory of a one-rank communicator with its stream, as the Java
 *                                         MemoryBenchmark measures it: INSTANCES made after a first one)
 *        native_bench memory-rank RANK SIZE DIR
 *                                        (one process of a job that holds a communicator of SIZE ranks on device 0:
 *                                         rank 0 writes the unique id to DIR/id, the others read it; each runs one
 *                                         allreduce of 1 float, so that lazy connections are made, touches
 *                                         DIR/ready-RANK and holds everything until DIR/done exists; a negative RANK
 *                                         makes only the device context, the stream and the buffer: the baseline)
 *        native_bench fusion RANKS KS NS (what the Java FusionBenchmark runs beside its own rows: per step, K
 *                                         allreduces of N floats at adjacent offsets of one block, one by one, and
 *                                         one allreduce of K x N ("fused"), eager and each captured into a graph;
 *                                         KS and NS comma-separated. Prints one line per cell:
 *                                         fusion MODE K N IMPL time_us host_us   with MODE eager|graph and IMPL
 *                                         one-by-one|fused, time per step, best of 3 rounds, slowest rank)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct { char internal[128]; } uid128;
typedef void* ptr;
extern int ncclGetUniqueId(uid128*);
extern int ncclCommInitRank(ptr*, int, uid128, int);
extern int ncclCommDestroy(ptr);
extern int ncclCommFinalize(ptr);
extern int ncclAllReduce(const void*, void*, size_t, int, int, ptr, ptr);
extern int ncclAllGather(const void*, void*, size_t, int, ptr, ptr);
extern int ncclReduceScatter(const void*, void*, size_t, int, int, ptr, ptr);
extern int ncclMemAlloc(ptr*, size_t);
extern int ncclMemFree(ptr);
extern int ncclCommRegister(ptr, ptr, size_t, ptr*);
extern int ncclCommDeregister(ptr, ptr);
extern int ncclCommWindowRegister(ptr, ptr, size_t, ptr*, int);
extern int ncclCommWindowDeregister(ptr, ptr);
extern const char* ncclGetErrorString(int);
extern int cudaSetDevice(int);
extern int cudaMemGetInfo(size_t*, size_t*);
extern int cudaStreamCreateWithFlags(ptr*, unsigned);
extern int cudaStreamDestroy(ptr);
extern int cudaStreamSynchronize(ptr);
extern int cudaStreamBeginCapture(ptr, int);
extern int cudaStreamEndCapture(ptr, ptr*);
extern int cudaGraphInstantiateWithFlags(ptr*, ptr, unsigned long long);
extern int cudaGraphLaunch(ptr, ptr);
extern int cudaGraphExecDestroy(ptr);
extern int cudaGraphDestroy(ptr);

#define FLOAT32 7
#define ROUNDS 3
#define FIRST_WARMUP 3000 /* ops at the smallest size before any timing (the JVM compiles its call path then) */
#define SUM 0
#define CHECK(call)                                                                          \
    do {                                                                                     \
        int rc_ = (call);                                                                    \
        if (rc_ != 0) {                                                                      \
            fprintf(stderr, "%s:%d %s failed: %d\n", __FILE__, __LINE__, #call, rc_);        \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

enum op { ALLREDUCE, ALLGATHER, REDUCESCATTER };
enum mode { NONE, LOCAL, GRAPH, WINDOW };

static int op, mode, ranks;
static size_t min_bytes, max_bytes;
static uid128 id;
static pthread_barrier_t barrier;
static double elapsed[64];
static double enqueued[64];

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* Iterations per size: the same rule as DeviceBenchmark.iterations. */
static int iterations(size_t bytes) { return bytes <= (64 << 10) ? 1000 : bytes <= (64 << 20) ? 100 : 20; }

static size_t elements(size_t bytes) { return op == ALLREDUCE ? bytes / 4 : bytes / 4 / ranks; }

static void issue(ptr send, ptr recv, size_t count, ptr comm, ptr stream) {
    if (op == ALLREDUCE) CHECK(ncclAllReduce(send, recv, count, FLOAT32, SUM, comm, stream));
    else if (op == ALLGATHER) CHECK(ncclAllGather(send, recv, count, FLOAT32, comm, stream));
    else CHECK(ncclReduceScatter(send, recv, count, FLOAT32, SUM, comm, stream));
}

/* What one timed step enqueues: a launch of exec where it is set, else enqueue(context). */
typedef struct {
    ptr stream, exec, graph;
    void (*enqueue)(const void* context);
    const void* context;
} step;

static void run_step(const step* s) {
    if (s->exec) CHECK(cudaGraphLaunch(s->exec, s->stream));
    else s->enqueue(s->context);
}

/* Makes s a graph launch: one eager step first (NCCL sets up its connections outside the capture), then the capture. */
static void capture(step* s) {
    s->enqueue(s->context);
    CHECK(cudaStreamSynchronize(s->stream));
    CHECK(cudaStreamBeginCapture(s->stream, 1));
    s->enqueue(s->context);
    CHECK(cudaStreamEndCapture(s->stream, &s->graph));
    CHECK(cudaGraphInstantiateWithFlags(&s->exec, s->graph, 0));
}

static void release(step* s) {
    if (s->exec) {
        CHECK(cudaGraphExecDestroy(s->exec));
        CHECK(cudaGraphDestroy(s->graph));
    }
}

/* The best of ROUNDS rounds of iters steps, each round timed by its slowest rank: time and host enqueue time per
 * step, the same on every rank. */
static void best_of_rounds(int rank, int iters, const step* s, double* t, double* t_host) {
    for (int i = 0; i < 5; i++) run_step(s);
    CHECK(cudaStreamSynchronize(s->stream));
    *t = 1e300;
    *t_host = 0;
    for (int round = 0; round < ROUNDS; round++) {
        pthread_barrier_wait(&barrier);
        double start = now_us();
        for (int i = 0; i < iters; i++) run_step(s);
        enqueued[rank] = (now_us() - start) / iters;
        CHECK(cudaStreamSynchronize(s->stream));
        elapsed[rank] = (now_us() - start) / iters;
        pthread_barrier_wait(&barrier);
        double slowest = 0, host = 0;
        for (int r = 0; r < ranks; r++) {
            slowest = elapsed[r] > slowest ? elapsed[r] : slowest;
            host = enqueued[r] > host ? enqueued[r] : host;
        }
        if (slowest < *t) {
            *t = slowest;
            *t_host = host;
        }
        pthread_barrier_wait(&barrier);
    }
}

/* What a rank thread made, in reverse. */
static void release_rank(ptr comm, ptr stream, ptr send, ptr recv) {
    CHECK(ncclMemFree(send));
    CHECK(ncclMemFree(recv));
    CHECK(cudaStreamDestroy(stream));
    CHECK(ncclCommFinalize(comm));
    CHECK(ncclCommDestroy(comm));
}

typedef struct { ptr send, recv, comm, stream; size_t count; } one_op;

static void enqueue_one_op(const void* context) {
    const one_op* o = context;
    issue(o->send, o->recv, o->count, o->comm, o->stream);
}

static void* rank_main(void* arg) {
    int rank = (int)(long)arg;
    ptr comm, stream, send, recv, h1 = NULL, h2 = NULL;
    CHECK(cudaSetDevice(rank));
    CHECK(ncclCommInitRank(&comm, ranks, id, rank));
    CHECK(cudaStreamCreateWithFlags(&stream, 1));
    size_t send_bytes = op == ALLGATHER ? max_bytes / ranks : max_bytes;
    size_t recv_bytes = op == REDUCESCATTER ? max_bytes / ranks : max_bytes;
    CHECK(ncclMemAlloc(&send, send_bytes));
    CHECK(ncclMemAlloc(&recv, recv_bytes));
    if (mode == LOCAL) {
        CHECK(ncclCommRegister(comm, send, send_bytes, &h1));
        CHECK(ncclCommRegister(comm, recv, recv_bytes, &h2));
    } else if (mode == WINDOW) {
        CHECK(ncclCommWindowRegister(comm, send, send_bytes, &h1, 1));
        CHECK(ncclCommWindowRegister(comm, recv, recv_bytes, &h2, 1));
    }
    for (int i = 0; i < FIRST_WARMUP; i++) issue(send, recv, elements(min_bytes), comm, stream);
    CHECK(cudaStreamSynchronize(stream));
    for (size_t bytes = min_bytes; bytes <= max_bytes; bytes *= 2) {
        size_t count = elements(bytes);
        if (count == 0) continue;
        int iters = iterations(bytes);
        one_op o = {send, recv, comm, stream, count};
        step s = {stream, NULL, NULL, enqueue_one_op, &o};
        if (mode == GRAPH) capture(&s);
        double t, t_host;
        best_of_rounds(rank, iters, &s, &t, &t_host);
        if (rank == 0) {
            size_t total = op == ALLREDUCE ? count * 4 : count * 4 * ranks;
            double algbw = total / t / 1e3;
            double factor = op == ALLREDUCE ? 2.0 * (ranks - 1) / ranks : (double)(ranks - 1) / ranks;
            static const char* ops[] = {"allreduce", "allgather", "reducescatter"};
            static const char* modes[] = {"none", "local", "graph", "window"};
            printf("%s %s %zu %zu %.2f %.2f %.2f %.3f\n", ops[op], modes[mode], total, count, t, algbw, algbw * factor,
                   t_host);
            fflush(stdout);
        }
        release(&s);
        pthread_barrier_wait(&barrier);
    }
    if (mode == LOCAL) {
        CHECK(ncclCommDeregister(comm, h1));
        CHECK(ncclCommDeregister(comm, h2));
    } else if (mode == WINDOW) {
        CHECK(ncclCommWindowDeregister(comm, h1));
        CHECK(ncclCommWindowDeregister(comm, h2));
    }
    release_rank(comm, stream, send, recv);
    return NULL;
}

/* ---- fusion: k adjacent allreduces one by one against one allreduce over their union ---- */

static size_t fusion_ks[16], fusion_ns[16];
static int fusion_k_count, fusion_n_count;

static int parse_list(const char* text, size_t* values, int max) {
    int n = 0;
    for (const char* p = text; *p && n < max; p++) {
        values[n++] = strtoull(p, (char**)&p, 10);
        if (*p != ',') break;
    }
    return n;
}

/* One step: k allreduces of n floats at adjacent offsets, or (fused) one of k x n. */
typedef struct { ptr send, recv, comm, stream; size_t k, n; int fused; } fusion_step;

static void enqueue_fusion_step(const void* context) {
    const fusion_step* f = context;
    if (f->fused) {
        CHECK(ncclAllReduce(f->send, f->recv, f->k * f->n, FLOAT32, SUM, f->comm, f->stream));
        return;
    }
    for (size_t i = 0; i < f->k; i++)
        CHECK(ncclAllReduce((float*)f->send + i * f->n, (float*)f->recv + i * f->n, f->n, FLOAT32, SUM, f->comm,
                            f->stream));
}

static void* fusion_main(void* arg) {
    int rank = (int)(long)arg;
    ptr comm, stream, send, recv;
    size_t most = 0;
    for (int a = 0; a < fusion_k_count; a++)
        for (int b = 0; b < fusion_n_count; b++)
            most = fusion_ks[a] * fusion_ns[b] > most ? fusion_ks[a] * fusion_ns[b] : most;
    CHECK(cudaSetDevice(rank));
    CHECK(ncclCommInitRank(&comm, ranks, id, rank));
    CHECK(cudaStreamCreateWithFlags(&stream, 1));
    CHECK(ncclMemAlloc(&send, most * 4));
    CHECK(ncclMemAlloc(&recv, most * 4));
    fusion_step warm = {send, recv, comm, stream, 1, fusion_ns[0], 1};
    for (int i = 0; i < FIRST_WARMUP; i++) enqueue_fusion_step(&warm);
    CHECK(cudaStreamSynchronize(stream));
    for (int graph = 0; graph <= 1; graph++)
        for (int a = 0; a < fusion_k_count; a++)
            for (int b = 0; b < fusion_n_count; b++)
                for (int fused = 0; fused <= 1; fused++) {
                    fusion_step f = {send, recv, comm, stream, fusion_ks[a], fusion_ns[b], fused};
                    step s = {stream, NULL, NULL, enqueue_fusion_step, &f};
                    if (graph) capture(&s);
                    else { /* NCCL sets up these sizes' connections before the timed rounds */
                        enqueue_fusion_step(&f);
                        CHECK(cudaStreamSynchronize(stream));
                    }
                    double t, t_host;
                    best_of_rounds(rank, iterations(f.k * f.n * 4), &s, &t, &t_host);
                    if (rank == 0) {
                        printf("fusion %s %zu %zu %s %.2f %.3f\n", graph ? "graph" : "eager", f.k, f.n,
                               fused ? "fused" : "one-by-one", t, t_host);
                        fflush(stdout);
                    }
                    release(&s);
                }
    release_rank(comm, stream, send, recv);
    return NULL;
}

static int fusion(int rank_count, const char* ks, const char* ns) {
    ranks = rank_count;
    fusion_k_count = parse_list(ks, fusion_ks, 16);
    fusion_n_count = parse_list(ns, fusion_ns, 16);
    if (ranks < 1 || ranks > 64 || fusion_k_count == 0 || fusion_n_count == 0) {
        fprintf(stderr, "usage: native_bench fusion RANKS K,K,... N,N,...\n");
        return 2;
    }
    CHECK(ncclGetUniqueId(&id));
    pthread_barrier_init(&barrier, NULL, ranks);
    pthread_t threads[64];
    for (long r = 0; r < ranks; r++) pthread_create(&threads[r], NULL, fusion_main, (void*)r);
    for (int r = 0; r < ranks; r++) pthread_join(threads[r], NULL);
    return 0;
}

static int index_of(const char* s, const char* const* names, int n) {
    for (int i = 0; i < n; i++) if (strcmp(s, names[i]) == 0) return i;
    fprintf(stderr, "unknown %s\n", s);
    exit(2);
}

static size_t used_bytes(void) {
    size_t free_bytes, total;
    CHECK(cudaMemGetInfo(&free_bytes, &total));
    return total - free_bytes;
}

static ptr comm_with_stream(ptr* stream) {
    ptr comm;
    CHECK(ncclGetUniqueId(&id));
    CHECK(ncclCommInitRank(&comm, 1, id, 0));
    CHECK(cudaStreamCreateWithFlags(stream, 1));
    CHECK(cudaStreamSynchronize(*stream));
    return comm;
}

static int memory(int instances) {
    ptr streams[65], comms[65];
    CHECK(cudaSetDevice(0));
    if (instances < 1 || instances > 64) instances = 8;
    comms[0] = comm_with_stream(&streams[0]);
    size_t before = used_bytes();
    for (int i = 1; i <= instances; i++) comms[i] = comm_with_stream(&streams[i]);
    size_t after = used_bytes();
    printf("native communicator with its stream: %.1f -> %.1f MiB, per instance %.2f MiB\n", before / 1048576.0,
           after / 1048576.0, (after - before) / 1048576.0 / instances);
    for (int i = instances; i >= 0; i--) {
        CHECK(cudaStreamDestroy(streams[i]));
        CHECK(ncclCommFinalize(comms[i]));
        CHECK(ncclCommDestroy(comms[i]));
    }
    return 0;
}

static int exists(const char* path) {
    FILE* f = fopen(path, "rb");
    if (f) fclose(f);
    return f != NULL;
}

static void touch(const char* path) {
    FILE* f = fopen(path, "wb");
    if (f) fclose(f);
}

static void wait_for(const char* path) {
    struct timespec tick = {0, 50 * 1000 * 1000};
    for (int i = 0; i < 20 * 300 && !exists(path); i++) nanosleep(&tick, NULL);
}

static int memory_rank(int rank, int size, const char* dir) {
    char path[4096], ready[4096], done[4096];
    ptr stream, comm = NULL, buffer;
    snprintf(ready, sizeof ready, "%s/ready-%d", dir, rank);
    snprintf(done, sizeof done, "%s/done", dir);
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamCreateWithFlags(&stream, 1));
    CHECK(ncclMemAlloc(&buffer, 4));
    if (rank >= 0) {
        snprintf(path, sizeof path, "%s/id", dir);
        if (rank == 0) {
            char partial[4200];
            snprintf(partial, sizeof partial, "%s.partial", path);
            CHECK(ncclGetUniqueId(&id));
            FILE* f = fopen(partial, "wb");
            if (!f || fwrite(&id, sizeof id, 1, f) != 1 || fclose(f) != 0 || rename(partial, path) != 0) return 1;
        } else {
            wait_for(path);
            FILE* f = fopen(path, "rb");
            if (!f || fread(&id, sizeof id, 1, f) != 1) return 1;
            fclose(f);
        }
        CHECK(ncclCommInitRank(&comm, size, id, rank));
        CHECK(ncclAllReduce(buffer, buffer, 1, FLOAT32, SUM, comm, stream));
    }
    CHECK(cudaStreamSynchronize(stream));
    touch(ready);
    wait_for(done);
    if (comm) {
        CHECK(ncclCommFinalize(comm));
        CHECK(ncclCommDestroy(comm));
    }
    CHECK(ncclMemFree(buffer));
    CHECK(cudaStreamDestroy(stream));
    return 0;
}

int main(int argc, char** argv) {
    if (argc == 5 && strcmp(argv[1], "memory-rank") == 0) return memory_rank(atoi(argv[2]), atoi(argv[3]), argv[4]);
    if (argc == 3 && strcmp(argv[1], "memory") == 0) return memory(atoi(argv[2]));
    if (argc == 5 && strcmp(argv[1], "fusion") == 0) return fusion(atoi(argv[2]), argv[3], argv[4]);
    if (argc != 6) {
        fprintf(stderr, "usage: %s allreduce|allgather|reducescatter none|local|graph|window MIN MAX RANKS\n", argv[0]);
        return 2;
    }
    static const char* const ops[] = {"allreduce", "allgather", "reducescatter"};
    static const char* const modes[] = {"none", "local", "graph", "window"};
    op = index_of(argv[1], ops, 3);
    mode = index_of(argv[2], modes, 4);
    min_bytes = strtoull(argv[3], NULL, 10);
    max_bytes = strtoull(argv[4], NULL, 10);
    ranks = atoi(argv[5]);
    CHECK(ncclGetUniqueId(&id));
    pthread_barrier_init(&barrier, NULL, ranks);
    pthread_t threads[64];
    for (long r = 0; r < ranks; r++) pthread_create(&threads[r], NULL, rank_main, (void*)r);
    for (int r = 0; r < ranks; r++) pthread_join(threads[r], NULL);
    return 0;
}
