/**
 * The {@code bench} commands: nccl-tests-style tables of the native backends against a native C baseline
 * ({@code device}), the per-op overhead of the Java calls ({@code overhead}), device memory taken ({@code memory}),
 * the cost of sizes given at call time ({@code shapes}), k allreduces per step, fused or not ({@code fusion}), the
 * sim backend's allreduce ({@code sim-allreduce}) and charts ({@code plot}), with the pipelines they time. They share
 * a timer ({@code Timer}: the best round of a {@code Batch} of enqueues, or a {@code Step}'s, on every rank at once,
 * the slowest rank's time) and the way they print figures ({@code BenchFormat}).
 */
package dev.collectives.tools.bench;
