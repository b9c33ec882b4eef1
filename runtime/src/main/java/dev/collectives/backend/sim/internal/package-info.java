/**
 * Not API: the sim backend's compute kernels ({@link dev.collectives.backend.sim.internal.Kernels}), public for the
 * sim backend and the project's benchmarks; they may change without notice. Behind them, package-private: the
 * native reductions ({@code NativeKernels}) and the Java ones, a class per family of types ({@code FloatReductions},
 * {@code DoubleReductions}, {@code IntegerReductions}).
 */
package dev.collectives.backend.sim.internal;
