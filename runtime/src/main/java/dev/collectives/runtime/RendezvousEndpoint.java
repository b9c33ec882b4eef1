package dev.collectives.runtime;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Where the ranks of a job meet: {@code tcp://host:port} (rank 0 serves there, the others connect) or
 * {@code file:/shared/dir} (a directory on a file system every rank sees, which rank 0 creates).
 */
public final class RendezvousEndpoint {
    /** How the ranks meet. */
    public enum Kind {
        /** {@code tcp://host:port}: rank 0 serves there, the others connect. */
        TCP,
        /** {@code file:/shared/directory}: a directory every rank sees. */
        FILE
    }

    private final Kind kind;
    private final String host;
    private final int port;
    private final Path directory;

    private RendezvousEndpoint(Kind kind, String host, int port, Path directory) {
        this.kind = kind;
        this.host = host;
        this.port = port;
        this.directory = directory;
    }

    /** {@code tcp://host:port}. */
    public static RendezvousEndpoint tcp(String host, int port) {
        Objects.requireNonNull(host, "host");
        if (host.isBlank() || port < 1 || port > 65535) {
            throw BootstrapException.settings(
                    -1, "a TCP rendezvous needs a host and a port in 1..65535, not '" + host + "' and " + port);
        }
        return new RendezvousEndpoint(Kind.TCP, host, port, null);
    }

    /** A directory rank 0 creates (it must not exist yet) on a file system every rank sees. */
    public static RendezvousEndpoint file(Path directory) {
        return new RendezvousEndpoint(
                Kind.FILE, null, 0, directory.toAbsolutePath().normalize());
    }

    /** {@code tcp://host:port}, {@code tcp://[::1]:port}, {@code file:/path} or {@code file:///path}. */
    public static RendezvousEndpoint parse(String text) {
        String t = text.trim();
        try {
            if (t.startsWith("tcp://")) {
                URI uri = new URI(t);
                if (uri.getHost() == null
                        || uri.getPort() < 0
                        || !(uri.getPath() == null || uri.getPath().isEmpty())) {
                    throw new URISyntaxException(t, "expected tcp://host:port");
                }
                String host = uri.getHost();
                return tcp(host.startsWith("[") ? host.substring(1, host.length() - 1) : host, uri.getPort());
            }
            if (t.startsWith("file:")) {
                String path = t.substring("file:".length());
                if (path.startsWith("//")) {
                    path = new URI(t).getPath();
                }
                if (path == null || path.isEmpty()) {
                    throw new URISyntaxException(t, "expected file:/path");
                }
                return file(Path.of(path));
            }
        } catch (URISyntaxException | InvalidPathException e) {
            throw BootstrapException.settings(-1, "malformed rendezvous '" + text + "': " + e.getMessage());
        }
        throw BootstrapException.settings(
                -1, "malformed rendezvous '" + text + "': expected tcp://host:port or file:/shared/directory");
    }

    /** How the ranks meet. */
    public Kind kind() {
        return kind;
    }

    /** TCP only. */
    public String host() {
        return host;
    }

    /** TCP only. */
    public int port() {
        return port;
    }

    /** FILE only. */
    public Path directory() {
        return directory;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RendezvousEndpoint e && e.toString().equals(toString());
    }

    @Override
    public int hashCode() {
        return toString().hashCode();
    }

    @Override
    public String toString() {
        if (kind == Kind.FILE) {
            return "file:" + directory;
        }
        return "tcp://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
}
