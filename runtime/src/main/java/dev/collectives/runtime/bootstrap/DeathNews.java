package dev.collectives.runtime.bootstrap;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Which ranks of a watched TCP job have heard of which deaths, as the job's server ({@link JobServer}) keeps
 * it. A rank that watches hears each death at once ({@link Channel#GONE})
 * and then stops watching until it says it watches again ({@link Channel#WATCH}, after the survivors met); a death it
 * has not heard of by then, because it came while the rank was not watching, is news at once. An operation's answer
 * tells a rank of every death so far. So every death reaches every survivor, once, also after a shrink or a reform.
 * Guarded by the server's lock.
 */
final class DeathNews {
    private boolean[] watching;
    /** How many of {@link #deaths} each rank has heard of. */
    private int[] heard;

    private final List<Cause> deaths = new ArrayList<>();

    DeathNews(int size) {
        this.watching = new boolean[size];
        this.heard = new int[size];
    }

    /**
     * Rank {@code rank} watches its job from now on; returns the first death it has not heard of, which it is to
     * hear now (it then no longer watches), or null.
     */
    Cause watch(int rank) {
        Cause news = unheard(rank);
        watching[rank] = news == null;
        heard[rank] = deaths.size();
        return news;
    }

    /**
     * Rank {@code rank} asks to stop watching: returns whether it still watched (it heard of every death so far, and
     * is told its watch ends); one that did not was told of a death, which ended its watch.
     */
    boolean stopWatching(int rank) {
        boolean was = watching[rank];
        watching[rank] = false;
        return was;
    }

    /** The first death that rank {@code rank} has not heard of, or null. */
    Cause unheard(int rank) {
        return heard[rank] < deaths.size() ? deaths.get(heard[rank]) : null;
    }

    /** Rank {@code rank} takes part in an operation, whose answer says every death so far: it no longer watches. */
    void operating(int rank) {
        watching[rank] = false;
        heard[rank] = deaths.size();
    }

    /** Makes room for {@code capacity} ranks: the job's and the processes waiting to join. */
    void makeRoom(int capacity) {
        watching = Arrays.copyOf(watching, capacity);
        heard = Arrays.copyOf(heard, capacity);
    }

    /** A process in the place of rank {@code rank}, or one that joined as it, starts: it has heard of every death so far. */
    void replaced(int rank) {
        operating(rank);
    }

    /** Rank {@code dead} died for {@code reason}; returns the ranks that watch, which are to hear it now. */
    List<Integer> died(int dead, Cause reason) {
        deaths.add(reason);
        watching[dead] = false;
        List<Integer> told = new ArrayList<>();
        for (int r = 0; r < watching.length; r++) {
            if (watching[r]) {
                watching[r] = false;
                heard[r] = deaths.size();
                told.add(r);
            }
        }
        return told;
    }

    /** Why each rank that died is gone, in the order they died. */
    List<String> deaths() {
        return deaths.stream().map(Cause::text).toList();
    }
}
