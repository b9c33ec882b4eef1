/**
 * Working with a framework that owns the memory and the stream: the pipeline wraps them with {@code comm.wrap} and
 * {@code comm.wrapStream} and runs after the framework's own work. On {@code nccl} the framework is bytedeco's CUDA
 * binding, on {@code sim} foreign memory and a foreign stream of the simulated devices.
 */
package dev.collectives.examples.interop;
