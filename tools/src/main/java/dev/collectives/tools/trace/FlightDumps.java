package dev.collectives.tools.trace;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.collectives.runtime.FlightRecord;
import dev.collectives.runtime.FlightRecord.Entry;
import dev.collectives.runtime.FlightRecord.State;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Reads the flight records a job's ranks dumped into one directory, refusing what is not one, by name. */
final class FlightDumps {
    /**
     * The names ranks give their dumps: "flight-JOB-cCOMMUNICATOR-rankR.json" (and, before version 3 of the format,
     * "flight-rankR-commN.json", which is read to be refused by its version).
     */
    static final String FILE_PATTERN = "flight-.+\\.json";

    private static final ObjectMapper JSON = new ObjectMapper();

    /** What {@link #read} cannot use: said to the user as it is, with the file or directory named. */
    static final class BadInput extends Exception {
        BadInput(String message) {
            super(message);
        }
    }

    /**
     * One rank's dump.
     *
     * @param file   where it was read from
     * @param reason why the rank wrote it ("failure: ...", "abort", "close", "exit")
     * @param record what it holds
     */
    record Dump(Path file, String reason, FlightRecord record) {}

    private FlightDumps() {}

    /** Every dump in {@code directory}, by job, communicator, then rank. */
    static List<Dump> read(Path directory) throws BadInput {
        if (!Files.isDirectory(directory)) {
            throw new BadInput(directory + " is not a directory");
        }
        List<Path> files;
        try (Stream<Path> listed = Files.list(directory)) {
            files = listed.filter(f -> f.getFileName().toString().matches(FILE_PATTERN))
                    .sorted()
                    .collect(Collectors.toList());
        } catch (IOException e) {
            throw new BadInput("cannot list " + directory + ": " + e.getMessage());
        }
        if (files.isEmpty()) {
            throw new BadInput(directory + " holds no flight record (files named flight-rank<R>-comm<N>.json)");
        }
        List<Dump> dumps = new ArrayList<>();
        for (Path file : files) {
            dumps.add(readOne(file));
        }
        dumps.sort(Comparator.comparing((Dump d) -> d.record().job())
                .thenComparing(d -> d.record().communicator())
                .thenComparingInt(d -> d.record().rank()));
        return dumps;
    }

    private static Dump readOne(Path file) throws BadInput {
        JsonNode root;
        try {
            root = JSON.readTree(Files.readString(file, StandardCharsets.UTF_8));
        } catch (JsonProcessingException e) {
            throw new BadInput(file + " is not JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new BadInput("cannot read " + file + ": " + e.getMessage());
        }
        if (root == null
                || !root.isObject()
                || !FlightRecord.FORMAT.equals(root.path("format").asText())) {
            throw new BadInput(file + " is not a flight record: its \"format\" is not \"" + FlightRecord.FORMAT + "\"");
        }
        int version = root.path("version").asInt(-1);
        if (version != FlightRecord.VERSION) {
            throw new BadInput(file + " is a flight record of version " + root.path("version") + "; this trace reads"
                    + " version " + FlightRecord.VERSION);
        }
        try {
            List<Entry> entries = new ArrayList<>();
            for (JsonNode e : required(root, "entries")) {
                entries.add(entry(e));
            }
            List<String> lineage = new ArrayList<>();
            required(root, "lineage").forEach(step -> lineage.add(step.asText()));
            FlightRecord record = new FlightRecord(
                    number(root, "rank"),
                    number(root, "size"),
                    text(root, "backend"),
                    text(root, "job"),
                    lineage,
                    number(root, "capacity"),
                    required(root, "recorded").asLong(),
                    entries);
            return new Dump(file, text(root, "reason"), record);
        } catch (IllegalArgumentException e) {
            throw new BadInput(file + ": " + e.getMessage());
        }
    }

    private static Entry entry(JsonNode e) {
        List<Long> arguments = new ArrayList<>();
        required(e, "arguments").forEach(a -> arguments.add(a.asLong()));
        List<String> graphOps = new ArrayList<>();
        required(e, "graphOps").forEach(o -> graphOps.add(o.asText()));
        return new Entry(
                required(e, "seq").asLong(),
                text(e, "pipeline"),
                text(e, "step"),
                arguments,
                number(e, "op"),
                text(e, "call"),
                address(e, "send"),
                required(e, "sendOffset").asLong(),
                address(e, "recv"),
                required(e, "recvOffset").asLong(),
                required(e, "count").asLong(),
                text(e, "type"),
                number(e, "peer"),
                text(e, "registration"),
                graphOps,
                State.valueOf(text(e, "state").toUpperCase(Locale.ROOT)),
                required(e, "enqueuedMicros").asLong(),
                required(e, "completedMicros").asLong());
    }

    private static JsonNode required(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            throw new IllegalArgumentException(
                    "no \"" + field + "\"" + (node.has("seq") ? " in entry #" + node.get("seq") : ""));
        }
        return value;
    }

    private static String text(JsonNode node, String field) {
        return required(node, field).asText();
    }

    private static int number(JsonNode node, String field) {
        return required(node, field).asInt();
    }

    private static long address(JsonNode node, String field) {
        return Long.parseUnsignedLong(text(node, field).replaceFirst("^0x", ""), 16);
    }
}
