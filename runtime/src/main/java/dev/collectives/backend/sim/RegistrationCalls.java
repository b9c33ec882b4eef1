package dev.collectives.backend.sim;

import dev.collectives.rules.Message;
import dev.collectives.runtime.Capabilities;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.DeviceBuffer;
import dev.collectives.runtime.RegisteredWindow;
import dev.collectives.runtime.RegistrationHandle;
import dev.collectives.runtime.Result;
import dev.collectives.runtime.internal.AllocatorRule;
import dev.collectives.runtime.internal.CallArguments;
import dev.collectives.runtime.internal.LegacyRegistrationRule;
import dev.collectives.runtime.spi.FlightEvents;
import java.util.List;
import jdk.jfr.Event;

/**
 * A rank's registration calls: local registration (R6, R9, and R11 for memory allocated elsewhere), counted in the
 * {@link RegistrationCache}, and windows, each a host-side collective call that meets the other ranks' in the
 * group. The caller checked that the communicator is usable.
 */
final class RegistrationCalls {
    private final SimCommunicator comm;
    private final int rank;
    private final SimConfig config;
    private final CallArguments arguments;
    private final CommGroup group;
    private final Ledger ledger;
    private final RegistrationCache registrations;
    private long windowSeq;

    RegistrationCalls(
            SimCommunicator comm,
            SimConfig config,
            CallArguments arguments,
            CommGroup group,
            Ledger ledger,
            RegistrationCache registrations) {
        this.comm = comm;
        this.rank = comm.rank();
        this.config = config;
        this.arguments = arguments;
        this.group = group;
        this.ledger = ledger;
        this.registrations = registrations;
    }

    RegistrationHandle register(DeviceBuffer buffer) {
        if (!config.capabilities().registration()) {
            throw CollectivesException.library(
                    Result.INVALID_USAGE,
                    rank,
                    comm.libraryFunction("CommRegister"),
                    "library " + config.capabilities().libraryVersion() + " does not support user buffer registration");
        }
        SimMemory memory = (SimMemory) arguments.memory("register", buffer);
        LegacyRegistrationRule.check(comm, buffer);
        AllocatorRule.checkForeign(comm, buffer, "buffer " + buffer);
        Event event = FlightEvents.registrationStarted();
        registrations.add(memory);
        FlightEvents.registrationDone(event, comm, "CommRegister", buffer.sizeBytes());
        return new SimRegistration(comm, buffer, memory);
    }

    void deregister(RegistrationHandle handle) {
        if (!(handle instanceof SimRegistration) || ((SimRegistration) handle).communicator() != comm) {
            throw CollectivesException.violation(
                    Message.R6_UNKNOWN_HANDLE, rank, comm.libraryFunction("CommDeregister"), handle);
        }
        if (!handle.isOpen()) {
            throw CollectivesException.violation(
                    Message.R6_DEREGISTERED_TWICE, rank, comm.libraryFunction("CommDeregister"), handle);
        }
        handle.close();
    }

    RegisteredWindow registerWindow(DeviceBuffer buffer, boolean symmetric) {
        Capabilities capabilities = config.capabilities();
        if (!capabilities.registration() || !capabilities.symmetricWindows()) {
            throw CollectivesException.library(
                    Result.INVALID_USAGE,
                    rank,
                    comm.libraryFunction("CommWindowRegister"),
                    "it returned a NULL window: library " + capabilities.libraryVersion()
                            + " has no symmetric window support on this communicator");
        }
        SimMemory memory = (SimMemory) arguments.memory("registerWindow", buffer);
        List<WindowArrival> all = windowCall(new WindowArrival(true, buffer, symmetric));
        memory.addWindow();
        ledger.windows.incrementAndGet();
        return new SimWindow(comm, buffer, symmetric, all);
    }

    void deregisterWindow(SimWindow window) {
        try {
            windowCall(new WindowArrival(false, window.buffer(), window.symmetric()));
        } finally {
            ((SimMemory) window.buffer().memory()).removeWindow();
            ledger.windows.decrementAndGet();
        }
    }

    /** A host-side collective window call: waits for every rank's matching call. */
    private List<WindowArrival> windowCall(WindowArrival arrival) {
        long seq;
        synchronized (this) {
            seq = windowSeq++;
        }
        return group.windowCall(rank, seq, arrival);
    }
}
