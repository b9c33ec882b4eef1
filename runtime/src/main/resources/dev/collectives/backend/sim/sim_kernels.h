// The sim backend's native reduction kernel (see Kernels.java for the semantics it must reproduce bit for bit):
// every element is combined from all sources in array order, rounded to the element type after every step, and
// written to every destination. Built by the JavaCPP plugin with g++; no other dependencies.
#ifndef COLLECTIVES_SIM_KERNELS_H
#define COLLECTIVES_SIM_KERNELS_H

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <unistd.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

// Each step must round to the type, as Java does: no fused multiply-add (AVG multiplies, then adds). And no
// unroll-and-jam: at -O3 g++ fused two passes over the sources of a block into one loop that it then left scalar
// (every pass after the first, at 4 sources and more; with 8, slower than the JIT's loops).
#pragma GCC optimize("fp-contract=off", "no-loop-unroll-and-jam")

namespace csk {

// One block of results is computed in the core's L1 cache, then written to every destination.
const size_t BLOCK_BYTES = 4096;

// Integer sums and products wrap: computed in the unsigned type, as signed overflow is undefined in C++.
template <typename T> inline T add(T a, T b) {
    if constexpr (std::is_integral<T>::value) {
        using U = typename std::make_unsigned<T>::type;
        return T(U(a) + U(b));
    } else {
        return a + b;
    }
}

template <typename T> inline T multiply(T a, T b) {
    if constexpr (std::is_integral<T>::value) {
        using U = typename std::make_unsigned<T>::type;
        return T(U(a) * U(b));
    } else {
        return a * b;
    }
}

// MIN and MAX: a NaN operand is ignored (fminf/fmaxf), and -0 is below +0 (Java's Math.min/max).
template <typename T> inline bool nanOrTie(T a, T b) {
    if constexpr (std::is_floating_point<T>::value) {
        return a != a || b != b || a == b;
    } else {
        return false;
    }
}

template <typename T> inline T floatingTie(T a, T b, bool lower) {
    if (a != a) return b;
    if (b != b) return a;
    return std::signbit(a) == lower ? a : b; // equal values: only +0 and -0 differ
}

// The operations: pre is applied to every input (NCCL's PreMulSum for AVG), combine folds it into the accumulator.
struct Sum {
    template <typename T> static T pre(T x, T) { return x; }
    template <typename T> static T combine(T acc, T x) { return add(acc, x); }
};
struct Prod {
    template <typename T> static T pre(T x, T) { return x; }
    template <typename T> static T combine(T acc, T x) { return multiply(acc, x); }
};
struct Min {
    template <typename T> static T pre(T x, T) { return x; }
    template <typename T> static T combine(T acc, T x) {
        return nanOrTie(acc, x) ? floatingTie(acc, x, true) : x < acc ? x : acc;
    }
};
struct Max {
    template <typename T> static T pre(T x, T) { return x; }
    template <typename T> static T combine(T acc, T x) {
        return nanOrTie(acc, x) ? floatingTie(acc, x, false) : x > acc ? x : acc;
    }
};
struct Avg {
    template <typename T> static T pre(T x, T scale) { return x * scale; }
    template <typename T> static T combine(T acc, T x) { return acc + x; }
};

// Writes bytes; streaming ones go past the caches (non-temporal stores, no read-for-ownership of the lines), with
// plain stores for the unaligned head and tail.
inline void store(char* to, const char* from, size_t bytes, bool stream) {
#if defined(__x86_64__)
    if (stream) {
        size_t head = (0 - reinterpret_cast<uintptr_t>(to)) & 15;
        if (head > bytes) head = bytes;
        std::memcpy(to, from, head);
        size_t done = head;
        for (; bytes - done >= 16; done += 16) {
            _mm_stream_si128(reinterpret_cast<__m128i*>(to + done),
                             _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + done)));
        }
        std::memcpy(to + done, from + done, bytes - done);
        return;
    }
#endif
    std::memcpy(to, from, bytes);
}

// One pass over a block: acc = pre(a) ⊕ pre(b) where fresh, else acc = (acc ⊕ pre(a)) ⊕ pre(b); without b where
// twoSources is false. __restrict (acc is the kernel's own block, never a source) spares the vectorised loops the
// run-time overlap checks and their scalar fallbacks. Two sources a pass halve the passes over acc.
template <typename T, typename Op, bool fresh, bool twoSources>
__attribute__((always_inline)) inline void reducePass(T* __restrict acc, const T* __restrict a,
                                                      const T* __restrict b, size_t len, T scale) {
    for (size_t i = 0; i < len; i++) {
        T value = fresh ? Op::pre(a[i], scale) : Op::combine(acc[i], Op::pre(a[i], scale));
        if constexpr (twoSources) value = Op::combine(value, Op::pre(b[i], scale));
        acc[i] = value;
    }
}

template <typename T> inline const T* at(const jlong* sources, int r, size_t offset) {
    return reinterpret_cast<const T*>(reinterpret_cast<const char*>(sources[r]) + offset);
}

// One block: acc = pre(s_0) ⊕ pre(s_1) ⊕ ..., in that order, read straight from the sources (no staging copy).
// Always inlined, so that it is vectorised for the instruction set of the function it is in.
template <typename T, typename Op>
__attribute__((always_inline)) inline void reduceBlock(T* acc, const jlong* sources, int n, size_t offset,
                                                       size_t len, T scale) {
    if (n == 1) {
        reducePass<T, Op, true, false>(acc, at<T>(sources, 0, offset), nullptr, len, scale);
        return;
    }
    reducePass<T, Op, true, true>(acc, at<T>(sources, 0, offset), at<T>(sources, 1, offset), len, scale);
    int r = 2;
    for (; r + 1 < n; r += 2) {
        reducePass<T, Op, false, true>(acc, at<T>(sources, r, offset), at<T>(sources, r + 1, offset), len, scale);
    }
    if (r < n) reducePass<T, Op, false, false>(acc, at<T>(sources, r, offset), nullptr, len, scale);
}

template <typename T, typename Op>
__attribute__((always_inline)) inline void reduceBlocks(const jlong* sources, int n, const jlong* destinations,
                                                        int m, jlong count, bool stream) {
    const size_t block = BLOCK_BYTES / sizeof(T);
    alignas(64) T acc[block];
    const T scale = T(1.0 / n); // AVG's scalar, as NCCL: (float) (1.0 / n) for float32, 1.0 / n for float64
    for (jlong done = 0; done < count;) {
        size_t len = count - done < jlong(block) ? size_t(count - done) : block;
        size_t offset = size_t(done) * sizeof(T);
        // all sources of a block are read before any destination is written, so a destination may be a source
        reduceBlock<T, Op>(acc, sources, n, offset, len, scale);
        for (int d = 0; d < m; d++) {
            store(reinterpret_cast<char*>(destinations[d]) + offset, reinterpret_cast<const char*>(acc),
                  len * sizeof(T), stream);
        }
        done += jlong(len);
    }
#if defined(__x86_64__)
    if (stream) _mm_sfence(); // order the streaming stores before whatever tells other threads we are done
#endif
}

// The library is built for baseline x86-64 (SSE2); where the processor has AVX2 or AVX-512 the same loops run on
// 32- or 64-byte vectors, as the JIT's do for the Java path. Same arithmetic, element by element (no FMA:
// fp-contract is off). AVX-512BW is needed for the 1-byte integers, DQ for the 8-byte ones' products.
#if defined(__x86_64__)
template <typename T, typename Op>
__attribute__((target("avx2"))) void reduceAvx2(const jlong* sources, int n, const jlong* destinations, int m,
                                                jlong count, bool stream) {
    reduceBlocks<T, Op>(sources, n, destinations, m, count, stream);
}

template <typename T, typename Op>
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,prefer-vector-width=512")))
void reduceAvx512(const jlong* sources, int n, const jlong* destinations, int m, jlong count, bool stream) {
    reduceBlocks<T, Op>(sources, n, destinations, m, count, stream);
}

enum class Isa { baseline, avx2, avx512 };

inline Isa isa() {
    static const Isa best = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")
                                    && __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl")
                                ? Isa::avx512
                                : __builtin_cpu_supports("avx2") ? Isa::avx2 : Isa::baseline;
    return best;
}
#endif

template <typename T, typename Op>
void reduce(const jlong* sources, int n, const jlong* destinations, int m, jlong count, bool stream) {
#if defined(__x86_64__)
    switch (isa()) {
        case Isa::avx512: reduceAvx512<T, Op>(sources, n, destinations, m, count, stream); return;
        case Isa::avx2: reduceAvx2<T, Op>(sources, n, destinations, m, count, stream); return;
        case Isa::baseline: break;
    }
#endif
    reduceBlocks<T, Op>(sources, n, destinations, m, count, stream);
}

// op: ReduceOp.code() (SUM 0, PROD 1, MAX 2, MIN 3, AVG 4). Returns 0 when done, 1 when not supported here.
template <typename T>
int reduceType(int op, const jlong* sources, int n, const jlong* destinations, int m, jlong count, bool stream) {
    switch (op) {
        case 0: reduce<T, Sum>(sources, n, destinations, m, count, stream); return 0;
        case 1: reduce<T, Prod>(sources, n, destinations, m, count, stream); return 0;
        case 2: reduce<T, Max>(sources, n, destinations, m, count, stream); return 0;
        case 3: reduce<T, Min>(sources, n, destinations, m, count, stream); return 0;
        case 4:
            if constexpr (std::is_floating_point<T>::value) {
                reduce<T, Avg>(sources, n, destinations, m, count, stream);
                return 0;
            }
            return 1;
        default: return 1;
    }
}

} // namespace csk

// Half the last-level cache (32 MiB where unknown): data that all threads together write past this would not stay in
// the cache until it is read anyway.
inline jlong csk_stream_min_bytes() {
    long lastLevel = 0;
#if defined(_SC_LEVEL3_CACHE_SIZE)
    lastLevel = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
    return (lastLevel > 0 ? jlong(lastLevel) : jlong(64) << 20) / 2;
}

// type: DataType.code(); the narrow floating types are left to Java (returns 1).
inline int csk_reduce(int type, int op, const jlong* sources, int n, const jlong* destinations, int m, jlong count,
                      int stream) {
    switch (type) {
        case 0: return csk::reduceType<int8_t>(op, sources, n, destinations, m, count, stream != 0);
        case 1: return csk::reduceType<uint8_t>(op, sources, n, destinations, m, count, stream != 0);
        case 2: return csk::reduceType<int32_t>(op, sources, n, destinations, m, count, stream != 0);
        case 3: return csk::reduceType<uint32_t>(op, sources, n, destinations, m, count, stream != 0);
        case 4: return csk::reduceType<int64_t>(op, sources, n, destinations, m, count, stream != 0);
        case 5: return csk::reduceType<uint64_t>(op, sources, n, destinations, m, count, stream != 0);
        case 7: return csk::reduceType<float>(op, sources, n, destinations, m, count, stream != 0);
        case 8: return csk::reduceType<double>(op, sources, n, destinations, m, count, stream != 0);
        default: return 1;
    }
}

#endif
