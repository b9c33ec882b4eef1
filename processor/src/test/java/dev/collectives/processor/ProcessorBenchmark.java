package dev.collectives.processor;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * javac time (CPU time of the compiling thread) for 100 pipeline interfaces, without and with the processor, in one run (same JVM, same sources,
 * alternating, after warm-up). "With" includes compiling the 100 generated classes, so a third figure compiles the
 * interfaces together with the already generated sources, processor off: the difference to "with" is the
 * processor's own time. Prints each figure and the ratios of medians.
 *
 * <pre>
 * mvn -B -q -pl processor -am test-compile
 * mvn -B -q -pl processor dependency:build-classpath -Dmdep.outputFile=target/bench.cp -Dmdep.includeScope=test
 * java -cp processor/target/test-classes:processor/target/classes:runtime/target/classes:$(cat processor/target/bench.cp) \
 *     dev.collectives.processor.ProcessorBenchmark [pipelines = 100] [rounds = 9] [warm-up rounds = 5]
 * </pre>
 */
public final class ProcessorBenchmark {
    private static final java.lang.management.ThreadMXBean THREADS =
            java.lang.management.ManagementFactory.getThreadMXBean();

    private ProcessorBenchmark() {
    }

    public static void main(String[] args) throws IOException {
        int pipelines = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 9;
        int warmUps = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        Path dir = Files.createTempDirectory("collectives-bench");
        List<Path> sources = new ArrayList<>();
        for (int i = 0; i < pipelines; i++) {
            Path file = dir.resolve("src/bench/Pipeline" + i + ".java");
            Files.createDirectories(file.getParent());
            Files.writeString(file, pipeline(i));
            sources.add(file);
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        System.out.printf("%d pipeline interfaces, %d warm-up + %d measured rounds each%n", pipelines, warmUps, rounds);
        for (int warmUp = 0; warmUp < warmUps; warmUp++) {
            compile(javac, sources, dir, false);
            compile(javac, sources, dir, true);
        }
        List<Path> withGenerated = new ArrayList<>(sources);
        try (Stream<Path> generated = Files.walk(dir.resolve("out-with"))) {
            generated.filter(p -> p.toString().endsWith(".java")).forEach(p -> {
                Path copy = dir.resolve("generated").resolve(p.getFileName());
                try {
                    Files.createDirectories(copy.getParent());
                    Files.copy(p, copy);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                withGenerated.add(copy);
            });
        }
        long[] without = new long[rounds];
        long[] with = new long[rounds];
        long[] generatedWithout = new long[rounds];
        for (int r = 0; r < rounds; r++) {
            without[r] = compile(javac, sources, dir, false);
            with[r] = compile(javac, sources, dir, true);
            generatedWithout[r] = compile(javac, withGenerated, dir, false);
            System.out.printf("round %d (javac thread CPU time): without processor %5d ms, with processor %5d ms, "
                    + "interfaces + generated sources without processor %5d ms%n", r, without[r] / 1_000_000, with[r] / 1_000_000,
                    generatedWithout[r] / 1_000_000);
        }
        long medianWithout = median(without);
        long medianWith = median(with);
        long medianGenerated = median(generatedWithout);
        System.out.printf("median: without %d ms, with %d ms, interfaces + generated without %d ms%n",
                medianWithout / 1_000_000, medianWith / 1_000_000, medianGenerated / 1_000_000);
        System.out.printf("ratio with/without processor = %.2f; processor's own share (with - generated) = %d ms, "
                + "ratio with/(interfaces + generated, no processor) = %.2f%n", (double) medianWith / medianWithout,
                (medianWith - medianGenerated) / 1_000_000, (double) medianWith / medianGenerated);
        delete(dir);
    }

    /**
     * CPU nanoseconds of this thread (javac runs in it) for one javac run over the sources; fails loudly if the
     * compilation does. CPU time, unlike wall time, hardly depends on what else the machine is doing.
     */
    private static long compile(JavaCompiler javac, List<Path> sources, Path dir, boolean withProcessor)
            throws IOException {
        Path out = dir.resolve(withProcessor ? "out-with" : "out-without");
        delete(out);
        Files.createDirectories(out);
        List<String> options = new ArrayList<>(List.of("-d", out.toString(), "-s", out.toString(),
                "-classpath", System.getProperty("java.class.path"), "-implicit:none"));
        if (withProcessor) {
            options.addAll(List.of("-processor", CollectivesProcessor.class.getName()));
        } else {
            options.add("-proc:none");
        }
        StringWriter diagnostics = new StringWriter();
        try (StandardJavaFileManager files = javac.getStandardFileManager(null, null, null)) {
            Iterable<? extends JavaFileObject> units = files.getJavaFileObjectsFromPaths(sources);
            long start = THREADS.getCurrentThreadCpuTime();
            boolean ok = javac.getTask(diagnostics, files, null, options, null, units).call();
            long elapsed = THREADS.getCurrentThreadCpuTime() - start;
            if (!ok) {
                throw new IllegalStateException("benchmark sources do not compile:\n" + diagnostics);
            }
            return elapsed;
        }
    }

    /** A realistic pipeline: a block with views, two buffers, several steps of different ops. */
    static String pipeline(int i) {
        String registration = List.of("GRAPH", "LOCAL", "NONE").get(i % 3);
        return "package bench;\n"
                + "import dev.collectives.annotation.*;\n"
                + "import dev.collectives.runtime.DeviceBuffer;\n"
                + "@CollectivePipeline(registration = Registration." + registration + ")\n"
                + "public interface Pipeline" + i + " {\n"
                + "    @Buffer(count = 1 << 22) DeviceBuffer block();\n"
                + "    @View(of = \"block\", type = DataType.FLOAT32, count = 4096) DeviceBuffer send();\n"
                + "    @View(of = \"block\", offsetBytes = 1 << 20, type = DataType.FLOAT32, count = 65536) DeviceBuffer recv();\n"
                + "    @Buffer(type = DataType.FLOAT32, count = 65536) DeviceBuffer other();\n"
                + "    @AllReduce(send = \"send\", recv = \"recv\", count = 1024, op = ReduceOp.SUM)\n"
                + "    @AllReduce(send = \"send\", sendOffset = 1024, recv = \"recv\", recvOffset = 2048, count = " + (512 + i)
                + ")\n"
                + "    void step();\n"
                + "    @AllGather(send = \"send\", recv = \"recv\", sendCount = 256)\n"
                + "    void gather();\n"
                + "    @Broadcast(send = \"other\", recv = \"recv\", count = 128, root = 0)\n"
                + "    @ReduceScatter(send = \"other\", recv = \"send\", recvCount = 64, op = ReduceOp.MAX)\n"
                + "    void mixed();\n"
                + "    @Send(buffer = \"send\", count = 64) @Recv(buffer = \"recv\", count = 64, offset = 4096)\n"
                + "    void ring();\n"
                + "}\n";
    }

    private static long median(long[] values) {
        long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }

    private static void delete(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
