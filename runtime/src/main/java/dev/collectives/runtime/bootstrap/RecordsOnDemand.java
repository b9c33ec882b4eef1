package dev.collectives.runtime.bootstrap;

import dev.collectives.runtime.bootstrap.wire.Channel;
import dev.collectives.runtime.bootstrap.wire.Dumps;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * A member's part of a dump on demand: the server's DUMP asks its process to write every flight record it keeps
 * now, into the directory the request names or else each communicator's own, and the answer (DUMPED) says which
 * files it wrote. The control plane knows nothing of communicators: the runtime installs the writer
 * ({@link #install}).
 */
public final class RecordsOnDemand {
    /** Writes this process's records into the directory given, or each into its own; returns the files written. */
    private static volatile Function<Optional<Path>, List<Path>> writer = directory -> List.of();

    private RecordsOnDemand() {}

    /** The runtime's writer of this process's flight records, which a DUMP runs. */
    public static void install(Function<Optional<Path>, List<Path>> recordWriter) {
        writer = recordWriter;
    }

    /** Writes this process's records as the DUMP {@code asked} says; returns the DUMPED answer's bytes. */
    public static byte[] answer(Channel.Frame asked) {
        String directory = new String(asked.bytes(), StandardCharsets.UTF_8);
        List<Path> written = writer.apply(directory.isEmpty() ? Optional.empty() : Optional.of(Path.of(directory)));
        return Dumps.written(written.stream().map(Path::toString).toList());
    }
}
