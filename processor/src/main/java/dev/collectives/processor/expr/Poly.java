package dev.collectives.processor.expr;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * An expression as a polynomial with integer coefficients over variables that are all at least 0: a dim or
 * undeclared {@code ranks} {@code x} is written {@code 1 + x'}, a parameter is itself, and a {@code /} or {@code %}
 * that does not cancel is an opaque variable named by its text (at least 0 only where its operands are). Arithmetic
 * is exact: a coefficient that overflows throws {@link ArithmeticException}, and the caller proves nothing.
 */
final class Poly {
    /** Monomial (sorted variable names, repeated for powers) → coefficient; the empty monomial is the constant. */
    private final Map<List<String>, Long> terms = new TreeMap<>(Poly::compare);
    /** Opaque variables whose sign is unknown: a polynomial using one proves nothing. */
    private final Set<String> unsigned = new HashSet<>();

    /**
     * By size, then as the names joined with {@code *} compare, without joining them (this runs on every look-up of
     * a term): char by char along both lists, {@code *} between names.
     */
    private static int compare(List<String> a, List<String> b) {
        if (a.size() != b.size()) {
            return Integer.compare(a.size(), b.size());
        }
        int i = 0;
        int j = 0;
        int ai = 0;
        int bj = 0;
        while (true) {
            int ca = charAt(a, i, ai);
            int cb = charAt(b, j, bj);
            if (ca != cb || ca == -1) {
                // -1 (the end) sorts first, as a shorter string does
                return Integer.compare(ca, cb);
            }
            if (ai < a.get(i).length()) {
                ai++;
            } else {
                i++;
                ai = 0;
            }
            if (bj < b.get(j).length()) {
                bj++;
            } else {
                j++;
                bj = 0;
            }
        }
    }

    /** The char at {@code index} of name {@code name}, {@code *} just past a name that is not the last, -1 at the end. */
    private static int charAt(List<String> names, int name, int index) {
        if (name >= names.size()) {
            return -1;
        }
        String s = names.get(name);
        if (index < s.length()) {
            return s.charAt(index);
        }
        return name + 1 < names.size() ? '*' : -1;
    }

    static Poly constant(long value) {
        Poly p = new Poly();
        p.put(List.of(), value);
        return p;
    }

    static Poly variable(String name, boolean nonNegative) {
        Poly p = new Poly();
        p.put(List.of(name), 1);
        if (!nonNegative) {
            p.unsigned.add(name);
        }
        return p;
    }

    private void put(List<String> monomial, long coefficient) {
        long sum = Math.addExact(terms.getOrDefault(monomial, 0L), coefficient);
        if (sum == 0) {
            terms.remove(monomial);
        } else {
            terms.put(monomial, sum);
        }
    }

    Poly plus(Poly other) {
        Poly p = copy();
        other.terms.forEach(p::put);
        p.unsigned.addAll(other.unsigned);
        return p;
    }

    Poly negate() {
        Poly p = new Poly();
        terms.forEach((m, c) -> p.put(m, Math.negateExact(c)));
        p.unsigned.addAll(unsigned);
        return p;
    }

    Poly minus(Poly other) {
        return plus(other.negate());
    }

    Poly times(Poly other) {
        Poly p = new Poly();
        terms.forEach((m1, c1) -> other.terms.forEach((m2, c2) -> {
            List<String> m = new ArrayList<>(m1);
            m.addAll(m2);
            Collections.sort(m);
            p.put(List.copyOf(m), Math.multiplyExact(c1, c2));
        }));
        p.unsigned.addAll(unsigned);
        p.unsigned.addAll(other.unsigned);
        return p;
    }

    private Poly copy() {
        Poly p = new Poly();
        p.terms.putAll(terms);
        p.unsigned.addAll(unsigned);
        return p;
    }

    /** The value when it has no variables, else null. */
    Long constantValue() {
        if (terms.isEmpty()) {
            return 0L;
        }
        return terms.size() == 1 && terms.containsKey(List.of()) ? terms.get(List.of()) : null;
    }

    /** Every coefficient (the constant included) divisible by {@code d}. */
    boolean divisibleBy(long d) {
        return terms.values().stream().allMatch(c -> c % d == 0);
    }

    /** Each coefficient divided by {@code d}; only when {@link #divisibleBy}. */
    Poly dividedBy(long d) {
        Poly p = new Poly();
        terms.forEach((m, c) -> p.put(m, c / d));
        p.unsigned.addAll(unsigned);
        return p;
    }

    private boolean signKnown() {
        if (unsigned.isEmpty()) {
            return true; // the common case: no opaque variable of unknown sign
        }
        for (List<String> monomial : terms.keySet()) {
            for (String variable : monomial) {
                if (unsigned.contains(variable)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** {@code this >= 0} for every value of its variables: TRUE, FALSE (for none), or UNKNOWN. */
    Verdict nonNegative() {
        if (!signKnown()) {
            return Verdict.UNKNOWN;
        }
        long constant = 0;
        boolean otherNonNegative = true;
        boolean otherNonPositive = true;
        for (Map.Entry<List<String>, Long> term : terms.entrySet()) {
            long coefficient = term.getValue();
            if (term.getKey().isEmpty()) {
                constant = coefficient;
            } else {
                otherNonNegative &= coefficient >= 0;
                otherNonPositive &= coefficient <= 0;
            }
        }
        if (otherNonNegative && constant >= 0) {
            return Verdict.TRUE;
        }
        return otherNonPositive && constant < 0 ? Verdict.FALSE : Verdict.UNKNOWN;
    }

    boolean isZero() {
        return terms.isEmpty();
    }
}
