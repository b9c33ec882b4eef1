package dev.collectives.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.function.ThrowingConsumer;

/**
 * Property tests on JUnit 5 alone: {@code cases} random cases, case {@code i} drawn from a {@link Random} seeded
 * with {@code base + i}, so that every run draws the same cases and a failing one is drawn again alone with
 * {@code -Dcollectives.property.seed=<its seed>} (it is then case 0). A case that fails is shrunk: its smaller
 * variants are tried, greedily, and the smallest that still fails is reported with its seed and the failure it gave.
 *
 * @param <T> a case, as drawn; its {@code toString} is what a failure prints
 */
public final class PropertyCases<T> {
    /** The system property that overrides the base seed. */
    public static final String SEED_PROPERTY = "collectives.property.seed";

    /** How many smaller variants shrinking tries at most: each one runs the property once. */
    private static final int SHRINK_ATTEMPTS = 200;

    private final int cases;
    private final long baseSeed;
    private final Function<Random, T> draw;
    private final Function<T, List<T>> smaller;

    /**
     * @param cases how many cases to draw
     * @param defaultSeed the base seed unless {@value #SEED_PROPERTY} says another
     * @param draw draws one case
     * @param smaller the variants of a case one step smaller (fewer ops, smaller sizes), most promising first
     */
    public PropertyCases(int cases, long defaultSeed, Function<Random, T> draw, Function<T, List<T>> smaller) {
        this.cases = cases;
        this.baseSeed = Long.getLong(SEED_PROPERTY, defaultSeed);
        this.draw = draw;
        this.smaller = smaller;
    }

    /** One test per case, named with its seed; the property holds for a case when it returns normally. */
    public Stream<DynamicTest> check(ThrowingConsumer<T> property) {
        return IntStream.range(0, cases).mapToObj(i -> {
            long seed = baseSeed + i;
            return DynamicTest.dynamicTest("case " + i + " (seed " + seed + ")", () -> {
                T drawn = draw.apply(new Random(seed));
                Throwable failure = failure(property, drawn);
                if (failure != null) {
                    throw shrunk(property, drawn, failure, seed);
                }
            });
        });
    }

    private AssertionError shrunk(ThrowingConsumer<T> property, T drawn, Throwable failure, long seed) {
        T smallest = drawn;
        Throwable smallestFailure = failure;
        int steps = 0;
        int attempts = 0;
        boolean progressed = true;
        while (progressed && attempts < SHRINK_ATTEMPTS) {
            progressed = false;
            for (T candidate : smaller.apply(smallest)) {
                if (++attempts > SHRINK_ATTEMPTS) {
                    break;
                }
                Throwable candidateFailure = failure(property, candidate);
                if (candidateFailure != null) {
                    smallest = candidate;
                    smallestFailure = candidateFailure;
                    steps++;
                    progressed = true;
                    break;
                }
            }
        }
        return new AssertionError(
                "property fails for the case of seed " + seed + " (rerun it alone with -D" + SEED_PROPERTY + "="
                        + seed + ")\nsmallest failing case (" + steps + " shrink steps from the one drawn): "
                        + smallest + "\nit fails with: " + smallestFailure,
                smallestFailure);
    }

    private static <T> Throwable failure(ThrowingConsumer<T> property, T value) {
        try {
            property.accept(value);
            return null;
        } catch (Throwable t) {
            return t;
        }
    }

    /** The lists with one element fewer, each element left out in turn, none shorter than {@code minSize}. */
    public static <E> List<List<E>> withoutOne(List<E> list, int minSize) {
        List<List<E>> variants = new ArrayList<>();
        if (list.size() > minSize) {
            for (int i = 0; i < list.size(); i++) {
                List<E> shorter = new ArrayList<>(list);
                shorter.remove(i);
                variants.add(List.copyOf(shorter));
            }
        }
        return variants;
    }

    /** The lists with one element replaced by one of its smaller variants. */
    public static <E> List<List<E>> withOneSmaller(List<E> list, Function<E, List<E>> smaller) {
        List<List<E>> variants = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            for (E element : smaller.apply(list.get(i))) {
                List<E> changed = new ArrayList<>(list);
                changed.set(i, element);
                variants.add(List.copyOf(changed));
            }
        }
        return variants;
    }

    /** A value from {@code values}, each as likely. */
    @SafeVarargs
    public static <E> E oneOf(Random random, E... values) {
        return values[random.nextInt(values.length)];
    }

    /** An int between {@code min} and {@code max}, both included. */
    public static int between(Random random, int min, int max) {
        return min + random.nextInt(max - min + 1);
    }

    /** {@code size} values drawn one by one, {@code size} between {@code min} and {@code max}. */
    public static <E> List<E> listOf(Random random, int min, int max, Function<Random, E> element) {
        int size = between(random, min, max);
        List<E> list = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            list.add(element.apply(random));
        }
        return List.copyOf(list);
    }
}
