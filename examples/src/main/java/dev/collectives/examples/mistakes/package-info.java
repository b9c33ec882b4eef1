/**
 * Pipelines bound wrongly on purpose ({@code --mistakes}): ranks binding different pipelines (R14), an
 * {@code @External} at different offsets (R2), legacy registration without the variable that permits it (R9). Each
 * {@link dev.collectives.examples.mistakes.Mistake} must fail fast on every rank with its rule's tag where NCCL or MCCL
 * would hang or corrupt data.
 */
package dev.collectives.examples.mistakes;
