package io.hpacontroller.archfixture.lower;

/** A fixture of {@code LayeringRulesTest}: a plain class on the lower floor. */
public final class Other {
}
