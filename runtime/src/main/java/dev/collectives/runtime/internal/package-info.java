/**
 * Not API: what the generated pipeline classes call (bind's checks and agreement, R7 on byte ranges, capture,
 * graph caches, describe tables), public only so that generated code in users' packages can call it, and shared with
 * the backends where they check the same rules. It may change without notice; program against
 * {@code dev.collectives.runtime} instead.
 */
package dev.collectives.runtime.internal;
