package dev.collectives.runtime.internal;

import dev.collectives.annotation.Allocator;
import dev.collectives.rules.Message;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.DeviceBuffer;
import java.util.Optional;

/**
 * R9 LEGACY at run time: registering memory from the legacy allocator ({@code cudaMalloc}/{@code musaMalloc}). The one
 * place that checks it, for the backends' {@code register} and for generated pipelines (which also cover graph
 * registration).
 * <p>General registration of legacy memory can hang or crash on abort, so the library takes it only when
 * {@link Communicator#legacyRegisterVariable()} is "1". IB SHARP registration takes memory of any allocator (R8),
 * so where IB SHARP registers (enabled on the communicator, 1 rank per node) no variable is needed.
 */
public final class LegacyRegistrationRule {
    private LegacyRegistrationRule() {}

    /** Whether IB SHARP registration serves {@code comm}: enabled on it, and 1 rank per node (R8). */
    public static boolean ibSharpRegisters(Communicator comm) {
        return comm.capabilities().ibSharp() && comm.topology().ranksPerNode() == 1;
    }

    /** {@link #check(Communicator, DeviceBuffer, String)}, naming the buffer by its description. */
    public static void check(Communicator comm, DeviceBuffer buffer) {
        check(comm, buffer, "buffer " + buffer);
    }

    /**
     * Registering {@code buffer} on {@code comm}: nothing to check unless its memory is legacy; then IB SHARP must
     * register it or the variable must be "1".
     *
     * @param what names the buffer in the message, e.g. "pipeline.Name: `sendbuff`"
     */
    public static void check(Communicator comm, DeviceBuffer buffer, String what) {
        if (buffer.allocator() != Allocator.LEGACY || ibSharpRegisters(comm)) {
            return;
        }
        String variable = comm.legacyRegisterVariable();
        Optional<String> value = comm.environment(variable);
        if (!value.equals(Optional.of("1"))) {
            throw CollectivesException.violation(
                    Message.R9_VARIABLE_NOT_SET,
                    comm.rank(),
                    what,
                    variable,
                    value.map(v -> "'" + v + "'").orElse("unset"),
                    ibSharpState(comm));
        }
    }

    /**
     * For a pipeline that did not opt in ({@code allowLegacyRegistration = false}) and does not register
     * {@code buffer} for IB SHARP: legacy memory is refused whatever the environment says.
     */
    public static void checkWithoutOptIn(Communicator comm, DeviceBuffer buffer, String what) {
        if (buffer.allocator() == Allocator.LEGACY) {
            throw CollectivesException.violation(Message.R9_NOT_ALLOWED, comm.rank(), what);
        }
    }

    private static String ibSharpState(Communicator comm) {
        if (!comm.capabilities().ibSharp()) {
            return "is not enabled on this communicator";
        }
        return "needs 1 rank per node; this communicator has " + comm.topology();
    }
}
