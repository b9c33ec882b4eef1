package dev.collectives.tools.bench;

import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * What the benchmark commands share on the command line, so that each exits with the statuses its help lists: a
 * bad option value or an unknown or unavailable backend is a bad command line ({@link #USAGE}, found before anything
 * runs), and whatever fails afterwards is a failed run ({@link #FAILED}, its message printed).
 */
public final class BenchCommandLine {
    /** Exit status: the benchmark ran, and every size it checked was right. */
    public static final int PASSED = 0;
    /** Exit status: a size had wrong elements, or the run failed. */
    public static final int FAILED = 1;
    /** Exit status: a bad command line, or an unavailable backend. */
    public static final int USAGE = 2;

    /** A failure while a benchmark runs: its message on the command's error stream, and {@link #FAILED}. */
    public static final IExecutionExceptionHandler RUN_FAILED = (e, command, parsed) -> {
        command.getErr()
                .println("error: "
                        + (e instanceof NoSuchFileException missing
                                ? "no such file: " + missing.getFile() // its own message is the bare path
                                : e.getMessage() == null ? e.toString() : e.getMessage()));
        return FAILED;
    };

    private BenchCommandLine() {}

    /** The command line of a benchmark run on its own: enum values in any case, a failed run reported as such. */
    static CommandLine of(Object command) {
        return new CommandLine(command)
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setExecutionExceptionHandler(RUN_FAILED);
    }

    /** The sizes from {@code --min} doubling up to {@code --max}; a bad command line when there are none. */
    static List<Long> doublingSizes(CommandSpec spec, long minBytes, long maxBytes) {
        if (minBytes < 1 || maxBytes < minBytes) {
            throw new ParameterException(
                    spec.commandLine(),
                    "--min and --max need 1 <= --min <= --max, not --min=" + minBytes + " --max=" + maxBytes);
        }
        List<Long> sizes = new ArrayList<>();
        for (long bytes = minBytes; bytes <= maxBytes; bytes *= 2) {
            sizes.add(bytes);
            if (bytes > maxBytes / 2) {
                break; // the next would pass --max, or overflow
            }
        }
        return sizes;
    }

    /** Fails unless the largest of {@code sizes} gives each rank at least one float32 element of every op. */
    static void requireOneElement(CommandSpec spec, Collection<Op> ops, int ranks, List<Long> sizes) {
        long largest = sizes.get(sizes.size() - 1);
        for (Op op : ops) {
            if (op.count(largest, ranks) == 0) {
                throw new ParameterException(
                        spec.commandLine(),
                        "--max: " + op.name() + " on " + ranks
                                + " rank(s) needs sizes of at least " + op.totalBytes(1, ranks)
                                + " bytes, one float32 per "
                                + "rank; the largest here is " + largest);
            }
        }
    }

    /** {@code value} when it is at least 1; a bad command line naming {@code option} otherwise. */
    static int positive(CommandSpec spec, String option, int value) {
        if (value < 1) {
            throw new ParameterException(spec.commandLine(), option + " needs a positive whole number, not " + value);
        }
        return value;
    }
}
