package dev.collectives.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.bytedeco.javacpp.Loader;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The JNI libraries the runtime jar carries, one per binding class and platform, in the class tree where JavaCPP's
 * Loader looks for them: each is an ELF library for its platform's machine that exports a JNI function for every
 * native method of its class, and the linux-arm64 ones, cross-compiled, load and answer on an aarch64 machine
 * (qemu-user). The libraries of the platform building them must be there; the linux-arm64 ones are skipped where
 * the cross compiler or qemu-user is not installed, unless -Dcollectives.require.arm64=true (CI) makes that a
 * failure.
 */
class NativeLibrariesTest {
    private static final boolean ARM64_REQUIRED = Boolean.getBoolean("collectives.require.arm64");
    private static final String ARM64_TOOLS = "install g++-aarch64-linux-gnu and qemu-user (README, Platforms)";
    private static final int EM_X86_64 = 62;
    private static final int EM_AARCH64 = 183;
    // package-private in their backends: named, and loaded without running their initializers (which load them)
    private static final Class<?> NATIVE_SHIM = binding("dev.collectives.backend.device.NativeShim");
    private static final Class<?> NATIVE_KERNELS = binding("dev.collectives.backend.sim.internal.NativeKernels");

    static Stream<Arguments> librariesByPlatform() {
        return Stream.of("linux-x86_64", "linux-arm64")
                .flatMap(platform ->
                        Stream.of(NATIVE_SHIM, NATIVE_KERNELS).map(binding -> Arguments.of(platform, binding)));
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("librariesByPlatform")
    void builtForItsMachineWithEveryJniFunction(String platform, Class<?> binding) throws IOException {
        URL library = library(platform, binding);
        Elf elf;
        try (InputStream in = library.openStream()) {
            elf = Elf.parse(in.readAllBytes());
        }

        int machine = platform.equals("linux-arm64") ? EM_AARCH64 : EM_X86_64;
        assertEquals(
                machine,
                elf.machine(),
                library + " is built for ELF machine " + elf.machine() + ", not " + machine + " (" + platform
                        + "): the wrong compiler built it");
        Set<String> missing = new TreeSet<>(jniFunctions(binding));
        missing.add("JNI_OnLoad");
        missing.removeAll(elf.exportedFunctions());
        assertTrue(missing.isEmpty(), library + " does not export " + missing);
    }

    @Test
    void linuxArm64LibrariesLoadAndAnswerUnderQemu(@TempDir Path dir) throws Exception {
        presentOrSkipped(
                onPath("aarch64-linux-gnu-g++") && onPath("qemu-aarch64"),
                "aarch64-linux-gnu-g++ or qemu-aarch64 is not on the PATH: " + ARM64_TOOLS,
                ARM64_REQUIRED);
        Path program = dir.resolve("call_natives");
        run("aarch64-linux-gnu-g++", "-O1", "-o", program.toString(), "src/test/native/call_natives.cpp", "-ldl");

        String output = run(
                "qemu-aarch64",
                "-L",
                "/usr/aarch64-linux-gnu",
                program.toString(),
                file(library("linux-arm64", NATIVE_KERNELS)),
                file(library("linux-arm64", NATIVE_SHIM)));

        List<String> lines = output.lines().toList();
        assertEquals(2, lines.size(), output);
        assertTrue(Long.parseLong(lines.get(0).replace("streamMinBytes ", "")) > 0, output);
        assertTrue(Integer.parseInt(lines.get(1).replace("slotCount ", "")) > 0, output);
    }

    private static Class<?> binding(String name) {
        try {
            return Class.forName(name, false, NativeLibrariesTest.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new AssertionError("no JNI binding " + name, e);
        }
    }

    /** The library of a binding class for a platform; fails where it must have been built, else skips. */
    private static URL library(String platform, Class<?> binding) {
        URL library = binding.getResource(platform + "/libjni" + binding.getSimpleName() + ".so");
        boolean arm64 = platform.equals("linux-arm64");
        presentOrSkipped(
                library != null,
                "no " + platform + " build of " + binding.getSimpleName()
                        + (arm64 ? ", cross-compiled where aarch64-linux-gnu-g++ is: " + ARM64_TOOLS : ""),
                platform.equals(Loader.getPlatform()) || arm64 && ARM64_REQUIRED);
        return library;
    }

    private static void presentOrSkipped(boolean present, String why, boolean required) {
        if (!present && required) {
            fail(why);
        }
        Assumptions.assumeTrue(present, why);
    }

    /** The JNI names of a class's native methods: none is overloaded, and their names are ASCII. */
    private static Set<String> jniFunctions(Class<?> binding) {
        String prefix = "Java_" + binding.getName().replace("_", "_1").replace('.', '_') + "_";
        Set<String> names = new HashSet<>();
        for (Method method : binding.getDeclaredMethods()) {
            if (Modifier.isNative(method.getModifiers())) {
                names.add(prefix + method.getName().replace("_", "_1"));
            }
        }
        return names;
    }

    private static boolean onPath(String command) {
        return Arrays.stream(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .anyMatch(directory -> Files.isExecutable(Path.of(directory, command)));
    }

    private static String file(URL url) throws URISyntaxException {
        return Path.of(url.toURI()).toString();
    }

    private static String run(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(1, TimeUnit.MINUTES), String.join(" ", command) + " did not finish");
        assertEquals(0, process.exitValue(), String.join(" ", command) + " failed:\n" + output);
        return output;
    }

    /** What the test reads of a 64-bit little-endian ELF file: e_machine, and the defined global functions. */
    private record Elf(int machine, Set<String> exportedFunctions) {
        private static final int SHT_DYNSYM = 11;
        private static final int SYMBOL_SIZE = 24;
        private static final int STB_GLOBAL = 1;
        private static final int STT_FUNC = 2;

        static Elf parse(byte[] bytes) {
            ByteBuffer elf = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            assertTrue(
                    elf.getInt(0) == 0x464c457f && elf.get(4) == 2 && elf.get(5) == 1,
                    "not a 64-bit little-endian ELF file");
            int machine = Short.toUnsignedInt(elf.getShort(0x12));
            int sectionTable = Math.toIntExact(elf.getLong(0x28));
            int sectionSize = Short.toUnsignedInt(elf.getShort(0x3a));
            int sections = Short.toUnsignedInt(elf.getShort(0x3c));
            for (int s = 0; s < sections; s++) {
                int header = sectionTable + s * sectionSize;
                if (elf.getInt(header + 4) == SHT_DYNSYM) {
                    int strings =
                            Math.toIntExact(elf.getLong(sectionTable + elf.getInt(header + 40) * sectionSize + 24));
                    return new Elf(
                            machine,
                            functions(
                                    elf,
                                    Math.toIntExact(elf.getLong(header + 24)),
                                    Math.toIntExact(elf.getLong(header + 32)) / SYMBOL_SIZE,
                                    strings));
                }
            }
            return new Elf(machine, Set.of());
        }

        private static Set<String> functions(ByteBuffer elf, int table, int count, int strings) {
            Set<String> names = new HashSet<>();
            for (int i = 0; i < count; i++) {
                int symbol = table + i * SYMBOL_SIZE;
                int info = elf.get(symbol + 4);
                boolean defined = elf.getShort(symbol + 6) != 0;
                if (defined && (info >> 4) == STB_GLOBAL && (info & 0xf) == STT_FUNC) {
                    names.add(string(elf, strings + elf.getInt(symbol)));
                }
            }
            return names;
        }

        private static String string(ByteBuffer elf, int start) {
            int end = start;
            while (elf.get(end) != 0) {
                end++;
            }
            return new String(elf.array(), start, end - start, StandardCharsets.US_ASCII);
        }
    }
}
