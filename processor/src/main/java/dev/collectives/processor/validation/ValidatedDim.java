package dev.collectives.processor.validation;

import java.util.Objects;

/** A {@code @Dim} accessor of a validated pipeline: a size given at bind, declared {@code int} or {@code long}. */
public record ValidatedDim(String name, boolean isInt) {
    public ValidatedDim {
        Objects.requireNonNull(name, "name");
    }
}
