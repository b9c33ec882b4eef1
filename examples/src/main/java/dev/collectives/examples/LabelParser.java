package dev.collectives.examples;

import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads an option's value as one of a fixed set of choices by its label ("shrink", "freeze"), in any case; a value
 * that is none of them is refused naming them all.
 *
 * @param <T> the choices' type
 */
public abstract class LabelParser<T> implements ITypeConverter<T> {
    private final List<T> choices;
    private final Function<T, String> label;

    /** Reads {@code choices} by {@code label}. */
    protected LabelParser(T[] choices, Function<T, String> label) {
        this.choices = Arrays.asList(choices);
        this.label = label;
    }

    @Override
    public T convert(String text) {
        return choices.stream()
                .filter(choice -> label.apply(choice).equalsIgnoreCase(text.trim()))
                .findFirst()
                .orElseThrow(() -> new TypeConversionException("'" + text + "' is none of "
                        + choices.stream().map(label).collect(Collectors.joining(", "))));
    }
}
