package io.hpacontroller.archfixture.upper;

import io.hpacontroller.archfixture.lower.Other;

/** A fixture of {@code LayeringRulesTest}: a class on the upper floor, importing down (allowed). */
public final class Top {

    public Other other() {
        return new Other();
    }
}
