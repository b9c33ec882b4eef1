import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the pipelines that {@code bench fusion} measures, before the tools compile (a source-file program the
 * build runs with {@code java}): for k in 1, 4, 16 and 64, an interface of k allreduces of n floats end to end in
 * {@code in} and in {@code out}, once planned and once {@code @WrittenOrder}, eagerly ({@code Fusion{k}Eager}) and
 * captured ({@code Fusion{k}Graph}). Annotations cannot take k as a parameter, so each is written out here instead
 * of by hand. Argument: the directory of generated sources.
 */
public final class FusionPipelines {
    private static final int[] KS = {1, 4, 16, 64};

    private FusionPipelines() {
    }

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0], "dev", "collectives", "tools", "bench");
        Files.createDirectories(dir);
        for (int k : KS) {
            write(dir, k, "Eager", "NONE", "eagerly");
            write(dir, k, "Graph", "GRAPH", "each step one graph");
        }
    }

    private static void write(Path dir, int k, String mode, String registration, String how) throws IOException {
        String name = "Fusion" + k + mode;
        String what = k == 1 ? "single allreduce of n floats (k = 1: nothing to fuse)"
                : k + " allreduces of n floats end to end in `in` and in `out`";
        String ops = allReduces(k);
        String source = """
                package dev.collectives.tools.bench;

                import dev.collectives.annotation.AllReduce;
                import dev.collectives.annotation.Buffer;
                import dev.collectives.annotation.CollectivePipeline;
                import dev.collectives.annotation.DataType;
                import dev.collectives.annotation.Dim;
                import dev.collectives.annotation.Registration;
                import dev.collectives.annotation.WrittenOrder;
                import dev.collectives.runtime.DeviceBuffer;

                /** {@link FusionBenchmark}'s %s, %s. */
                @CollectivePipeline(registration = Registration.%s)
                public interface %s {
                    @Dim
                    long n();

                    @Buffer(type = DataType.FLOAT32, countExpr = "%d * n")
                    DeviceBuffer in();

                    @Buffer(type = DataType.FLOAT32, countExpr = "%d * n")
                    DeviceBuffer out();

                %s    void planned();

                    @WrittenOrder
                %s    void written();
                }
                """.formatted(what, how, registration, name, k, k, ops, ops);
        Files.writeString(dir.resolve(name + ".java"), source);
    }

    /** The k annotations, the i-th over elements [i n, (i + 1) n) of both buffers. */
    private static String allReduces(int k) {
        StringBuilder ops = new StringBuilder();
        for (int i = 0; i < k; i++) {
            String offset = i == 0 ? "" : i == 1 ? "n" : i + " * n";
            String sendOffset = offset.isEmpty() ? "" : "sendOffsetExpr = \"" + offset + "\", ";
            String recvOffset = offset.isEmpty() ? "" : "recvOffsetExpr = \"" + offset + "\", ";
            ops.append("    @AllReduce(send = \"in\", ").append(sendOffset).append("recv = \"out\", ").append(recvOffset)
                    .append("countExpr = \"n\")\n");
        }
        return ops.toString();
    }
}
