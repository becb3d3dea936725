package io.hpacontroller.ops;

import io.hpacontroller.core.HpaKey;
import io.hpacontroller.controller.HorizontalController;
import io.hpacontroller.controller.SyncReport;
import io.hpacontroller.core.trace.DecisionTrace;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The last decision traces of each HPA, for {@code GET /decisions/NAMESPACE/NAME}: at most
 * {@link #PER_HPA} per HPA and {@link #TOTAL} in all. When the total is reached the oldest traces go first,
 * whichever HPA they belong to, so with more than {@code TOTAL / PER_HPA} HPAs each keeps its most recent
 * few (every HPA is synced at the same rate). A deleted HPA's traces are dropped as soon as the controller
 * hears of the deletion. An HPA's traces share what did not change between them ({@link TraceSharing}).
 */
public final class RecentDecisions implements HorizontalController.SyncListener {

    /** Traces kept per HPA. */
    public static final int PER_HPA = 20;
    /** Traces kept in all (20 each for 1,000 HPAs). */
    public static final int TOTAL = 20_000;

    private final int perHpa;
    private final int total;
    private final Map<HpaKey, ArrayDeque<DecisionTrace>> byHpa = new HashMap<>();
    /** Every trace added, oldest first; some were since dropped (trimmed per HPA, or forgotten) and are skipped. */
    private final ArrayDeque<DecisionTrace> order = new ArrayDeque<>();
    private int size;

    public RecentDecisions() {
        this(PER_HPA, TOTAL);
    }

    RecentDecisions(int perHpa, int total) {
        if (perHpa < 1 || total < perHpa) {
            throw new IllegalArgumentException("need 1 <= perHpa <= total, got " + perHpa + " and " + total);
        }
        this.perHpa = perHpa;
        this.total = total;
    }

    @Override
    public void onSync(SyncReport report) {
        if (report.outcome() == null) {
            forget(report.key());
        } else {
            add(report.outcome().trace());
        }
    }

    public synchronized void add(DecisionTrace added) {
        ArrayDeque<DecisionTrace> traces = byHpa.computeIfAbsent(added.hpa(), k -> new ArrayDeque<>(4));
        // what did not change since the HPA's last trace is held once (most of a steady HPA's trace)
        DecisionTrace trace = TraceSharing.share(traces.peekLast(), added);
        traces.addLast(trace);
        order.addLast(trace);
        size++;
        if (traces.size() > perHpa) {
            traces.removeFirst();
            size--;
        }
        while (size > total) {
            DecisionTrace oldest = order.removeFirst();
            ArrayDeque<DecisionTrace> of = byHpa.get(oldest.hpa());
            if (of != null && of.peekFirst() == oldest) {
                of.removeFirst();
                size--;
                if (of.isEmpty()) {
                    byHpa.remove(oldest.hpa());
                }
            }
        }
        if (order.size() > 2 * total) {
            compact();
        }
    }

    /** Drops the entries of {@link #order} whose trace is no longer kept (amortized: once per {@code total} additions). */
    private void compact() {
        ArrayDeque<DecisionTrace> kept = new ArrayDeque<>(size);
        for (DecisionTrace t : order) {
            ArrayDeque<DecisionTrace> of = byHpa.get(t.hpa());
            if (of != null && containsSame(of, t)) {
                kept.addLast(t);
            }
        }
        order.clear();
        order.addAll(kept);
    }

    private static boolean containsSame(ArrayDeque<DecisionTrace> traces, DecisionTrace t) {
        for (DecisionTrace x : traces) {
            if (x == t) {
                return true;
            }
        }
        return false;
    }

    public synchronized void forget(HpaKey key) {
        ArrayDeque<DecisionTrace> traces = byHpa.remove(key);
        if (traces != null) {
            size -= traces.size();
        }
    }

    /** The HPA's kept traces, oldest first. */
    public synchronized List<DecisionTrace> of(HpaKey key) {
        ArrayDeque<DecisionTrace> traces = byHpa.get(key);
        return traces == null ? List.of() : new ArrayList<>(traces);
    }

    /** Traces kept in all. */
    public synchronized int size() {
        return size;
    }

    /** Entries in the insertion order, kept or since dropped (at most twice the total). */
    synchronized int orderLength() {
        return order.size();
    }
}
