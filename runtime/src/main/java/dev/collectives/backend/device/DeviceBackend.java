package dev.collectives.backend.device;

import dev.collectives.runtime.Availability;
import dev.collectives.runtime.Backend;
import dev.collectives.runtime.Bootstrap;
import dev.collectives.runtime.CollectivesException;
import dev.collectives.runtime.Communicator;
import dev.collectives.runtime.JoinedRank;
import dev.collectives.runtime.LocalCluster;
import dev.collectives.runtime.Peers;
import dev.collectives.runtime.UniqueId;
import dev.collectives.runtime.bootstrap.Setting;

/** The native backends: one per {@link Dialect}, over the vendor libraries opened at run time. */
public abstract class DeviceBackend implements Backend {
    private final Dialect dialect;

    /** The backend of the library {@code dialect} names. */
    protected DeviceBackend(Dialect dialect) {
        this.dialect = dialect;
    }

    /** Which library: NCCL or MCCL. */
    public Dialect dialect() {
        return dialect;
    }

    @Override
    public String name() {
        return dialect.backendName();
    }

    /** Unavailable when the libraries or a required symbol are missing, or there is no device. */
    @Override
    public Availability availability() {
        Object opened = NativeLibrary.open(dialect);
        if (!(opened instanceof NativeLibrary)) {
            return Availability.unavailable(String.valueOf(opened));
        }
        NativeLibrary library = (NativeLibrary) opened;
        if (library.deviceCount() < 1) {
            return Availability.unavailable(dialect.backendName() + " " + library.versionString() + " loaded, but "
                    + dialect.symbol(1, "GetDeviceCount") + " finds no device");
        }
        return Availability.available();
    }

    /** The library's version, e.g. "2.28.9"; throws when unavailable. */
    public String libraryVersion() {
        return NativeLibrary.require(dialect).versionString();
    }

    /**
     * The system property that, set to true, connects every peer when a communicator is made (the library's
     * {@link Dialect#runtimeConnectVariable} set to 0); unset, the library's own default holds.
     */
    public static final String CONNECT_AT_INIT_PROPERTY = Setting.DEVICE_CONNECT_AT_INIT.property;

    private static void connectAtInit(Dialect dialect) {
        if (System.getenv(dialect.runtimeConnectVariable()) == null && Dialect.connectAtInitAsked()) {
            NativeShimApi.INSTANCE.setenvDefault(dialect.runtimeConnectVariable(), "0");
        }
    }

    @Override
    public LocalCluster local(int ranks) {
        return local(ranks, CommConfig.DEFAULT);
    }

    /**
     * This process's rank of a multi-process job, on {@code bootstrap.device()}: see {@link DeviceJoin}. Its peers are
     * connected as the library's default says, unless {@link #CONNECT_AT_INIT_PROPERTY} asks for them at init.
     */
    @Override
    public JoinedRank join(Bootstrap bootstrap) {
        return join(bootstrap, CommConfig.DEFAULT);
    }

    /** As {@link #join(Bootstrap)}, the communicator made with {@code config}. */
    public JoinedRank join(Bootstrap bootstrap, CommConfig config) {
        connectAtInit(dialect);
        return DeviceJoin.join(dialect, bootstrap, config);
    }

    /** {@code ncclGetUniqueId}/{@code mcclGetUniqueId}: see {@link Backend#uniqueId()}. */
    @Override
    public UniqueId uniqueId() {
        return ForeignCommunicators.uniqueId(NativeLibrary.require(dialect));
    }

    /**
     * A communicator over a handle another library made: see {@link Backend#wrapCommunicator}. Its rank, size and
     * device come from {@code CommUserRank}, {@code CommCount} and {@code CommCuDevice}/{@code CommMuDevice}.
     */
    @Override
    public Communicator wrapCommunicator(long handle, Peers peers) {
        return ForeignCommunicators.wrap(NativeLibrary.require(dialect), handle, peers);
    }

    /** {@code ranks} ranks on devices 0..ranks-1, their communicators made with {@code config}. */
    public LocalCluster local(int ranks, CommConfig config) {
        NativeLibrary library = NativeLibrary.require(dialect);
        connectAtInit(dialect);
        int devices = library.deviceCount();
        if (ranks < 1 || ranks > devices) {
            throw CollectivesException.usage(
                    -1,
                    dialect.backendName() + ": " + ranks + " ranks need as many " + "devices; this host has "
                            + devices);
        }
        return new DeviceCluster(library, ranks, config);
    }
}
