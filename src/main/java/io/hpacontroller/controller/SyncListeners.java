package io.hpacontroller.controller;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The {@link HorizontalController}'s listeners: each told of every report; one that fails is logged, the others still told. */
final class SyncListeners {

    private static final Logger LOG = LoggerFactory.getLogger(SyncListeners.class);
    private final List<HorizontalController.SyncListener> listeners = new CopyOnWriteArrayList<>();

    void add(HorizontalController.SyncListener listener) {
        listeners.add(listener);
    }

    /** Tells every listener; returns the report. */
    SyncReport tell(SyncReport report) {
        for (HorizontalController.SyncListener l : listeners) {
            try {
                l.onSync(report);
            } catch (RuntimeException e) {
                LOG.warn("sync listener failed", e);
            }
        }
        return report;
    }
}
