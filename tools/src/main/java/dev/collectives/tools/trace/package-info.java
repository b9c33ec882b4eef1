/**
 * The tools' {@code trace}: reads the flight records that the ranks of a job wrote into one directory
 * ({@code COLLECTIVES_FLIGHT_RECORDER_DIR}), lines the ranks' operations up by their numbers, and says where they
 * parted: the first operation that ranks called with different calls or sizes, the ranks that never enqueued an
 * operation the others did, the ranks stuck in one, and a table per rank.
 */
package dev.collectives.tools.trace;
