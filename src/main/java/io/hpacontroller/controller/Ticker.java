package io.hpacontroller.controller;

/** A source of monotonic time in nanoseconds; tests substitute a manual one. */
public interface Ticker {

    Ticker SYSTEM = System::nanoTime;

    long nanos();
}
