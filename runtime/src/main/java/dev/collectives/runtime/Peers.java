package dev.collectives.runtime;

import java.util.Locale;

/**
 * Who the other ranks of a communicator formed elsewhere are: from a unique id ({@link Bootstrap#uniqueId()}) or a
 * handle another library made ({@code Backend.wrapCommunicator}). Bind's agreement across ranks (the pipeline's
 * fingerprint: R14, R1, R2) and the per-call check of step arguments are collectives that every rank must call;
 * a rank that does not run this library never calls them. Set it with {@code COLLECTIVES_PEERS} (or
 * {@code -Dcollectives.peers}, or {@link Bootstrap.Builder#peers}). A job joined through a rendezvous has only
 * ranks of this library, and always checks across ranks.
 */
public enum Peers {
    /**
     * The default: some ranks may run another library (CuPy, PyTorch). Bind checks every rule this rank can check
     * alone; the cross-rank checks are off, and {@code describe()} and one log line say so.
     */
    FOREIGN,
    /**
     * Every rank runs this library: bind's agreement and the call checks run over the communicator itself (an
     * allgather of the digests), with no rendezvous.
     */
    COLLECTIVES;

    /** The setting's variable. */
    public static final String VARIABLE = "COLLECTIVES_PEERS";
    /** The setting's system property. */
    public static final String PROPERTY = "collectives.peers";

    /** {@code foreign} or {@code collectives}, in any case; {@code source} names where the text came from. */
    static Peers parse(String text, String source) {
        for (Peers peers : values()) {
            if (peers.text().equals(text.strip().toLowerCase(Locale.ROOT))) {
                return peers;
            }
        }
        throw BootstrapException.settings(
                -1, source + " is '" + text + "'; it takes foreign (some ranks run another library) or collectives");
    }

    /** How the setting spells it: {@code foreign}, {@code collectives}. */
    public String text() {
        return name().toLowerCase(Locale.ROOT);
    }
}
