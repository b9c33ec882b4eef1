package dev.collectives.rules;

import java.util.Locale;
import java.util.Objects;

/**
 * The catalogue of messages about the rules. Each text is written here once and used wherever its rule is checked:
 * by the annotation processor at compile time, by the generated {@code bind} and by the runtime on each call, so a
 * mistake reads the same whenever it is caught. A message is what comes between the rule's {@link Rule#tag() tag}
 * and the pointer to its section of the rules page; its arguments fill the {@code %s} in order, and are numbers at
 * bind and call time, numbers or expressions (such as {@code 4 * n}) at compile time.
 */
public enum Message {
    /**
     * An op's send and recv ranges of one allocation overlap without starting at the same byte. Arguments: the op,
     * then the send range's first byte and end, then the recv range's.
     */
    R7_IN_PLACE_OR_APART(
            Rule.R7_ARENA,
            "%s: send bytes [%s, %s) and recv bytes [%s, %s) overlap without coinciding;"
                    + " start them at the same byte (in place) or move them apart"),
    /**
     * An op that has no in-place form at the same offsets on every rank (allgather, reducescatter, alltoall) has
     * overlapping send and recv ranges. Arguments as {@link #R7_IN_PLACE_OR_APART}.
     */
    R7_NOT_IN_PLACE(
            Rule.R7_ARENA,
            "%s: send bytes [%s, %s) and recv bytes [%s, %s) overlap, and this op cannot run in"
                    + " place at the same offsets on every rank; give send and recv separate ranges"),
    /**
     * Two ops of one group use overlapping ranges of one allocation, one of them receiving into it. Arguments: the
     * first side ("the send of @AllReduce #1"), the second side, then each side's first byte and end.
     */
    R7_GROUP_APART(
            Rule.R7_ARENA,
            "%s and %s use bytes [%s, %s) and [%s, %s), which overlap; the ops of a group run"
                    + " concurrently, so give each its own range"),
    /**
     * An op's side reaches past the end of its buffer. Arguments: the side ("the recv of @AllGather #1 in gather()"),
     * the buffer, the first element and the end of the range, and how many elements the buffer holds.
     */
    R7_PAST_BUFFER(
            Rule.R7_ARENA,
            "%s reaches past `%s`: elements [%s, %s), but it holds %s; shorten the op or" + " enlarge the buffer"),

    /**
     * A call's reduce op does not suit its element type. Arguments: the op ("@AllReduce in `step()`" at compile
     * time, the call, "allReduce", at run time), the reduce op, the type.
     */
    R13_REDUCE_OP(
            Rule.R13_TYPES,
            "%s uses ReduceOp.%s on %s; AVG divides, which only floating-point types do: use"
                    + " SUM, or a floating-point type"),

    // ---- what only the runtime reports, by rule ----------------------------------------------------------------

    /**
     * A buffer or view made at run time that does not lie inside what it is made of. Arguments: "buffer" or "view",
     * its count, type and first byte, and what it should lie in.
     */
    R7_OUTSIDE(Rule.R7_ARENA, "%s of %s x %s at byte %s lies outside %s"),
    /**
     * A typed host copy whose Java array does not carry the buffer's element type. Arguments: the copy
     * ("copyFromHost(float[])"), the buffer, the types the array holds, the buffer's type, then that type again.
     */
    R13_HOST_ARRAY_TYPE(
            Rule.R13_TYPES,
            "%s on %s: the host array holds %s elements, not %s; copy through the array"
                    + " of %s's Java type, or through the byte[]/ByteBuffer overloads for raw bytes"),
    /** A call's count below 0 (0 is allowed, as the libraries allow it). Arguments: the call, the count. */
    R13_NEGATIVE_COUNT(Rule.R13_TYPES, "%s: count %s is negative; counts are at least 0"),
    /**
     * A call's bytes overflow a long. Arguments: the call, the count, the type, then " x 4 ranks" where the call
     * reaches count × ranks elements, else the empty string.
     */
    R13_CALL_OVERFLOW(Rule.R13_TYPES, "%s: %s x %s%s overflows a long byte size"),
    /**
     * Window registration on legacy memory. Arguments: the allocation function of the library ("ncclMemAlloc"), then
     * the buffers on legacy memory ("rank 1: 8192 x UINT8 at 0x...").
     */
    R12_LEGACY_MEMORY(Rule.R12_WINDOW, "window registration needs VMM or %s memory, not legacy memory: %s"),
    /**
     * A window whose head is off {@link Rule#WINDOW_ALIGNMENT}. Arguments: the alignment, then the heads off it
     * ("rank 0: 0x7f0000000064").
     */
    R12_HEAD_MISALIGNED(Rule.R12_WINDOW, "a window's head must be aligned to %s bytes: %s"),

    // at bind (generated code and runtime.internal)

    /** A registered legacy buffer whose opt-in variable is not "1". Arguments: the buffer, the variable, its value
     * ("'0'" or "unset"), and whether IB SHARP registration is available ("IB SHARP is off"). */
    R9_VARIABLE_NOT_SET(
            Rule.R9_LEGACY,
            "%s comes from the legacy allocator; registering it needs %s=1, which is %s"
                    + " (legacy registrations can hang or crash on abort), or IB SHARP registration, which takes any allocator"
                    + " but %s"),
    /** A registered legacy buffer in a pipeline without the opt-in. Argument: the buffer. */
    R9_NOT_ALLOWED(
            Rule.R9_LEGACY,
            "%s comes from the legacy allocator; registering it needs" + " allowLegacyRegistration = true"),
    /** IB SHARP registration on a communicator with several ranks per node. Arguments: the pipeline, the topology. */
    R8_RANKS_PER_NODE(
            Rule.R8_IB_SHARP,
            "%s asks for IB SHARP registration, which needs 1 rank per node; this" + " communicator has %s"),
    /**
     * MTLink SHARP registration of an external that is not VMM memory. Arguments: the pipeline, the library's
     * allocation function ("ncclMemAlloc"), the external, the buffer bind was given.
     */
    R3_EXTERNAL_NOT_VMM(
            Rule.R3_MTLS_ALLOC,
            "%s: MTLink SHARP registration needs %s or qualified VMM memory; external" + " `%s` is %s"),
    /** A dim below 1. Arguments: the pipeline, the dim, its value. */
    R13_DIM_NOT_POSITIVE(Rule.R13_TYPES, "%s: dim `%s` is %s; dims are sizes, at least 1"),
    /**
     * An external smaller than declared, or of another type. Arguments: the pipeline, the external, its declared
     * count and type, the buffer bind was given.
     */
    R13_EXTERNAL_TOO_SMALL(Rule.R13_TYPES, "%s: external buffer `%s` must hold at least %s x %s; bind was given %s"),
    /**
     * A condition on sizes left to bind or call that fails. Arguments: the pipeline, the condition ({@code "bucket():
     * offset + n <= elements"}), the value and its bound.
     */
    R7_BOUND_EXCEEDED(Rule.R7_ARENA, "%s: %s does not hold: %s > %s"),
    /** As {@link #R7_BOUND_EXCEEDED}, for a condition on a count or a size. */
    R13_BOUND_EXCEEDED(Rule.R13_TYPES, "%s: %s does not hold: %s > %s"),
    /**
     * A view's head, known only at bind or call, off its element size. Arguments: the pipeline, the condition, the
     * byte and the alignment.
     */
    R7_NOT_ALIGNED(Rule.R7_ARENA, "%s: %s does not hold: %s is not a multiple of %s"),
    /**
     * An expression that overflows a long or divides by zero while it is checked. Arguments: the pipeline, where
     * (the attribute), the arithmetic's own words.
     */
    R13_EXPRESSION_OVERFLOW(Rule.R13_TYPES, "%s: %s: an expression overflows a long or divides by zero (%s)"),
    /** A pipeline's declared ranks differ from the communicator's size. Arguments: the pipeline, both sizes. */
    R14_RANKS(Rule.R14_SHAPE, "%s declares ranks = %s, but the communicator has %s"),
    /**
     * The ranks' fingerprints differ in shape. Arguments: " (P in different shapes)" where the pipeline is the same,
     * else the empty string; the entry; each rank's value.
     */
    R14_DIFFERENT_PIPELINES(Rule.R14_SHAPE, "ranks bound different pipelines%s: '%s' differs; %s"),
    /** The fingerprints differ past what the exchange carries. Argument: how many bytes it carries. */
    R14_DIFFERENT_BEYOND(
            Rule.R14_SHAPE, "ranks bound different pipelines (the descriptions differ beyond %s" + " bytes)"),
    /** The ranks' fingerprints differ in registration. Arguments: the pipeline, the entry, each rank's value. */
    R1_REGISTERED_DIFFERENTLY(Rule.R1_MIXED, "ranks register %s's buffers differently: '%s' differs; %s"),
    /** The ranks' fingerprints differ in head offsets. Arguments: the pipeline, the entry, each rank's value. */
    R2_BOUND_AT_OTHER_OFFSETS(
            Rule.R2_OFFSET,
            "ranks passed %s buffers at different offsets from their allocation's" + " head: '%s' differs; %s"),
    /** The ranks' fingerprints differ in windows. Arguments: the pipeline, the entry, each rank's value. */
    R12_WINDOWS_DIFFERENTLY(Rule.R12_WINDOW, "ranks register %s's windows differently: '%s' differs; %s"),

    // at each call (generated code, the backends)

    /** A step called after close(). Arguments: the pipeline, the step. */
    R5_CLOSED(Rule.R5_GRAPH_LIFETIME, "pipeline %s is closed: %s() after close() would replay a destroyed graph"),
    /**
     * The ranks called a step with different arguments. Arguments: the pipeline, the step, each rank's call
     * ("rank 0: ...; rank 1: ...").
     */
    R14_STEP_ARGUMENTS(
            Rule.R14_SHAPE,
            "the ranks called %s.%s() with different arguments (%s); every rank must call a"
                    + " step with the same ones"),
    /** A collective captured on some ranks only. Argument: which rank launched it how. */
    R4_CAPTURED_ON_SOME(
            Rule.R4_GRAPH_CAPTURE,
            "the call is graph-registered only if every rank captures it and" + " launches the graph; %s"),
    /** The ranks called different collectives. Arguments: what differs ("count differs: rank 0: 4, ..."), the calls. */
    R14_DIFFERENT_COLLECTIVES(Rule.R14_SHAPE, "ranks called different collectives: %s (calls: %s)"),
    /** A send and its recv disagree. Arguments: the pair ("send #0 from rank 0 to rank 1"), the send, the recv. */
    R14_SEND_RECV(Rule.R14_SHAPE, "%s: the send is %s but the recv is %s; count and type must match"),
    /**
     * A collective whose send is registered and recv not, or the reverse. Arguments: the call, the rank, the send's
     * state ("registered", "unregistered"), the send, the recv's state, the recv.
     */
    R1_MIXED_CALL(
            Rule.R1_MIXED,
            "%s: rank %s passes a %s send buffer (%s) and a %s recv buffer (%s); register both or" + " neither"),
    /** Registered buffers on some ranks of a call only. Arguments: the call, each rank's state. */
    R1_REGISTERED_ON_SOME(
            Rule.R1_MIXED,
            "%s: registered buffers on some ranks only: %s; every rank must pass" + " registered buffers, or none"),
    /**
     * Registered buffers at different head offsets where the registration needs the same. Arguments: the call, the
     * registration ("graph registration"), each rank's offset.
     */
    R2_CALL_OFFSETS(
            Rule.R2_OFFSET,
            "%s under %s: %s (bytes from each allocation's head; they must be the same on" + " every rank)"),
    /** The ranks made different window calls. Argument: each rank's call. */
    R14_WINDOW_CALLS(Rule.R14_SHAPE, "ranks made different window calls: %s"),
    /** The ranks disagree on a window's kind. Argument: each rank's. */
    R14_WINDOW_SYMMETRY(Rule.R14_SHAPE, "ranks disagree on whether the window is symmetric: %s"),
    /** A symmetric window at different head offsets. Argument: each rank's offset. */
    R12_SYMMETRIC_OFFSETS(
            Rule.R12_WINDOW,
            "a symmetric window needs the same offset from its allocation's head on" + " every rank: %s"),
    /**
     * Deregistering a handle the communicator did not make. Arguments: the library's deregister function, the
     * handle.
     */
    R6_UNKNOWN_HANDLE(Rule.R6_LOCAL, "%s of an unknown handle (%s): this communicator did not register it"),
    /** Deregistering a handle twice. Arguments: the library's deregister function, the handle. */
    R6_DEREGISTERED_TWICE(Rule.R6_LOCAL, "%s of the %s, which was already deregistered"),

    // making and freeing memory (the backends, DeviceBuffer, ForeignMemory)

    /** Freeing memory a live graph uses. Arguments: the memory, how many graphs use it. */
    R5_FREE_IN_GRAPH(
            Rule.R5_GRAPH_LIFETIME,
            "cannot free %s: %s live graph(s) or graph exec(s) use it; destroy the" + " graphs before their buffers"),
    /** Freeing registered memory. Arguments: the memory, how many registrations (or windows) it has. */
    R6_FREE_REGISTERED(
            Rule.R6_LOCAL,
            "cannot free %s: it is still registered (%s live registration(s)); deregister" + " it first"),
    /** Freeing memory that backs windows. Arguments: the memory, how many windows. */
    R12_FREE_WINDOWED(Rule.R12_WINDOW, "cannot free %s: it still backs %s window(s); deregister them first"),
    /** A wrap whose bytes are no whole number of elements. Arguments: the wrap, its bytes, the type. */
    R13_WRAP_NOT_WHOLE(Rule.R13_TYPES, "%s: %s bytes are not a positive whole number of %s elements"),
    /**
     * A wrap that runs past the allocation the driver reports. Arguments: the wrap, the allocation's head and size,
     * how many bytes past it.
     */
    R7_WRAP_PAST_ALLOCATION(Rule.R7_ARENA, "%s runs past its allocation (%s, %s bytes) by %s bytes"),
    /** A custom allocator without the annotation. Argument: the allocator. */
    R11_UNQUALIFIED_AT_RUN_TIME(Rule.R11_ALLOCATOR, "%s is not annotated @QualifiedAllocator"),
    /** An allocator's memory without POSIX fd handles. Arguments: the allocator, the memory, its handle types. */
    R11_ALLOCATED_WITHOUT_POSIX(
            Rule.R11_ALLOCATOR, "%s allocated %s without the POSIX_FILE_DESCRIPTOR handle type" + " (has %s)"),
    /** An allocator's memory without FABRIC handles on a device with them. Arguments: the allocator, the memory. */
    R11_ALLOCATED_WITHOUT_FABRIC(
            Rule.R11_ALLOCATOR, "%s allocated %s without the FABRIC handle type, which this" + " device supports"),
    /** An allocator that returned less than asked. Arguments: the allocator, the bytes returned, the bytes asked. */
    R11_SHORT_ALLOCATION(Rule.R11_ALLOCATOR, "%s returned %s bytes for a request of %s"),
    /** Wrapped VMM memory without POSIX fd handles, registered. Argument: the buffer and its class. */
    R11_FOREIGN_WITHOUT_POSIX(
            Rule.R11_ALLOCATOR,
            "%s is VMM memory created without the POSIX_FILE_DESCRIPTOR handle"
                    + " type, which registration needs; allocate it with requestedHandleTypes including POSIX fd"
                    + " (ncclMemAlloc/mcclMemAlloc does)"),
    /** Wrapped VMM memory without FABRIC handles on a device with them, registered. Argument: as above. */
    R11_FOREIGN_WITHOUT_FABRIC(
            Rule.R11_ALLOCATOR,
            "%s is VMM memory created without the FABRIC handle type, which" + " this device supports"),
    /**
     * A size or address off the granularity. Arguments: the allocator or buffer, what ("physical size"), the value
     * in hex and in decimal, the granularity.
     */
    R11_NOT_GRANULAR(Rule.R11_ALLOCATOR, "%s: %s 0x%s (%s) is not a multiple of the recommended granularity %s"),

    // ---- what only the processor reports, by rule -----------------------------------------------------------------

    /**
     * A GRAPH pipeline's op uses memory declared {@code registered = false}. Arguments: the op's annotation, the step,
     * the accessor.
     */
    R1_UNREGISTERED_IN_GRAPH(
            Rule.R1_MIXED,
            "%s in GRAPH step `%s()` uses `%s`, which lies in a buffer declared"
                    + " registered = false; graph capture registers every buffer its ops use, so remove registered = false or"
                    + " use Registration.LOCAL"),
    /**
     * A LOCAL pipeline's op combines a registered and an unregistered buffer. Arguments: the op's annotation, the
     * step, the send accessor and its state ("registered" or "registered = false"), the recv accessor and its state.
     */
    R1_MIXED_OP(
            Rule.R1_MIXED,
            "%s in `%s()` mixes a registered and an unregistered buffer: send `%s` is %s, recv `%s`"
                    + " is %s; register both or neither"),
    /** A registered legacy buffer under MTLink SHARP. Argument: the buffer. */
    R3_LEGACY(
            Rule.R3_MTLS_ALLOC,
            "buffer `%s` uses Allocator.LEGACY (cudaMalloc/musaMalloc), but MTLink SHARP"
                    + " registration needs ncclMemAlloc/mcclMemAlloc or a qualified allocator: use Allocator.MEM_ALLOC or"
                    + " Allocator.VMM"),
    /** A registered buffer of an unqualified custom allocator under MTLink SHARP. Arguments: the buffer, the class. */
    R3_UNQUALIFIED_CUSTOM(
            Rule.R3_MTLS_ALLOC,
            "buffer `%s` uses %s, which is not a qualified allocator (no"
                    + " @QualifiedAllocator), but MTLink SHARP registration needs ncclMemAlloc/mcclMemAlloc or a qualified"
                    + " allocator"),
    /**
     * An op's side starts before the head of its buffer. Arguments: the side ("the send of @AllReduce #1 in step()"),
     * its offset in elements, the buffer.
     */
    R7_NEGATIVE_OFFSET(Rule.R7_ARENA, "%s: offset %s into `%s` is negative; offsets are at least 0"),
    /** A view starts before the head of what it is a view of. Arguments: the view, its offsetBytes, its {@code of}. */
    R7_VIEW_BEFORE_HEAD(Rule.R7_ARENA, "view `%s` starts at byte %s, before the head of `%s`; offsets are at least 0"),
    /**
     * A view reaches past the end of the buffer or view it is of. Arguments: the view, its {@code of}, the view's
     * first byte and end in it, and how many bytes it holds.
     */
    R7_VIEW_PAST_END(
            Rule.R7_ARENA,
            "view `%s` reaches past the end of `%s`: bytes [%s, %s), but it holds %s bytes;"
                    + " a view lies inside the buffer or view it is of"),
    /**
     * A view starts in its allocation at a byte that is not a multiple of its element size. Arguments: the view, the
     * byte, its type, the type's size, then the size again.
     */
    R7_VIEW_MISALIGNED(
            Rule.R7_ARENA,
            "view `%s` starts at byte %s of its allocation, not a multiple of the %s element"
                    + " size %s; align offsetBytes to %s"),
    /** An op IB SHARP does not serve, in an IB SHARP pipeline (a warning). Arguments: the op's annotation, the step. */
    R8_GENERAL_PATH(
            Rule.R8_IB_SHARP,
            "%s in `%s()` is not served by IB SHARP (only @AllReduce, @ReduceScatter and"
                    + " @AllGather are); it takes the general path"),
    /** A registered legacy buffer without the opt-in. Arguments: the buffer, the pipeline's registration. */
    R9_WITHOUT_OPT_IN(
            Rule.R9_LEGACY,
            "buffer `%s` comes from Allocator.LEGACY (cudaMalloc/musaMalloc) and the %s"
                    + " pipeline registers it; legacy registration can hang or crash on abort, so opt in with"
                    + " @CollectivePipeline(allowLegacyRegistration = true) (bind then needs"
                    + " NCCL_LEGACY_CUDA_REGISTER=1/MCCL_LEGACY_MUSA_REGISTER=1), use Allocator.MEM_ALLOC, or declare it"
                    + " registered = false"),
    /** {@code customAllocator} without {@code Allocator.CUSTOM}. Arguments: the buffer, the class, the allocator. */
    R11_CLASS_WITHOUT_CUSTOM(
            Rule.R11_ALLOCATOR,
            "buffer `%s` names customAllocator = %s.class but allocator ="
                    + " Allocator.%s; the class is only used with allocator = Allocator.CUSTOM"),
    /** {@code Allocator.CUSTOM} without {@code customAllocator}. Argument: the buffer. */
    R11_CUSTOM_WITHOUT_CLASS(
            Rule.R11_ALLOCATOR,
            "buffer `%s`: allocator = Allocator.CUSTOM needs customAllocator =" + " YourAllocator.class"),
    /** The custom allocator class does not exist and no processor generated it. Arguments: the buffer, the class. */
    R11_CLASS_NOT_FOUND(
            Rule.R11_ALLOCATOR,
            "buffer `%s`: customAllocator %s cannot be found (nor did any annotation processor"
                    + " generate it); name an existing DeviceAllocator class"),
    /** The custom allocator is an interface, enum, annotation or abstract class. Arguments: the buffer, the class. */
    R11_NOT_CONCRETE(
            Rule.R11_ALLOCATOR,
            "buffer `%s`: customAllocator %s must be a concrete class (it is instantiated" + " at bind)"),
    /**
     * {@code customAllocator} names a class javac cannot resolve, nor did any processor generate it, by the end of
     * compilation; javac kept no name for it.
     */
    R11_UNRESOLVED(
            Rule.R11_ALLOCATOR,
            "the class named by customAllocator cannot be found, nor did any annotation"
                    + " processor generate it; no class was generated for this pipeline"),
    /** Arguments: the buffer, the class. */
    R11_NOT_DEVICE_ALLOCATOR(Rule.R11_ALLOCATOR, "buffer `%s`: customAllocator %s does not implement DeviceAllocator"),
    /**
     * The class, or one it lies in, is private. Arguments: the buffer, the class, then "is" or "lies in `Outer`,
     * which is".
     */
    R11_PRIVATE(
            Rule.R11_ALLOCATOR,
            "buffer `%s`: customAllocator %s %s private; the generated class must be able to" + " instantiate it"),
    /**
     * The class, or one it lies in, is not public and lies in another package. Arguments: the buffer, the class, "is"
     * or "lies in `Outer`, which is", the pipeline's package.
     */
    R11_NOT_PUBLIC(
            Rule.R11_ALLOCATOR,
            "buffer `%s`: customAllocator %s %s not public, and the generated class in"
                    + " package %s must be able to instantiate it"),
    /** Arguments: the buffer, the class. */
    R11_INNER_CLASS(
            Rule.R11_ALLOCATOR,
            "buffer `%s`: customAllocator %s is an inner class; make it static so that it"
                    + " can be instantiated on its own"),
    /** Arguments: the buffer, the class, the checked exceptions its no-argument constructor throws. */
    R11_CONSTRUCTOR_THROWS(
            Rule.R11_ALLOCATOR,
            "buffer `%s`: customAllocator %s has a no-argument constructor that"
                    + " throws the checked %s; the generated bind() cannot handle that: declare a constructor that does not"),
    /** Arguments: the buffer, the class. */
    R11_NO_CONSTRUCTOR(
            Rule.R11_ALLOCATOR, "buffer `%s`: customAllocator %s has no accessible no-argument" + " constructor"),
    /** Arguments: the buffer, the class. */
    R11_NOT_QUALIFIED(
            Rule.R11_ALLOCATOR,
            "buffer `%s`: %s is not annotated @QualifiedAllocator(handleTypes ="
                    + " {POSIX_FILE_DESCRIPTOR, FABRIC}); only qualified allocators' memory may be registered"),
    /** Arguments: the buffer, the class, its handle types. */
    R11_WITHOUT_POSIX(
            Rule.R11_ALLOCATOR,
            "buffer `%s`: %s declares handle types %s without POSIX_FILE_DESCRIPTOR,"
                    + " which qualified allocators must export"),
    /** Arguments: the buffer, the class, its handle types. */
    R11_WITHOUT_FABRIC(
            Rule.R11_ALLOCATOR,
            "buffer `%s`: %s declares handle types %s without FABRIC, which MTLink"
                    + " SHARP registration needs on GPUs that support it"),
    /** A window on legacy memory. Argument: the accessor. */
    R12_LEGACY(
            Rule.R12_WINDOW,
            "window `%s` is on Allocator.LEGACY (cudaMalloc/musaMalloc) memory; window"
                    + " registration needs Allocator.MEM_ALLOC, VMM or a qualified custom allocator"),
    /**
     * A window in a buffer declared {@code registered = false}: window registration registers that memory, so the two
     * contradict each other. Arguments: the accessor, its root buffer.
     */
    R12_UNREGISTERED(
            Rule.R12_WINDOW,
            "window `%s` lies in buffer `%s`, declared registered = false, but window"
                    + " registration registers that memory on every rank; remove registered = false, or the @Window"),
    /**
     * A window on a view, off the alignment. Arguments: the view, its byte in its allocation, the alignment, the
     * nearest aligned byte below.
     */
    R12_MISALIGNED(
            Rule.R12_WINDOW,
            "window `%s` starts at byte %s of its allocation; a window's head must be aligned"
                    + " to %s bytes (nearest: %s)"),
    /**
     * A count below 1. Arguments: what has it ("@Buffer `a`", "@AllReduce in `step()`"), the attribute, the value.
     */
    R13_COUNT_NOT_POSITIVE(Rule.R13_TYPES, "%s has %s = %s; counts are positive"),
    /** Arguments: the accessor's annotation, its name, the count, the type, the type's size. */
    R13_SIZE_OVERFLOW(Rule.R13_TYPES, "%s `%s`: %s x %s (%s bytes each) overflows a long"),
    /**
     * A view of an {@code @External} reaches past the external's declared size. Arguments: the view, its count, type,
     * bytes and offset, the external, its count, type and bytes.
     */
    R13_VIEW_PAST_EXTERNAL(
            Rule.R13_TYPES,
            "view `%s` (%s x %s = %s bytes at byte %s) reaches past external `%s`,"
                    + " declared as %s x %s (%s bytes), which is all bind requires of the buffer it is given; declare the"
                    + " external's count to cover the view"),
    /**
     * An op's send and recv have different element types. Arguments: the op ("@AllReduce in `step()`"), the send
     * type and accessor, the recv accessor and type.
     */
    R13_MIXED_TYPES(
            Rule.R13_TYPES,
            "%s sends %s from `%s` but receives into `%s`, which is %s; an op has one element"
                    + " type: declare a @View of the right type"),
    /** A reduction over a @Buffer of the default type (a warning). Arguments: the op, the accessor. */
    R13_DEFAULT_UINT8(
            Rule.R13_TYPES,
            "%s reduces `%s` as UINT8, the type @Buffer has when none is given: each byte is"
                    + " reduced on its own; declare the elements' type (type = DataType.FLOAT32, ...), or type = DataType.UINT8"
                    + " if bytes are meant"),
    /**
     * An op's side reaches past a long's bytes. Arguments: the op, the side ("send"), the offset, the elements
     * ("1024 elements"), the type.
     */
    R13_RANGE_OVERFLOW(Rule.R13_TYPES, "%s: %s offset %s plus %s of %s overflows a long byte size"),
    /**
     * A {@code /} in a size or offset expression leaves a remainder, which would be dropped silently. Arguments: where
     * (the step, the op or accessor, the attribute and its expression), the division, its dividend and divisor, the
     * remainder, the division written with floorDiv.
     */
    R13_REMAINDER(
            Rule.R13_TYPES,
            "%s: %s divides %s by %s, which leaves a remainder of %s; choose sizes that divide"
                    + " exactly (pad to a multiple), or write %s to round down"),
    /**
     * A size or offset given by an expression breaks the rule whatever the dims and step arguments are. Argument: the
     * condition ({@code "step(): @AllReduce #1: count is at least 1: 1 <= n - n"}).
     */
    R13_HOLDS_FOR_NO_VALUE(
            Rule.R13_TYPES, "%s holds for no value of the dims (at least 1) and parameters (at least" + " 0)");

    private final Rule rule;
    private final String template;
    private final int arguments;

    Message(Rule rule, String template) {
        this.rule = rule;
        this.template = template;
        this.arguments = placeholders(template);
    }

    /** The rule it is about: its tag starts the message wherever it is reported. */
    public Rule rule() {
        return rule;
    }

    /** The text with {@code arguments} in place of the {@code %s}, without tag or pointer. */
    public String format(Object... arguments) {
        Objects.requireNonNull(arguments, "arguments");
        if (arguments.length != this.arguments) {
            throw new IllegalArgumentException(
                    name() + " takes " + this.arguments + " arguments, not " + arguments.length);
        }
        return String.format(Locale.ROOT, template, arguments);
    }

    // a loop, not a static Pattern: the constants are made before the enum's static fields
    private static int placeholders(String template) {
        int count = 0;
        for (int i = template.indexOf('%'); i >= 0; i = template.indexOf('%', i + 2)) {
            if (i + 1 == template.length() || template.charAt(i + 1) != 's') {
                throw new IllegalArgumentException("only %s placeholders: " + template);
            }
            count++;
        }
        return count;
    }
}
