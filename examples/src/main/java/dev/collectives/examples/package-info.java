/**
 * The examples' runner ({@link dev.collectives.examples.Runner}, a picocli command line): it runs each
 * {@link dev.collectives.examples.Example} on every rank of a fresh cluster, prints its {@code describe()} table,
 * compares what came back with values computed on the host ({@link dev.collectives.examples.HostData},
 * {@link dev.collectives.examples.Check}), and also runs the mistakes, one rank of a multi-process job, and a failure
 * and its recovery. {@link dev.collectives.examples.ClusterOptions} ({@code --backend}, {@code --ranks}) and
 * {@link dev.collectives.examples.Commands#printingTo} are shared with the tools' command line.
 */
package dev.collectives.examples;
