package dev.collectives.tools.bench;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/** The GPUs of this host as a benchmark's report names them, from {@code nvidia-smi}. */
final class Cards {
    private Cards() {}

    /** Each GPU as "GPU 0, NVIDIA H100 80GB HBM3, 580.95.05" (index, name, driver), joined by "; ", or why not known. */
    static String describe() {
        try {
            Process smi = new ProcessBuilder(
                            "nvidia-smi", "--query-gpu=index,name,driver_version", "--format=csv,noheader")
                    .redirectErrorStream(true)
                    .start();
            String text;
            try (InputStream in = smi.getInputStream()) {
                text = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
            }
            if (!smi.waitFor(10, TimeUnit.SECONDS) || smi.exitValue() != 0 || text.isEmpty()) {
                return "not known (nvidia-smi answered: " + text + ")";
            }
            return "GPU " + String.join("; GPU ", text.lines().toList());
        } catch (IOException e) {
            return "not known (no nvidia-smi: " + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "not known (interrupted)";
        }
    }
}
