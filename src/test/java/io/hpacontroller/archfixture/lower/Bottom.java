package io.hpacontroller.archfixture.lower;

import io.hpacontroller.archfixture.upper.Top;

/**
 * A fixture of {@code LayeringRulesTest}: a class on the lower floor that imports the upper floor, which
 * makes an upward import and a cycle (upper imports lower). It is also longer than the tests' line limit
 * and the second class of its package.
 */
public final class Bottom {

    public Top up() {
        return new Top();
    }
}
