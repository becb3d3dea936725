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
     * The next sync (epoch ms) of the key after one due at {@code due}, its pipeline's estimate {@code estimate}; empty while
     * nothing is learned (the caller keeps the spread phase). Converged: its fresh slot ({@link #phase}, {@link #nextAfter}).
     * Not converged, when {@code probe} and the arc is one run of the key's period: a probe ({@link #probeAfter}), so
     * that the key's own syncs narrow the arc where few HPAs share the pipeline and their fixed phases never would.
     */
    public static OptionalLong next(Optional<SampleCadence.Estimate> estimate, String key, long due, long periodMillis,
                                    long windowMillis, long spreadMillis, boolean probe) {
        OptionalLong phase = phase(estimate, key, periodMillis, windowMillis, spreadMillis);
        if (phase.isPresent()) {
            return OptionalLong.of(nextAfter(due, periodMillis, phase.getAsLong()));
        }
        return estimate.filter(e -> probe && e.interval() == periodMillis && e.width() < periodMillis)
                .map(e -> OptionalLong.of(probeAfter(due, periodMillis, e))).orElse(OptionalLong.empty());
    }

    /** A probe's step (ms) up the arc: a probe that reads the new sample just above one that did not leaves an arc under 2 s. */
    static final long PROBE_STEP_MILLIS = 1500;
    /** A sync this much (ms) below the arc's lower end is on it (its own interval raised that end a bin above it). */
    private static final long ON_LOWER_END_MILLIS = 2 * SampleCadence.BIN_MILLIS;

    /**
     * The probe after a sync due at {@code due} on the arc {@code (phase - width, phase]} of the period (all ms): a sync on
     * the arc (or its lower end) goes {@link #PROBE_STEP_MILLIS} up it (at most to its upper end): a period and at most
     * 1.5 s later. Elsewhere (after the arc: the sync read the new sample, but up to the whole arc late) it goes to the
     * arc's lower end: the first instant there at least a period later, less than two periods later and with exactly one
     * scrape in between (the scrape comes after that end), so no sample goes unread. The sync on the lower end reads
     * the sample before the scrape; each probe up the arc either reads it too (the scrape is above: the arc's lower end
     * rises to it) or reads the new one (the upper end comes down to it, 1.5 s above the last: converged).
     */
    static long probeAfter(long due, long period, SampleCadence.Estimate e) {
        long lower = e.phase() - e.width();
        long into = Math.floorMod(due - lower + ON_LOWER_END_MILLIS, period) - ON_LOWER_END_MILLIS;
        if (into < e.width()) {
            return due + period + Math.min(PROBE_STEP_MILLIS, e.width() - into);
        }
        return atOrAfter(due + period, Math.floorMod(lower, period), period);
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
