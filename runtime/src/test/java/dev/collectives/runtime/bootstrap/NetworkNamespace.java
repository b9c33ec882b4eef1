package dev.collectives.runtime.bootstrap;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A network namespace of its own, joined to this host by a veth pair ({@code ip netns}, as root): a process started
 * in it ({@link #launcher()}) reaches this host only through that pair, whose link the test can bring down and up
 * again, as a cable pulled and plugged back. Closing it deletes the namespace and the pair.
 */
final class NetworkNamespace implements AutoCloseable {
    private final String name;
    /** The namespace's end of the pair. */
    private final String device;

    private final String subnet;

    private NetworkNamespace(String name, String device, String subnet) {
        this.name = name;
        this.device = device;
        this.subnet = subnet;
    }

    /** A new namespace and its pair, or why this host refuses them (not root, no {@code ip}, a container without them). */
    static Result create() {
        String id = Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0x1000000));
        String subnet = "10.201." + ThreadLocalRandom.current().nextInt(256);
        NetworkNamespace namespace = new NetworkNamespace("collectives-" + id, "vn" + id, subnet);
        String outside = "vh" + id;
        Optional<String> refused = run("ip", "netns", "add", namespace.name);
        if (refused.isPresent()) {
            return new Result(null, "ip netns add was refused: " + refused.get());
        }
        List<String[]> steps = new ArrayList<>();
        steps.add(new String[] {"ip", "link", "add", outside, "type", "veth", "peer", "name", namespace.device});
        steps.add(new String[] {"ip", "link", "set", namespace.device, "netns", namespace.name});
        steps.add(new String[] {"ip", "addr", "add", namespace.host() + "/30", "dev", outside});
        steps.add(new String[] {"ip", "link", "set", outside, "up"});
        steps.add(namespace.inNamespace("ip", "addr", "add", namespace.inside() + "/30", "dev", namespace.device));
        steps.add(namespace.inNamespace("ip", "link", "set", namespace.device, "up"));
        steps.add(namespace.inNamespace("ip", "link", "set", "lo", "up"));
        for (String[] step : steps) {
            Optional<String> failed = run(step);
            if (failed.isPresent()) {
                namespace.close();
                return new Result(null, String.join(" ", step) + " was refused: " + failed.get());
            }
        }
        return new Result(namespace, null);
    }

    /** A namespace, or why there is none. */
    record Result(NetworkNamespace namespace, String refusal) {}

    /** This host's address on the pair, which the namespace reaches. */
    String host() {
        return subnet + ".1";
    }

    /** The namespace's address on the pair. */
    String inside() {
        return subnet + ".2";
    }

    /** The command that starts a process inside the namespace: it is followed by the process's own command. */
    List<String> launcher() {
        return List.of("ip", "netns", "exec", name);
    }

    /** Brings the namespace's end of the pair down: nothing passes either way until {@link #restore()}. */
    void cut() {
        require(run(inNamespace("ip", "link", "set", device, "down")));
    }

    void restore() {
        require(run(inNamespace("ip", "link", "set", device, "up")));
    }

    private String[] inNamespace(String... command) {
        List<String> all = new ArrayList<>(launcher());
        all.addAll(List.of(command));
        return all.toArray(String[]::new);
    }

    private static void require(Optional<String> failure) {
        failure.ifPresent(f -> {
            throw new AssertionError(f);
        });
    }

    /** Runs {@code command}; empty if it succeeded, else what it printed. */
    private static Optional<String> run(String... command) {
        try {
            Process process =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return process.waitFor() == 0
                    ? Optional.empty()
                    : Optional.of("exit " + process.exitValue() + (output.isEmpty() ? "" : ": " + output));
        } catch (IOException e) {
            return Optional.of(e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of("interrupted");
        }
    }

    /** Deletes the namespace, and with it the pair. */
    @Override
    public void close() {
        run("ip", "netns", "delete", name);
    }
}
