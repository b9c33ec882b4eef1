/**
 * The example pipelines and the examples that run them: the three of the MCCL user-buffer-registration guide (graph
 * registration, local registration, an arena), and MTLink SHARP, IB SHARP, legacy general registration, a custom
 * qualified allocator, symmetric windows, a send/recv ring and gradient buckets sized at bind and at call time.
 * Each {@code *Example} binds its pipeline, fills its buffers and checks the results on every rank.
 */
package dev.collectives.examples.pipelines;
