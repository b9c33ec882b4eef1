/**
 * The tools: benchmarks, the differential harness and the fault driver, which use the examples but are not
 * examples. {@link dev.collectives.tools.Tools} is their command line ({@code mvn -pl tools exec:java
 * -Dexec.args="..."}); {@link dev.collectives.tools.LocalJob} starts the processes of the multi-process jobs that
 * {@code differential} and {@code faults} run, one per rank, on this host.
 */
package dev.collectives.tools;
