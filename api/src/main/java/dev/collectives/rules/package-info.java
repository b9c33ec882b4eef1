/**
 * The registration rules, shared by compile, bind and call time: {@link dev.collectives.rules.Rule} (R1 to R14, each
 * with its tag, its anchor on the rules page and, in its Javadoc, where it is checked),
 * {@link dev.collectives.rules.Message} (the catalogue of rule messages, each text written once) and
 * {@link dev.collectives.rules.PeerPairing} (the pairing of sends and receives, run by the processor and by the
 * generated {@code bind}). It depends only on the JDK and the annotations, so that the processor may use it.
 */
package dev.collectives.rules;
