/**
 * The native backends {@code nccl} and {@code mccl}: one {@link dev.collectives.backend.device.DeviceBackend} per
 * {@link dev.collectives.backend.device.Dialect}, over the vendor libraries opened with {@code dlopen} at run time
 * through a small C++ shim ({@code collectives_device.h}, bound by JavaCPP in
 * {@link dev.collectives.backend.device.NativeShim}). {@link dev.collectives.backend.device.DeviceCommunicator}
 * makes one native call per collective and checks R5, R6, R9, R11 and R12 as {@code sim} does. Users reach it through
 * {@code Backends}, not directly.
 */
package dev.collectives.backend.device;
