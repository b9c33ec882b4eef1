package dev.collectives.runtime.spi;

import dev.collectives.runtime.FlightRecord;
import dev.collectives.runtime.FlightRecord.Entry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * A flight record as JSON, the dump format (version {@value FlightRecord#VERSION}), written by hand since the
 * runtime has no JSON library:
 *
 * <pre>{@code
 * {"format": "collectives-flight-record", "version": 3, "reason": "failure: ...",
 *  "rank": 0, "size": 2, "backend": "sim", "job": "3fa2c1d0e9b7", "lineage": ["formed", "shrunk #0 without rank 1"],
 *  "capacity": 2000, "recorded": 12,
 *  "entries": [{"seq": 12, "pipeline": "p.Pipeline", "step": "step", "arguments": [1000], "op": 0,
 *               "call": "allReduce", "send": "0x7f0000001000", "sendOffset": 0, "recv": "0x7f0000002000",
 *               "recvOffset": 0, "count": 1000, "type": "FLOAT32", "peer": -1, "registration": "registered",
 *               "graphOps": [], "state": "enqueued", "enqueuedMicros": 1764800000000000, "completedMicros": 0}]}
 * }</pre>
 */
final class FlightRecordJson {
    private FlightRecordJson() {}

    /** Writes {@code record} dumped for {@code reason} to {@code file}, whole or not at all. */
    static void write(FlightRecord record, String reason, Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        Path partial = file.resolveSibling(file.getFileName() + ".partial");
        Files.writeString(partial, toJson(record, reason), StandardCharsets.UTF_8);
        Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    static String toJson(FlightRecord record, String reason) {
        StringBuilder json = new StringBuilder(256 + record.entries().size() * 400);
        json.append("{\"format\": ")
                .append(quoted(FlightRecord.FORMAT))
                .append(", \"version\": ")
                .append(FlightRecord.VERSION)
                .append(", \"reason\": ")
                .append(quoted(reason))
                .append(",\n \"rank\": ")
                .append(record.rank())
                .append(", \"size\": ")
                .append(record.size())
                .append(", \"backend\": ")
                .append(quoted(record.backend()))
                .append(", \"job\": ")
                .append(quoted(record.job()))
                .append(", \"lineage\": ")
                .append(quotedList(record.lineage()))
                .append(",\n \"capacity\": ")
                .append(record.capacity())
                .append(", \"recorded\": ")
                .append(record.recorded())
                .append(",\n \"entries\": [");
        String separator = "\n  ";
        for (Entry e : record.entries()) {
            json.append(separator);
            separator = ",\n  ";
            json.append("{\"seq\": ")
                    .append(e.seq())
                    .append(", \"pipeline\": ")
                    .append(quoted(e.pipeline()))
                    .append(", \"step\": ")
                    .append(quoted(e.step()))
                    .append(", \"arguments\": ")
                    .append(e.arguments())
                    .append(", \"op\": ")
                    .append(e.op())
                    .append(", \"call\": ")
                    .append(quoted(e.call()))
                    .append(", \"send\": ")
                    .append(quoted("0x" + Long.toHexString(e.send())))
                    .append(", \"sendOffset\": ")
                    .append(e.sendOffset())
                    .append(", \"recv\": ")
                    .append(quoted("0x" + Long.toHexString(e.recv())))
                    .append(", \"recvOffset\": ")
                    .append(e.recvOffset())
                    .append(", \"count\": ")
                    .append(e.count())
                    .append(", \"type\": ")
                    .append(quoted(e.type()))
                    .append(", \"peer\": ")
                    .append(e.peer())
                    .append(", \"registration\": ")
                    .append(quoted(e.registration()))
                    .append(", \"graphOps\": ")
                    .append(quotedList(e.graphOps()))
                    .append(", \"state\": ")
                    .append(quoted(e.state().label()))
                    .append(", \"enqueuedMicros\": ")
                    .append(e.enqueuedMicros())
                    .append(", \"completedMicros\": ")
                    .append(e.completedMicros())
                    .append('}');
        }
        return json.append("\n]}\n").toString();
    }

    private static String quotedList(List<String> values) {
        StringBuilder list = new StringBuilder("[");
        for (int i = 0; i < values.size(); i++) {
            list.append(i == 0 ? "" : ", ").append(quoted(values.get(i)));
        }
        return list.append(']').toString();
    }

    private static String quoted(String text) {
        StringBuilder quoted = new StringBuilder(text.length() + 2).append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> quoted.append("\\\"");
                case '\\' -> quoted.append("\\\\");
                case '\n' -> quoted.append("\\n");
                case '\r' -> quoted.append("\\r");
                case '\t' -> quoted.append("\\t");
                default -> {
                    if (c < 0x20) {
                        quoted.append(String.format("\\u%04x", (int) c));
                    } else {
                        quoted.append(c);
                    }
                }
            }
        }
        return quoted.append('"').toString();
    }
}
