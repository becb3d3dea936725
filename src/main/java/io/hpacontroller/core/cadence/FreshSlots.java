package io.hpacontroller.core.cadence;

import io.hpacontroller.core.StableHash;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * Where an HPA's syncs go in the fresh cadence: just after its pipeline's next sample becomes readable
 * ({@link SampleCadence.Estimate#phase}), each HPA a fixed share of the window later (the pipeline's window: at
 * least {@code --fresh-sync-spread}, wider with many HPAs on the pipeline) so that the syncs due after one sample do not
 * hit the metrics APIs all at once. The share is a hash of the HPA's key, the same one the spread cadence takes its
 * phase from ({@link #hash}): the same on every replica and after a restart.
 */
public final class FreshSlots {

    private FreshSlots() {
    }

    /**
     * The phase (ms after each multiple of {@code periodMillis} since the epoch) of the key's fresh slots; empty until
     * the estimate converged (the caller keeps the spread phase: a slot moved on a guess may skip a sample). When the period is a multiple of the pipeline's interval,
     * or the interval a multiple of the period, every slot (or one in each interval) follows a new sample.
     *
     * @param windowMillis the pipeline's window, at least {@code spreadMillis} ({@code --fresh-sync-spread})
     */
    public static OptionalLong phase(Optional<SampleCadence.Estimate> estimate, String key, long periodMillis, long windowMillis, long spreadMillis) {
        return estimate.filter(SampleCadence.Estimate::converged)
                .map(e -> OptionalLong.of(e.phaseIn(periodMillis, offset(key, windowMillis, spreadMillis)))).orElse(OptionalLong.empty());
    }

    /**
     * The key's offset within the window, {@code [0, windowMillis)}: a hash of the key modulo the flag's window
     * {@code spreadMillis} (1 s without one), scaled to the window. The same share of the window for every window: when it
     * widens (more HPAs on the pipeline), every offset moves later, none earlier (a slot moved earlier can cost a period).
     */
    public static long offset(String key, long windowMillis, long spreadMillis) {
        long grain = spreadMillis > 0 ? spreadMillis : 1000;
        return windowMillis <= 0 ? 0 : Math.floorMod(hash(key), grain) * windowMillis / grain;
    }

    /** A fixed hash of the key ({@link StableHash}): the same on every replica and in every release. */
    public static long hash(String key) {
        return StableHash.of(key);
    }

    /**
     * Moving a slot earlier by a little costs a whole period (no two syncs of an HPA closer than its period): a fresh slot
     * at most this much (ms) earlier than a period after the last sync is not moved to; the sync stays a period after the
     * last, at most this much after the fresh instant.
     */
    public static final long KEEP_WITHIN_MILLIS = 1000;

    /**
     * The next sync after one due at {@code due}, the fresh slots at {@code phase} (all epoch ms): the first fresh slot at
     * least a period later, or exactly a period later when that slot is less than {@link #KEEP_WITHIN_MILLIS} earlier
     * than a period later (modulo the period: a phase that moved a little earlier is not worth skipping a period for).
     */
    public static long nextAfter(long due, long period, long phase) {
        long earliest = due + period;
        long slot = atOrAfter(earliest, phase, period);
        return slot - earliest > period - Math.min(KEEP_WITHIN_MILLIS, period / 2) ? earliest : slot;
    }

    /** The first instant at or after {@code t} whose phase within {@code period} is {@code phase} (all in the same unit). */
    public static long atOrAfter(long t, long phase, long period) {
        return t + Math.floorMod(phase - t, period);
    }
}
