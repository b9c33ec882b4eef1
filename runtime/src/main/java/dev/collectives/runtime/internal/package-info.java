/**
 * Not API: what the generated pipeline classes call (bind's checks and agreement, R7 on byte ranges, capture,
 * graph caches, describe tables), and the rule checks the backends share with it ({@code AllocatorRule},
 * {@code LegacyRegistrationRule}, {@code ByteRanges}), so that a rule reads the same at bind and at each call. It is
 * public only so that generated code in users' packages can call it, and may change without notice; program
 * against {@code dev.collectives.runtime} instead.
 * <p>What belongs here: a class the processor's writer names in generated code, or a rule check that generated code
 * and the backends both run. A helper only backends use belongs in {@link dev.collectives.runtime.spi}.
 */
package dev.collectives.runtime.internal;
