/**
 * The DSL for declaring collective pipelines: {@link dev.collectives.annotation.CollectivePipeline} on an
 * interface, {@code @Buffer}, {@code @View}, {@code @External}, {@code @Window} and {@code @Dim} on its accessors,
 * and one op annotation per collective call ({@code @AllReduce}, {@code @AllGather}, {@code @ReduceScatter},
 * {@code @Broadcast}, {@code @Reduce}, {@code @AllToAll}, {@code @Gather}, {@code @Scatter}, {@code @Send}, {@code @Recv}) on
 * its steps, with the enums
 * they take ({@code Registration}, {@code Allocator}, {@code DataType}, {@code ReduceOp}, {@code Peer}, ...).
 * {@link dev.collectives.annotation.OpKind} is the catalogue of the op annotations, the single source of the ops that
 * the processor, the sim backend, the differential harness and the benchmarks derive theirs from.
 * Nothing here is native: the annotation processor reads these types at compile time.
 */
package dev.collectives.annotation;
