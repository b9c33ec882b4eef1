/**
 * Not API: the sim backend's compute kernels ({@link dev.collectives.backend.sim.internal.Kernels}), public for the
 * sim backend and the project's benchmarks; they may change without notice.
 */
package dev.collectives.backend.sim.internal;
