package io.hpacontroller.core;

import java.util.Objects;

/**
 * The result of reading a user's setting or a stored value: the value, or a message that says what is
 * wrong (for a condition and an event), never an exception.
 */
public sealed interface Parsed<T> {

    static <T> Parsed<T> valid(T value) {
        return new Valid<>(value);
    }

    static <T> Parsed<T> invalid(String message) {
        return new Invalid<>(message);
    }

    /** A value that was read without fault. */
    record Valid<T>(T value) implements Parsed<T> {
        public Valid {
            Objects.requireNonNull(value, "value");
        }
    }

    /** What is wrong, naming the place (field, annotation) and what is accepted there. */
    record Invalid<T>(String message) implements Parsed<T> {
        public Invalid {
            Objects.requireNonNull(message, "message");
        }
    }
}
