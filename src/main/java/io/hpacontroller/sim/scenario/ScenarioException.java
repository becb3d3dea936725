package io.hpacontroller.sim.scenario;

/** A scenario file that cannot be used; the message says where and why, for the user. */
public final class ScenarioException extends Exception {

    public ScenarioException(String message) {
        super(message);
    }
}
