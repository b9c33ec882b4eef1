/**
 * The native backends {@code nccl} and {@code mccl}: one {@link dev.collectives.backend.device.DeviceBackend} per
 * {@link dev.collectives.backend.device.Dialect}, over the vendor libraries opened with {@code dlopen} at run time
 * through a small C++ shim ({@code collectives_device.h}, bound by JavaCPP in {@code NativeShim}). Every native call
 * goes through the package-private interface {@code NativeApi}, so that the backend's failure paths run in tests
 * against a scripted library. {@link dev.collectives.backend.device.DeviceCommunicator} is made of parts with one job
 * each: {@code NativeComm} (the native handle and its states: asynchronous error, stall, abort, its part of the job
 * watch that the job's communicators on a rank share, children included, finalize), {@code DeviceProbe} (capabilities), {@code DeviceAllocations} (memory, registration, windows),
 * {@code DeviceCollectives} (one native call per collective) and {@code MappedHostStaging}; it checks R5, R6, R9,
 * R11 and R12 as {@code sim} does. {@code ForeignCommunicators} forms communicators with other libraries: from a
 * unique id made elsewhere, or over a handle another library made ({@code CommOrigin} says who owns the handle and
 * whether the checks across ranks run). Users reach it through {@code Backends}, not directly;
 * {@link dev.collectives.backend.device.NativeLoop} is the benchmarks' entry, not API.
 */
package dev.collectives.backend.device;
