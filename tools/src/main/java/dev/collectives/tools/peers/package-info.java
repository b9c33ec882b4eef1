/**
 * Java ranks in a job of another library ({@code peers-rank}, started by {@code gpu/peers.sh}): a rank joins with a
 * unique id made by CuPy's ranks, or makes the id for them, and runs the seed examples' ops, an allgather, a
 * reducescatter and a broadcast from a rank of the other library, in each registration mode, with every result
 * compared element by element on every rank.
 */
package dev.collectives.tools.peers;
