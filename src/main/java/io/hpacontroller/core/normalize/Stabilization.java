package io.hpacontroller.core.normalize;

/**
 * A stabilization window that changed the count: which window, how long it is, and the remembered
 * recommendation that set the count (the newest of the highest in a scale-down window, of the lowest in
 * a scale-up window).
 *
 * @param window        {@link #SCALE_DOWN} or {@link #SCALE_UP}
 * @param windowSeconds the window's length
 * @param keptReplicas  the recommendation the window kept
 * @param madeAt        when that recommendation was made (epoch millis)
 * @param ageMillis     how old it is at this sync
 */
public record Stabilization(String window, int windowSeconds, int keptReplicas, long madeAt, long ageMillis) {

    public static final String SCALE_DOWN = "scaleDown";
    public static final String SCALE_UP = "scaleUp";
}
