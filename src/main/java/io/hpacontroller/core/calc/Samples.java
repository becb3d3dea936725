package io.hpacontroller.core.calc;

import io.hpacontroller.core.Quantities;
import io.hpacontroller.core.model.PodMetric;

import java.util.Map;

/**
 * What the calculator refuses to compute from: negative samples. Usage, queue lengths and request
 * rates are never negative; a negative value (a broken exporter, a counter reset read as a rate) would
 * give a negative usage ratio and a proposal of zero, which the normalizer turns into a scale-down to
 * minReplicas. Upstream computes with it; we fail the metric instead, which holds a scale-down (an
 * invalid metric blocks it) and tells the user why, in a condition and an event.
 */
final class Samples {

    private Samples() {
    }

    static void requireNonNegative(long milli, String what) throws CalculationException {
        if (milli < 0) {
            throw negative(milli, what);
        }
    }

    /** A container's usage; the message is only built for a negative one (this runs for every container of every pod). */
    static void requireNonNegative(long milli, String resource, String container, String pod) throws CalculationException {
        if (milli < 0) {
            throw negative(milli, resource + " usage of container " + container + " of pod " + pod);
        }
    }

    private static CalculationException negative(long milli, String what) {
        return new CalculationException(what + " is negative (" + Quantities.formatDecimal(milli) + "): refusing to compute a replica count from it");
    }

    static void requireNonNegative(Map<String, PodMetric> samples) throws CalculationException {
        for (Map.Entry<String, PodMetric> e : samples.entrySet()) {
            if (e.getValue().value() < 0) {
                requireNonNegative(e.getValue().value(), "the metric sample of pod " + e.getKey());
            }
        }
    }
}
