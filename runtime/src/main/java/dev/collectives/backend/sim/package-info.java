/**
 * The embedded backend {@code sim}: ranks are threads of this process, "device" memory is host memory, and what
 * NCCL and MCCL leave undefined is reported as an error that reaches every rank of the call.
 *
 * <p>Each rank has one {@link dev.collectives.backend.sim.SimCommunicator}; its calls check their arguments on the
 * calling thread ({@link dev.collectives.runtime.internal.CallArguments}, as the device backend does; for the ops
 * through {@code OpCallChecks}) and go to a stream ({@code OpIssuer}, onto a stream of {@code RankStreams}), whose
 * worker thread runs them in order. Memory comes from {@code SimAllocations}; registrations and windows from
 * {@code RegistrationCalls}, local registrations counted in a {@code RegistrationCache}. A collective is a meeting of all
 * ranks' workers ({@code CallMeeting}), matched by the communicator's call count; once all have arrived they check that they agree and
 * then move the data together, each doing an equal share. Send and recv are matched per pair of ranks, in order.
 *
 * <p>Where each rule ({@link dev.collectives.rules.Rule}) is checked at run time:
 * <ul>
 *   <li>R1 MIXED, R2 OFFSET, R4 GRAPH-CAPTURE (every rank captured the call or none), R14 SHAPE: {@code CallAgreement},
 *       when every rank has arrived at a collective;</li>
 *   <li>R5 GRAPH-LIFETIME: {@code SimMemory.free} refuses memory used by a live graph;</li>
 *   <li>R6 LOCAL: the registration cache, {@code RegistrationCalls.deregister}, and
 *       {@code SimMemory.free}, which refuses registered memory;</li>
 *   <li>R7 ARENA and R13 TYPES: the argument checks of each call ({@code CallArguments}, {@code OpCallChecks}; R7
 *       through {@link dev.collectives.runtime.internal.ByteRanges}, as the generated bind);</li>
 *   <li>R9 LEGACY: {@code RegistrationCalls.register}, against the variable the cluster's environment holds;</li>
 *   <li>R10 WINDOW-HELPERS: {@code SimWindow}; R12 WINDOW: {@code WindowArrival}, at the window rendezvous, and
 *       {@code SimMemory.free}, which refuses memory that backs a window;</li>
 *   <li>R11 ALLOCATOR: {@link dev.collectives.runtime.internal.AllocatorRule}, on every VMM and custom allocation.</li>
 * </ul>
 * A rank that never arrives fails the others after the cluster's timeout, naming it. Configure clusters with
 * {@link dev.collectives.backend.sim.SimBackend#cluster()}.
 *
 * <p>The ranks of a joined job may also be separate processes: then each rank's calls travel to the others over
 * the job's rendezvous ({@code WireGroup}, each call a {@code WireMeeting} of the messages, {@code Wire}), and every
 * rank runs the same checks over all ranks' calls and computes its own recv buffer from the others' contributions.
 * The children of a split or shrink share that wire ({@code WireGroups} routes each message to its communicator),
 * and a rank whose process dies fails only the communicators it is in, naming it in the job's numbering and in
 * theirs ({@code JobRanks}, in the device backend's words), so that the survivors shrink it away.
 */
package dev.collectives.backend.sim;
