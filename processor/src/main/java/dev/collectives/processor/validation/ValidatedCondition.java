package dev.collectives.processor.validation;

import dev.collectives.processor.expr.Expr;
import dev.collectives.processor.model.Condition;
import dev.collectives.rules.Rule;
import java.util.List;
import java.util.Objects;

/**
 * A rule's condition on sizes and offsets that the processor could not prove, so that the generated code checks it:
 * at bind, or at each call of the step that holds it. {@link Condition} says what each kind compares.
 *
 * @param what the words that name what is checked, as messages begin
 * @param text {@code what} and the comparison, as messages show it
 * @param failureArguments the arguments of the rule's message, as the compile-time message shows them
 */
public record ValidatedCondition(
        Condition.Kind kind,
        Rule rule,
        String what,
        String text,
        List<String> failureArguments,
        List<Expr> operands,
        boolean inPlace) {
    public ValidatedCondition {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(rule, "rule");
        Objects.requireNonNull(what, "what");
        Objects.requireNonNull(text, "text");
        failureArguments = List.copyOf(failureArguments);
        operands = List.copyOf(operands);
    }

    static ValidatedCondition of(Condition c) {
        return new ValidatedCondition(
                c.kind(),
                c.rule(),
                c.what(),
                c.text(),
                c.failureArguments().stream().map(String::valueOf).toList(),
                c.operands(),
                c.inPlace());
    }
}
