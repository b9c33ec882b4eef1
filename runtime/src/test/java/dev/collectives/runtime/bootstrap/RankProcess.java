package dev.collectives.runtime.bootstrap;

import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.CollectivesException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.concurrent.CountDownLatch;

/**
 * One rank of a multi-process test job, started by {@link ChildRank}: reads its place from the environment like
 * a real job, carries a 128-byte unique id from rank 0 and allgathers a fingerprint, printing each step.
 * With the argument {@code hang-after-broadcast} it stops after the broadcast, to be killed; with {@code sim-join}
 * it joins a sim job instead, with ranks that are not in this process, and runs {@link SimJoinTest}'s job body.
 */
public final class RankProcess {
    private RankProcess() {}

    public static void main(String[] args) throws Exception {
        long start = System.nanoTime();
        String mode = args.length > 0 ? args[0] : "";
        try {
            Bootstrap bootstrap = Bootstrap.fromEnvironment();
            say("STARTED " + bootstrap.describe());
            if (mode.equals("sim-join")) {
                say("SUM " + Arrays.toString(SimJoinTest.jobBody(bootstrap)));
                say("DONE");
                return;
            }
            try (Rendezvous rendezvous = bootstrap.rendezvous()) {
                say("JOINED");
                byte[] id = new byte[128];
                new SecureRandom().nextBytes(id);
                say("ID " + HexFormat.of().formatHex(rendezvous.broadcast(bootstrap.rank() == 0 ? id : null)));
                if (mode.equals("hang-after-broadcast")) {
                    say("WAITING");
                    waitToBeKilled();
                }
                byte[] fingerprint = MessageDigest.getInstance("SHA-256")
                        .digest("allReduce sendbuff+0 recvbuff+0 1024 FLOAT32 SUM".getBytes(StandardCharsets.UTF_8));
                byte[][] all = rendezvous.allGather(fingerprint);
                boolean same = Arrays.stream(all).allMatch(f -> Arrays.equals(f, fingerprint));
                say("FINGERPRINTS " + all.length + (same ? " same" : " differ"));
            }
            say("DONE");
        } catch (CollectivesException e) {
            say("FAILED after " + (System.nanoTime() - start) / 1_000_000 + " ms: " + e.getMessage());
            System.exit(3);
        }
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    /** A hung rank, as the test wants it: it never goes on, and ends only when the test kills its process. */
    static void waitToBeKilled() throws InterruptedException {
        new CountDownLatch(1).await();
    }
}
