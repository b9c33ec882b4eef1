/**
 * The control plane's wire: the versioned, authenticated framing ({@link dev.collectives.runtime.bootstrap.wire.Channel},
 * whose javadoc is the grammar), the one table of message types ({@link dev.collectives.runtime.bootstrap.wire.FrameType})
 * and the rules on where each is legal, the job token, and the one-thread event loop and connection that the server
 * and the members both run. It knows neither end; not API.
 */
package dev.collectives.runtime.bootstrap.wire;
