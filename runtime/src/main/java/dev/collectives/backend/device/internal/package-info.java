/**
 * Not API: what the project's benchmarks use of the device backends ({@link
 * dev.collectives.backend.device.internal.NativeBaseline}); it may change without notice.
 */
package dev.collectives.backend.device.internal;
