package io.hpacontroller.archfixture.core;

import io.hpacontroller.archfixture.lower.Other;

/** A fixture of {@code LayeringRulesTest}: a core class importing the project outside core and input. */
public final class Pure {

    public Other other() {
        return new Other();
    }
}
