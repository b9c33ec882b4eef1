package dev.collectives.processor;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;
import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.Processor;
import javax.annotation.processing.RoundEnvironment;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.TypeElement;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

/**
 * javac time (CPU time of the compiling thread) for 100 pipeline interfaces, without and with the processor, in one
 * run (same JVM, same sources, alternating, after warm-up). "With" includes compiling the 100 generated classes, so a
 * third figure compiles the interfaces together with the already generated sources, processor off: the difference
 * to "with" is the processor's own time and javac's extra rounds. The CPU time spent inside the processor's calls is
 * measured too: that figure does not carry the noise of two whole compilations. A row "floor" is a processor that
 * only writes the same generated files through the Filer: what javac's extra rounds cost by themselves, which no
 * processor generating these files can go below; the last row writes an empty class of each generated name instead,
 * what the rounds cost around these interfaces whatever is generated. Prints each figure, the ratios of medians, and
 * the processor's own part (its figures less the floor's): a report, with no figure to pass or fail.
 *
 * <p>{@code -Dbench.baseline=CLASSPATH} (another build's processor classes, with the JavaPoet jar and runtime classes
 * it was built with) adds the same figures for that processor, interleaved in the same rounds: a before/after table
 * from one run, on one load, and the difference of the two processors' time inside their calls round by round (its
 * median and p25–p75). Its generated code is compiled with that class path first, against the runtime it calls.
 *
 * <pre>
 * mvn -B -q -pl processor -am test-compile dependency:build-classpath -Dmdep.outputFile=target/bench.cp \
 *     -Dmdep.includeScope=test
 * java -cp processor/target/test-classes:processor/target/classes:runtime/target/classes:$(cat processor/target/bench.cp) \
 *     [-Dbench.baseline=OLD_PROCESSOR_CLASSES:JAVAPOET_JAR:OLD_RUNTIME_CLASSES] \
 *     dev.collectives.processor.ProcessorBenchmark [pipelines = 100] [rounds = 9] [warm-up rounds = 5]
 * </pre>
 */
public final class ProcessorBenchmark {
    private static final java.lang.management.ThreadMXBean THREADS =
            java.lang.management.ManagementFactory.getThreadMXBean();
    /** CPU nanoseconds spent inside the processor's calls since last reset to 0. */
    private static long insideProcessor;

    private ProcessorBenchmark() {}

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
        List<ProcessorUnderTest> processors =
                new ArrayList<>(List.of(new ProcessorUnderTest("current", CollectivesProcessor::new)));
        String baseline = System.getProperty("bench.baseline");
        if (baseline != null) {
            processors.add(ProcessorUnderTest.loadedFrom("baseline", baseline));
        }
        for (int warmUp = 0; warmUp < warmUps; warmUp++) {
            compile(javac, sources, dir, null);
            for (ProcessorUnderTest processor : processors) {
                compile(javac, sources, dir, processor);
            }
        }
        List<List<Path>> withGenerated = new ArrayList<>();
        for (ProcessorUnderTest processor : processors) {
            compile(javac, sources, dir, processor);
            withGenerated.add(
                    copyGenerated(sources, dir.resolve("out-with"), dir.resolve("generated-" + processor.name())));
        }
        int measuredFirst = processors.size();
        // the floor: what javac's extra rounds cost for the same generated files, with no processor work at all
        Map<String, String> currentGenerated = texts(withGenerated
                .get(0)
                .subList(sources.size(), withGenerated.get(0).size()));
        processors.add(ProcessorUnderTest.replaying("floor (writes the same files, nothing else)", currentGenerated));
        withGenerated.add(withGenerated.get(0));
        // below that: what javac's rounds cost around these interfaces whatever a processor generates, here an empty
        // class of the same name per pipeline (its ratio has a smaller denominator; its "with - that" compares)
        Map<String, String> emptyClasses = new LinkedHashMap<>();
        for (String name : currentGenerated.keySet()) {
            emptyClasses.put(
                    name,
                    "package " + name.substring(0, name.lastIndexOf('.')) + ";\npublic final class "
                            + name.substring(name.lastIndexOf('.') + 1) + " {\n}\n");
        }
        processors.add(ProcessorUnderTest.replaying("floor, an empty class per pipeline", emptyClasses));
        withGenerated.add(written(sources, emptyClasses, dir.resolve("generated-empty")));
        for (int warmUp = 0; warmUp < warmUps; warmUp++) {
            for (ProcessorUnderTest added : processors.subList(measuredFirst, processors.size())) {
                compile(javac, sources, dir, added);
            }
        }
        long[] without = new long[rounds];
        long[][] with = new long[processors.size()][rounds];
        long[][] generatedWithout = new long[processors.size()][rounds];
        long[][] inside = new long[processors.size()][rounds];
        for (int r = 0; r < rounds; r++) {
            without[r] = compile(javac, sources, dir, null);
            StringBuilder line = new StringBuilder(String.format(
                    "round %d (javac thread CPU time): without processor %5d ms", r, without[r] / 1_000_000));
            for (int p = 0; p < processors.size(); p++) {
                insideProcessor = 0;
                with[p][r] = compile(javac, sources, dir, processors.get(p));
                inside[p][r] = insideProcessor;
                generatedWithout[p][r] = compile(
                        javac,
                        withGenerated.get(p),
                        dir,
                        null,
                        processors.get(p).classPath());
                line.append(String.format(
                        "; %s: with processor %5d ms (inside it %4d ms), interfaces + "
                                + "generated sources without processor %5d ms",
                        processors.get(p).name(),
                        with[p][r] / 1_000_000,
                        inside[p][r] / 1_000_000,
                        generatedWithout[p][r] / 1_000_000));
            }
            System.out.println(line);
        }
        long medianWithout = median(without);
        System.out.printf("median without processor: %d ms%n", medianWithout / 1_000_000);
        System.out.println("| processor | with | interfaces + generated, no processor | with - that "
                + "| inside the processor | with / without | with / (interfaces + generated) "
                + "| the same, median of the rounds' own ratios | their p25–p75 |");
        System.out.println("|---|---|---|---|---|---|---|---|---|");
        for (int p = 0; p < processors.size(); p++) {
            long medianWith = median(with[p]);
            long medianGenerated = median(generatedWithout[p]);
            // a round's two compilations run back to back: their ratio does not carry the drift between rounds
            long[] roundRatios = new long[rounds];
            for (int r = 0; r < rounds; r++) {
                roundRatios[r] = with[p][r] * 1000 / generatedWithout[p][r];
            }
            Quartiles ratios = Quartiles.of(roundRatios);
            System.out.printf(
                    "| %s | %d ms | %d ms | %d ms | %d ms | %.2f | %.2f | %.2f | %.2f–%.2f |%n",
                    processors.get(p).name(),
                    medianWith / 1_000_000,
                    medianGenerated / 1_000_000,
                    (medianWith - medianGenerated) / 1_000_000,
                    median(inside[p]) / 1_000_000,
                    (double) medianWith / medianWithout,
                    (double) medianWith / medianGenerated,
                    ratios.median() / 1000.0,
                    ratios.p25() / 1000.0,
                    ratios.p75() / 1000.0);
        }
        int floor = processors.size() - 2;
        for (int p = 0; p < floor; p++) {
            long[] ownInside = new long[rounds];
            long[] ownWith = new long[rounds];
            for (int r = 0; r < rounds; r++) {
                ownInside[r] = inside[p][r] - inside[floor][r];
                ownWith[r] = with[p][r] - with[floor][r];
            }
            System.out.printf(
                    "%s: its own part, less the floor's in the same round (medians): inside the processor "
                            + "%d ms, with processor %d ms%n",
                    processors.get(p).name(), median(ownInside) / 1_000_000, median(ownWith) / 1_000_000);
        }
        // two processors' compilations in a round run back to back: their difference carries less drift
        if (baseline != null) {
            printPaired("current - baseline", inside[0], inside[1]);
        }
        delete(dir);
    }

    /** The per-round difference {@code a - b} of two processors' time inside their calls: median and p25–p75. */
    private static void printPaired(String label, long[] a, long[] b) {
        long[] paired = new long[a.length];
        int lower = 0;
        for (int r = 0; r < a.length; r++) {
            paired[r] = a[r] - b[r];
            lower += paired[r] < 0 ? 1 : 0;
        }
        Quartiles difference = Quartiles.of(paired);
        System.out.printf(
                "%s, inside the processor, per round: median %d ms (p25–p75 %d to %d ms), lower in %d of "
                        + "%d rounds%n",
                label,
                difference.median() / 1_000_000,
                difference.p25() / 1_000_000,
                difference.p75() / 1_000_000,
                lower,
                a.length);
    }

    /**
     * CPU nanoseconds of this thread (javac runs in it) for one javac run over the sources; fails loudly if the
     * compilation does. CPU time, unlike wall time, hardly depends on what else the machine is doing.
     */
    private static long compile(JavaCompiler javac, List<Path> sources, Path dir, ProcessorUnderTest processor)
            throws IOException {
        return compile(
                javac,
                sources,
                dir,
                processor,
                processor != null ? processor.classPath() : System.getProperty("java.class.path"));
    }

    /** The same, against {@code classPath}: a baseline's generated code compiles against the runtime it was made for. */
    private static long compile(
            JavaCompiler javac, List<Path> sources, Path dir, ProcessorUnderTest processor, String classPath)
            throws IOException {
        Path out = dir.resolve(processor != null ? "out-with" : "out-without");
        delete(out);
        Files.createDirectories(out);
        List<String> options = new ArrayList<>(
                List.of("-d", out.toString(), "-s", out.toString(), "-classpath", classPath, "-implicit:none"));
        if (processor == null) {
            options.add("-proc:none");
        }
        StringWriter diagnostics = new StringWriter();
        try (StandardJavaFileManager files = javac.getStandardFileManager(null, null, null)) {
            Iterable<? extends JavaFileObject> units = files.getJavaFileObjectsFromPaths(sources);
            long start = THREADS.getCurrentThreadCpuTime();
            JavaCompiler.CompilationTask task = javac.getTask(diagnostics, files, null, options, null, units);
            if (processor != null) {
                task.setProcessors(List.of(timed(processor.create())));
            }
            boolean ok = task.call();
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
                + "    @AllReduce(send = \"send\", sendOffset = 1024, recv = \"recv\", recvOffset = 2048, count = "
                + (512 + i)
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

    /** Generated source files by the qualified name of their class. */
    private static Map<String, String> texts(List<Path> generated) throws IOException {
        Map<String, String> texts = new LinkedHashMap<>();
        for (Path file : generated) {
            String text = Files.readString(file);
            String simpleName = file.getFileName().toString().replace(".java", "");
            String pkg = text.lines()
                    .filter(l -> l.startsWith("package "))
                    .findFirst()
                    .orElseThrow()
                    .substring("package ".length())
                    .replace(";", "");
            texts.put(pkg + "." + simpleName, text);
        }
        return texts;
    }

    /** The sources plus {@code texts} written as files under {@code dir}. */
    private static List<Path> written(List<Path> sources, Map<String, String> texts, Path dir) throws IOException {
        List<Path> all = new ArrayList<>(sources);
        for (Map.Entry<String, String> text : texts.entrySet()) {
            Path file = dir.resolve(text.getKey().replace('.', '/') + ".java");
            Files.createDirectories(file.getParent());
            Files.writeString(file, text.getValue());
            all.add(file);
        }
        return all;
    }

    /** The sources plus copies of the sources generated into {@code out}. */
    private static List<Path> copyGenerated(List<Path> sources, Path out, Path copies) throws IOException {
        List<Path> all = new ArrayList<>(sources);
        try (Stream<Path> generated = Files.walk(out)) {
            for (Path p : (Iterable<Path>) generated.filter(f -> f.toString().endsWith(".java"))::iterator) {
                Path copy = copies.resolve(p.getFileName());
                Files.createDirectories(copy.getParent());
                Files.copy(p, copy);
                all.add(copy);
            }
        }
        return all;
    }

    /**
     * A processor to measure: a fresh instance per compilation, as javac makes one, and the class path javac compiles
     * against with it (another build's runtime first, where its generated code calls that runtime).
     */
    private record ProcessorUnderTest(String name, Supplier<Processor> factory, String classPath) {
        ProcessorUnderTest(String name, Supplier<Processor> factory) {
            this(name, factory, System.getProperty("java.class.path"));
        }

        /** The processor class of another build, in a class loader of its own (over the platform's). */
        static ProcessorUnderTest loadedFrom(String name, String classPath) throws IOException {
            List<URL> urls = new ArrayList<>();
            for (String entry : classPath.split(java.io.File.pathSeparator)) {
                urls.add(Path.of(entry).toUri().toURL());
            }
            ClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader());
            return new ProcessorUnderTest(
                    name,
                    () -> {
                        try {
                            return (Processor) loader.loadClass(CollectivesProcessor.class.getName())
                                    .getDeclaredConstructor()
                                    .newInstance();
                        } catch (ReflectiveOperationException e) {
                            throw new IllegalStateException("no processor in " + classPath, e);
                        }
                    },
                    classPath + java.io.File.pathSeparator + System.getProperty("java.class.path"));
        }

        /** A processor that only writes {@code texts} (by qualified name) through the Filer in its first round. */
        static ProcessorUnderTest replaying(String name, Map<String, String> texts) {
            return new ProcessorUnderTest(name, () -> new ReplayingProcessor(texts));
        }

        Processor create() {
            return factory.get();
        }
    }

    /** Writes given sources in the first round; claims what the Collectives processor claims, so rounds match. */
    private static final class ReplayingProcessor extends AbstractProcessor {
        private final Map<String, String> sources;
        private boolean written;

        ReplayingProcessor(Map<String, String> sources) {
            this.sources = sources;
        }

        @Override
        public Set<String> getSupportedAnnotationTypes() {
            return new CollectivesProcessor().getSupportedAnnotationTypes();
        }

        @Override
        public SourceVersion getSupportedSourceVersion() {
            return SourceVersion.latestSupported();
        }

        @Override
        public boolean process(Set<? extends TypeElement> annotations, RoundEnvironment round) {
            if (written) {
                return true;
            }
            written = true;
            for (Map.Entry<String, String> source : sources.entrySet()) {
                try (Writer writer = processingEnv
                        .getFiler()
                        .createSourceFile(source.getKey())
                        .openWriter()) {
                    writer.write(source.getValue());
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
            return true;
        }
    }

    /**
     * The processor behind a proxy that sums the CPU time of every call into it in {@link #insideProcessor}: what
     * the difference of two whole compilations gives only through their noise. javac calls processors in its own
     * thread, so this time is part of the compilation's.
     */
    private static Processor timed(Processor processor) {
        return (Processor) Proxy.newProxyInstance(
                Processor.class.getClassLoader(), new Class<?>[] {Processor.class}, (proxy, method, args) -> {
                    long start = THREADS.getCurrentThreadCpuTime();
                    try {
                        return method.invoke(processor, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    } finally {
                        insideProcessor += THREADS.getCurrentThreadCpuTime() - start;
                    }
                });
    }

    private static long median(long[] values) {
        return Quartiles.of(values).median();
    }

    /** The 25th, 50th and 75th percentiles of some figures (the nearest ranks below). */
    private record Quartiles(long p25, long median, long p75) {
        static Quartiles of(long[] values) {
            long[] sorted = values.clone();
            Arrays.sort(sorted);
            int n = sorted.length;
            return new Quartiles(sorted[n / 4], sorted[n / 2], sorted[(3 * n) / 4]);
        }
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
