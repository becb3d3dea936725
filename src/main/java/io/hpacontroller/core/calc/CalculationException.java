package io.hpacontroller.core.calc;

/** The replica calculator could not produce a proposal; the message says why. */
public class CalculationException extends Exception {
    public CalculationException(String message) {
        super(message);
    }
}
