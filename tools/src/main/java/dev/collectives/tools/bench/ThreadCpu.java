package dev.collectives.tools.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The CPU time the threads of some processes have spent, by thread, as Linux's {@code /proc} tells it; elsewhere
 * nothing. {@link #since} adds up what each kind of thread (its name as the kernel keeps it, 15 characters, less its
 * number: "C2 CompilerThre", "bench-member") spent between two snapshots, so that a benchmark can say where a phase's
 * CPU went: its own threads, the JIT compilers, the garbage collector.
 */
final class ThreadCpu {
    /** The kernel's clock ticks per second, in which {@code /proc} counts CPU time (100 on Linux's usual builds). */
    private static final double TICKS_PER_SECOND = 100;

    /** Each thread's name and CPU ticks so far, by process and thread id. */
    private final Map<String, Map<String, Long>> ticksByThread;

    private final Map<String, String> names;

    private ThreadCpu(Map<String, Map<String, Long>> ticksByThread, Map<String, String> names) {
        this.ticksByThread = ticksByThread;
        this.names = names;
    }

    /** The threads of {@code pids} now. */
    static ThreadCpu of(List<Long> pids) {
        Map<String, Map<String, Long>> ticks = new HashMap<>();
        Map<String, String> names = new HashMap<>();
        for (long pid : pids) {
            Map<String, Long> threads = new HashMap<>();
            ticks.put(Long.toString(pid), threads);
            try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
                tasks.forEach(task -> {
                    try {
                        String stat = Files.readString(task.resolve("stat"));
                        String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                        // after the name: state, then 10 fields, then utime and stime (fields 14 and 15 of stat)
                        String[] fields =
                                stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                        String id = pid + "/" + task.getFileName();
                        threads.put(id, Long.parseLong(fields[11]) + Long.parseLong(fields[12]));
                        names.put(id, kind(name));
                    } catch (IOException | RuntimeException e) {
                        // the thread ended meanwhile
                    }
                });
            } catch (IOException e) {
                // no /proc here, or the process ended: nothing to add
            }
        }
        return new ThreadCpu(ticks, names);
    }

    /** The seconds of CPU each kind of thread spent since {@code before}; what threads that ended spent is missed. */
    Map<String, Double> since(ThreadCpu before) {
        Map<String, Double> seconds = new TreeMap<>();
        ticksByThread.forEach((pid, threads) -> threads.forEach((id, ticks) -> {
            long earlier = before.ticksByThread.getOrDefault(pid, Map.of()).getOrDefault(id, 0L);
            seconds.merge(names.get(id), (ticks - earlier) / TICKS_PER_SECOND, Double::sum);
        }));
        return seconds;
    }

    /** A thread's name without its number: "GC Thread#3" is a "GC Thread", "bench-member-17" a "bench-member". */
    private static String kind(String name) {
        int end = name.length();
        while (end > 0 && (Character.isDigit(name.charAt(end - 1)) || "#-".indexOf(name.charAt(end - 1)) >= 0)) {
            end--;
        }
        return end == 0 ? name : name.substring(0, end);
    }
}
