package dev.collectives.runtime.bootstrap.file;

import dev.collectives.runtime.BootstrapException;
import dev.collectives.runtime.RendezvousEndpoint;
import dev.collectives.runtime.bootstrap.Backoff;
import dev.collectives.runtime.bootstrap.Cause;
import dev.collectives.runtime.bootstrap.Deadline;
import dev.collectives.runtime.bootstrap.Exchange;
import dev.collectives.runtime.bootstrap.Rendezvous;
import dev.collectives.runtime.bootstrap.Settings;
import dev.collectives.runtime.bootstrap.wire.Channel;
import dev.collectives.runtime.bootstrap.wire.JobToken;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.IntFunction;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A rendezvous in a directory on a file system every rank sees (NFS, Lustre, GPFS; or /tmp for ranks of one
 * host). Rank 0 creates the directory (it must be new, or empty) and a session file with a fresh nonce; every file
 * after that carries an HMAC under a key derived from the job token and that nonce, so files of another job, or
 * written without the token, are refused. Files appear atomically (written aside, then renamed); a rank claims its
 * number by creating a hard link, which fails if another process claimed it first. The others poll, until the
 * deadline, for the files they need, and for an {@code abort} file in which a failing rank says why.
 *
 * <p>Each file: int MAGIC, int kind, int rank, int operation, int length, bytes, byte[32] HMAC.
 */
public final class FileRendezvous extends Exchange {
    private static final int MAGIC = 0x436f4c46;
    private static final int KIND_SESSION = 1;
    private static final int KIND_CLAIM = 2;
    private static final int KIND_DATA = 3;
    private static final int KIND_ABORT = 4;
    private static final int HEADER_BYTES = 5 * 4;
    private static final String SESSION = "session";
    private static final String ABORT = "abort";
    private static final long FIRST_POLL_MILLIS = 5;
    private static final long LAST_POLL_MILLIS = 100;

    private final Path directory;
    private final JobToken token;
    private JobToken key;

    private FileRendezvous(RendezvousEndpoint endpoint, int rank, int size, JobToken token, Duration timeout) {
        super(rank, size, endpoint.toString(), timeout);
        this.directory = endpoint.directory();
        this.token = token;
    }

    public static FileRendezvous open(
            RendezvousEndpoint endpoint, int rank, int size, JobToken token, Duration timeout) {
        FileRendezvous rendezvous = new FileRendezvous(endpoint, rank, size, token, timeout);
        Deadline deadline = Deadline.after(timeout);
        try {
            if (rank == 0) {
                rendezvous.create();
            } else {
                rendezvous.awaitSession(deadline);
            }
            rendezvous.claim(deadline);
            if (rank == 0) {
                rendezvous.awaitFiles(r -> "rank-" + r + ".claim", "join", deadline);
            } else {
                rendezvous.checkAbort(); // a rank arriving after the job ended learns why now, not at its first step
            }
            rendezvous.joined();
        } catch (BootstrapException e) {
            throw rendezvous.failed() ? e : rendezvous.fail(e);
        }
        return rendezvous;
    }

    // ---- joining --------------------------------------------------------------------------------------------

    private void create() {
        try {
            Files.createDirectories(directory.getParent());
            try {
                Files.createDirectory(directory);
            } catch (FileAlreadyExistsException e) {
                try (Stream<Path> entries = Files.list(directory)) {
                    if (entries.findAny().isPresent()) {
                        throw BootstrapException.settings(
                                0,
                                "the rendezvous directory " + directory + " already"
                                        + " exists and is not empty (left by an earlier job?): use a new directory per job,"
                                        + " e.g. file:/shared/rendezvous/$SLURM_JOB_ID, or delete it");
                    }
                }
            }
        } catch (IOException e) {
            throw BootstrapException.failed(0, "cannot create the rendezvous directory " + directory + ": " + e, e);
        }
        byte[] nonce = JobToken.nonce();
        key = token.derive("file", nonce);
        write(SESSION, encode(token, KIND_SESSION, 0, size(), nonce), false);
    }

    private void awaitSession(Deadline deadline) {
        Path session = directory.resolve(SESSION);
        Backoff backoff = polling(deadline);
        while (!Files.exists(session)) {
            if (deadline.expired()) {
                throw BootstrapException.failed(
                        rank(),
                        "no rank 0 at " + where() + " " + deadline.within()
                                + ": " + (Files.isDirectory(directory) ? "its session file" : "the directory")
                                + " did not appear (rank 0 not started, or a path not shared between the nodes?)",
                        null);
            }
            backoff.pause();
        }
        Decoded decoded = read(session, token, KIND_SESSION, JobToken.NONCE_BYTES);
        if (decoded == null) {
            throw BootstrapException.failed(
                    rank(),
                    "the session file in " + directory + " was not written with this" + " job's token (a wrong "
                            + Settings.JOB_TOKEN + " here, or a directory left by another job)",
                    null);
        }
        if (decoded.operation != size()) {
            throw BootstrapException.settings(
                    rank(),
                    "rank 0 at " + where() + " says the world size is " + decoded.operation + ", rank " + rank()
                            + " says " + size());
        }
        key = token.derive("file", decoded.bytes);
    }

    private void claim(Deadline deadline) {
        String name = claimName(rank());
        byte[] who = describeProcess().getBytes(StandardCharsets.UTF_8);
        if (!write(name, encode(key, KIND_CLAIM, rank(), 0, who), true)) {
            Decoded first = read(directory.resolve(name), key, KIND_CLAIM, Rendezvous.MAX_REASON_BYTES);
            throw endJob("duplicate rank " + rank() + ": "
                    + (first == null ? "another process" : new String(first.bytes, StandardCharsets.UTF_8))
                    + " claimed it at " + where() + " before "
                    + describeProcess());
        }
    }

    private static String claimName(int rank) {
        return "rank-" + rank + ".claim";
    }

    private static String describeProcess() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            host = "an unknown host";
        }
        return "process " + ManagementFactory.getRuntimeMXBean().getPid() + " on " + host;
    }

    // ---- operations -----------------------------------------------------------------------------------------

    @Override
    protected byte[] doBroadcast(byte[] value, Deadline deadline) {
        if (rank() == 0) {
            write(dataName(sequence(), 0), encode(key, KIND_DATA, 0, sequence(), value), false);
            return value;
        }
        awaitFiles(r -> r == 0 ? dataName(sequence(), 0) : null, operation(), deadline);
        return readData(0, MAX_VALUE_BYTES);
    }

    @Override
    protected byte[][] doAllGather(byte[] value, Deadline deadline) {
        write(dataName(sequence(), rank()), encode(key, KIND_DATA, rank(), sequence(), value), false);
        awaitFiles(r -> dataName(sequence(), r), operation(), deadline);
        byte[][] values = new byte[size()][];
        for (int r = 0; r < size(); r++) {
            values[r] = readData(r, MAX_VALUE_BYTES);
        }
        // measured against rank 0's contribution, as over TCP, so that every rank reports the same difference
        for (int r = 1; r < size(); r++) {
            if (values[r].length != values[0].length) {
                throw endJob("rank " + r + " contributed " + values[r].length + " bytes to " + operation() + ", rank 0 "
                        + values[0].length + " bytes (the ranks called it with different sizes)");
            }
        }
        return values;
    }

    private static String dataName(int operation, int rank) {
        return "op-" + operation + ".rank-" + rank;
    }

    private byte[] readData(int from, int maxBytes) {
        Decoded decoded = read(directory.resolve(dataName(sequence(), from)), key, KIND_DATA, maxBytes);
        if (decoded == null || decoded.rank != from || decoded.operation != sequence()) {
            throw endJob("the file of rank " + from + " for " + operation() + " in " + directory
                    + " failed authentication (written without this job's token?)");
        }
        return decoded.bytes;
    }

    /** Polls until each rank's file named by {@code names} (null: none needed) exists, or an abort file. */
    private void awaitFiles(IntFunction<String> names, String what, Deadline deadline) {
        Backoff backoff = polling(deadline);
        while (true) {
            checkAbort();
            List<Integer> missing = new ArrayList<>();
            for (int r = 0; r < size(); r++) {
                String name = names.apply(r);
                if (name != null && !Files.exists(directory.resolve(name))) {
                    missing.add(r);
                }
            }
            if (missing.isEmpty()) {
                return;
            }
            if (deadline.expired()) {
                String ranks = missing.stream().map(String::valueOf).collect(Collectors.joining(", "));
                throw endJob((missing.size() == 1 ? "rank " : "ranks ") + ranks + " did not "
                        + (what.equals("join") ? "join" : "take part in " + what) + " at " + where() + " "
                        + deadline.within() + " (gone, late, or stuck?)");
            }
            backoff.pause();
        }
    }

    private static Backoff polling(Deadline deadline) {
        return new Backoff(deadline, FIRST_POLL_MILLIS, LAST_POLL_MILLIS);
    }

    private void checkAbort() {
        Path abort = directory.resolve(ABORT);
        if (Files.exists(abort)) {
            Decoded decoded = read(abort, key, KIND_ABORT, Rendezvous.MAX_REASON_BYTES);
            String reason = decoded == null
                    ? "an abort file that failed authentication"
                    : "rank " + decoded.rank + " ended the job: " + new String(decoded.bytes, StandardCharsets.UTF_8);
            throw fail(BootstrapException.remote(
                    rank(), reason + " (seen at " + where() + " during " + operation() + ")"));
        }
    }

    /** Writes the abort file (the first one stays) so that the other ranks stop too, and fails. */
    private BootstrapException endJob(String reason) {
        doAbort(reason);
        return fail(BootstrapException.failed(rank(), reason, null));
    }

    @Override
    protected void doAbort(String reason) {
        if (key != null) {
            write(ABORT, encode(key, KIND_ABORT, rank(), sequence(), Cause.truncated(reason)), true);
        }
    }

    // ---- files ----------------------------------------------------------------------------------------------

    private static byte[] encode(JobToken key, int kind, int rank, int operation, byte[] bytes) {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream(HEADER_BYTES + bytes.length + JobToken.MAC_BYTES);
        try (DataOutputStream out = new DataOutputStream(buffer)) {
            out.writeInt(MAGIC);
            out.writeInt(kind);
            out.writeInt(rank);
            out.writeInt(operation);
            out.writeInt(bytes.length);
            out.write(bytes);
            out.write(key.mac("file", JobToken.ints(kind, rank, operation), bytes));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return buffer.toByteArray();
    }

    /** The file's contents if it is a {@code kind} file of at most {@code maxBytes} under {@code key}; else null. */
    private Decoded read(Path file, JobToken key, int kind, int maxBytes) {
        try {
            long length = Files.size(file);
            if (length > HEADER_BYTES + maxBytes + JobToken.MAC_BYTES) {
                return null;
            }
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(Files.readAllBytes(file)));
            int magic = in.readInt();
            int foundKind = in.readInt();
            int rank = in.readInt();
            int operation = in.readInt();
            int count = in.readInt();
            if (magic != MAGIC || foundKind != kind || count < 0 || count > maxBytes) {
                return null;
            }
            byte[] bytes = Channel.readBytes(in, count);
            byte[] mac = Channel.readBytes(in, JobToken.MAC_BYTES);
            return key.verify(mac, "file", JobToken.ints(kind, rank, operation), bytes)
                    ? new Decoded(rank, operation, bytes)
                    : null;
        } catch (IOException e) {
            throw fail(BootstrapException.failed(rank(), "cannot read " + file + ": " + e, e));
        }
    }

    /**
     * Writes {@code name} atomically: aside first, then renamed ({@code exclusive}: hard-linked, which fails if the
     * name exists). Returns false when {@code exclusive} and the name already existed.
     */
    private boolean write(String name, byte[] contents, boolean exclusive) {
        Path target = directory.resolve(name);
        Path aside = directory.resolve("." + name + ".rank-" + rank() + "." + System.nanoTime() + ".tmp");
        try {
            Files.write(aside, contents);
            if (!exclusive) {
                Files.move(aside, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                return true;
            }
            try {
                Files.createLink(target, aside);
                return true;
            } catch (FileAlreadyExistsException e) {
                return false;
            } finally {
                Files.deleteIfExists(aside);
            }
        } catch (IOException e) {
            throw fail(BootstrapException.failed(rank(), "cannot write " + target + ": " + e, e));
        }
    }

    /**
     * Marks this rank done; rank 0 waits (within the timeout) for every rank's mark, then deletes the directory.
     * After a failure of any rank the directory stays, with its abort file saying why.
     */
    @Override
    protected void doClose() {
        if (key == null || failed()) {
            return;
        }
        try {
            Files.write(directory.resolve("rank-" + rank() + ".done"), new byte[0]);
            if (rank() != 0) {
                return;
            }
            Deadline deadline = Deadline.after(timeout());
            Backoff backoff = polling(deadline);
            for (int r = 1; r < size(); r++) {
                while (!Files.exists(directory.resolve("rank-" + r + ".done")) && !deadline.expired()) {
                    if (Files.exists(directory.resolve(ABORT))) {
                        return; // that rank failed after this one finished: leave the directory to say why
                    }
                    backoff.pause();
                }
            }
            if (!deadline.expired()) {
                deleteDirectory();
            }
        } catch (IOException e) {
            // cleanup is best effort: the job's work is done
        }
    }

    private void deleteDirectory() throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path path : files.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) {
                try {
                    Files.deleteIfExists(path);
                } catch (DirectoryNotEmptyException | NoSuchFileException ignored) {
                    // another process still writes there, or removed it already
                }
            }
        }
    }

    private record Decoded(int rank, int operation, byte[] bytes) {}
}
