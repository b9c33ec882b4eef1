package dev.collectives.tools.differential;

import dev.collectives.annotation.DataType;
import dev.collectives.runtime.Numerics;
import dev.collectives.tools.differential.Output.Segment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Compares what one rank got from one item on sim with what it got on the other backend: the same verdict (ran,
 * skipped, or failed with the same tag), then the same buffers read back, element by element within the item's
 * {@link Tolerance}. A difference names the first differing element and both values.
 */
final class Comparison {
    /** The backend every comparison is made against. */
    static final String REFERENCE = "sim";

    private Comparison() {}

    enum Result {
        AGREE,
        DIFFER,
        SKIPPED
    }

    /**
     * One rank's comparison of one item.
     *
     * @param item     the item's key ("corpus p0017")
     * @param rank     the rank
     * @param result   agree, differ, or skipped (by the other backend; not compared)
     * @param bitExact for an agreement: whether every element was equal to the bit
     * @param detail   for an agreement within the bound, the largest difference; for a difference, where and what;
     *                 for a skip, why
     */
    record Verdict(String item, int rank, Result result, boolean bitExact, String detail) {}

    /**
     * How a report names the two sides: "sim" and the backend, or, when sim is compared with itself, "sim in
     * threads" and "sim in processes".
     */
    record Sides(String reference, String other) {
        static Sides against(String backend) {
            return REFERENCE.equals(backend)
                    ? new Sides("sim in threads", "sim in processes")
                    : new Sides(REFERENCE, backend);
        }
    }

    static Verdict compare(String item, int rank, Outcome reference, Outcome other, Sides sides, Tolerance tolerance) {
        if (other.kind() == Outcome.Kind.SKIPPED) {
            return new Verdict(item, rank, Result.SKIPPED, false, sides.other() + ": " + other.detail());
        }
        if (!reference.verdict().equals(other.verdict())) {
            return differ(item, rank, describe(sides.reference(), reference) + "; " + describe(sides.other(), other));
        }
        if (reference.kind() == Outcome.Kind.FAILED) {
            return new Verdict(item, rank, Result.AGREE, true, "both failed with " + reference.tag());
        }
        List<String> names = reference.outputs().stream().map(Output::name).collect(Collectors.toList());
        List<String> otherNames = other.outputs().stream().map(Output::name).collect(Collectors.toList());
        if (!names.equals(otherNames)) {
            return differ(
                    item, rank, sides.reference() + " read back " + names + ", " + sides.other() + " " + otherNames);
        }
        boolean bitExact = true;
        double largest = -1;
        String largestAt = "";
        for (int i = 0; i < names.size(); i++) {
            Elements e =
                    new Elements(reference.outputs().get(i), other.outputs().get(i), sides, tolerance);
            if (e.difference != null) {
                return differ(item, rank, e.difference);
            }
            bitExact &= e.bitExact;
            if (e.largest > largest) {
                largest = e.largest;
                largestAt = e.largestAt;
            }
        }
        return new Verdict(
                item,
                rank,
                Result.AGREE,
                bitExact,
                bitExact ? "bit-exact" : "within the bound; largest difference " + largestAt);
    }

    private static Verdict differ(String item, int rank, String what) {
        return new Verdict(item, rank, Result.DIFFER, false, what);
    }

    private static String describe(String backend, Outcome outcome) {
        return switch (outcome.kind()) {
            case RAN -> backend + " ran";
            case SKIPPED -> backend + " skipped (" + outcome.detail() + ")";
            case FAILED -> backend + " failed with " + outcome.tag() + ": " + outcome.detail();
        };
    }

    /** The element-wise comparison of one buffer: its first difference beyond the tolerance, or its largest one. */
    private static final class Elements {
        String difference;
        boolean bitExact = true;
        double largest = -1;
        String largestAt = "";

        Elements(Output reference, Output other, Sides sides, Tolerance tolerance) {
            if (reference.bytes().length != other.bytes().length
                    || !reference.segments().equals(other.segments())) {
                difference = reference.name() + ": " + sides.reference() + " read " + reference.bytes().length
                        + " bytes in " + reference.segments() + ", " + sides.other() + " " + other.bytes().length
                        + " in " + other.segments();
                return;
            }
            if (Arrays.equals(reference.bytes(), other.bytes())) {
                return;
            }
            ByteBuffer a = ByteBuffer.wrap(reference.bytes()).order(ByteOrder.nativeOrder());
            ByteBuffer b = ByteBuffer.wrap(other.bytes()).order(ByteOrder.nativeOrder());
            for (Segment s : reference.segments()) {
                int size = s.type().size();
                for (long at = s.offset(); at + size <= s.offset() + s.length() && difference == null; at += size) {
                    compare(
                            reference.name(),
                            s,
                            (at - s.offset()) / size,
                            raw(a, (int) at, size),
                            raw(b, (int) at, size),
                            sides,
                            tolerance);
                }
            }
        }

        private void compare(String buffer, Segment s, long index, long x, long y, Sides sides, Tolerance tolerance) {
            if (x == y) {
                return;
            }
            DataType type = s.type();
            double bound = type.isFloatingPoint()
                    ? tolerance.bound(type, Numerics.decode(type, x), Numerics.decode(type, y))
                    : 0;
            double gap = type.isFloatingPoint() ? Math.abs(Numerics.decode(type, x) - Numerics.decode(type, y)) : 0;
            String where = buffer + ", element " + index + " of the " + type + " elements at byte " + s.offset()
                    + " (byte " + (s.offset() + index * type.size()) + ")";
            if (bound > 0 && gap <= bound) {
                bitExact = false;
                if (gap > largest) {
                    largest = gap;
                    largestAt = String.format(
                            Locale.ROOT,
                            "%.3g (bound %.3g) at %s: %s %s, %s",
                            gap,
                            bound,
                            where,
                            sides.reference(),
                            show(type, x),
                            show(type, y));
                }
                return;
            }
            difference = where + ": " + sides.reference() + " " + show(type, x) + ", " + sides.other() + " "
                    + show(type, y)
                    + (bound > 0
                            ? String.format(Locale.ROOT, " (|difference| %.3g > bound %.3g)", gap, bound)
                            : " (bit-exact expected)");
        }
    }

    private static long raw(ByteBuffer bytes, int at, int size) {
        return switch (size) {
            case 1 -> bytes.get(at) & 0xFFL;
            case 2 -> bytes.getShort(at) & 0xFFFFL;
            case 4 -> bytes.getInt(at) & 0xFFFF_FFFFL;
            default -> bytes.getLong(at);
        };
    }

    /** An element's value as a user reads it, and for a floating type its bits. */
    static String show(DataType type, long raw) {
        return switch (type) {
            case UINT64 -> Long.toUnsignedString(raw);
            case INT64 -> Long.toString(raw);
            case INT8, UINT8, INT32, UINT32 -> Long.toString((long) Numerics.decode(type, raw));
            default -> Numerics.decode(type, raw) + " (0x" + Long.toHexString(raw) + ")";
        };
    }
}
