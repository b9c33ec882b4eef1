/**
 * The differential harness ({@code differential}): the same work on sim, as threads of one process, and on another
 * backend, as one process per rank, compared rank by rank. The work is every example's buffers, every mistake's
 * tag, a seeded random corpus of pipelines generated here and compiled with the annotation processor
 * ({@code CorpusGenerator}, {@code Corpus}), and memory a framework owns, wrapped in each registration mode.
 * {@code Harness} runs it and reports each difference with a reproducer; {@code Comparison} decides what agrees.
 */
package dev.collectives.tools.differential;
