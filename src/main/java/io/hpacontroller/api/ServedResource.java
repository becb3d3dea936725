package io.hpacontroller.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.hpacontroller.core.port.ApiException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;

/**
 * Whether the API server serves a custom resource, as far as this instance knows: its CRD can be deleted and
 * installed again while the controller runs. A create that meets a 404 asks discovery ({@code /apis/GROUP/VERSION});
 * only when discovery answers and does not list the resource is it missing ({@link #confirmsMissing}): reported once
 * (one WARN line), and the writes that follow are not sent ({@link #served} is false). A 404 that discovery does not
 * confirm (it lists the resource, or does not answer) stays the failure it is. Discovery is asked again at the first
 * write due after 1 s, 2 s, 4 s, ... at most {@code maxBackoff} apart; the first answer that lists the resource ends
 * it (one INFO line), and that write goes ahead.
 */
public final class ServedResource {

    private static final Logger LOG = LoggerFactory.getLogger(ServedResource.class);
    static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);

    private final KubeApi api;
    private final String group;
    private final String version;
    private final String plural;
    private final long maxBackoff;
    private final String missingMessage;
    private final String consequence;
    private final Object lock = new Object();
    /** Whether the resource is known to be missing; written under {@link #lock}. */
    private volatile boolean missing;
    /** How many times it went missing in this process; written under {@link #lock}. */
    private volatile long outages;
    private long nextCheck;
    private long backoff;

    /**
     * @param consequence what its absence changes and what brings it back, said once in the report
     */
    public ServedResource(KubeApi api, String group, String version, String plural, Duration maxBackoff, String consequence) {
        this.api = api;
        this.group = group;
        this.version = version;
        this.plural = plural;
        this.maxBackoff = Math.max(FIRST_BACKOFF.toMillis(), maxBackoff.toMillis());
        this.missingMessage = "the API server does not serve " + plural + "." + group + "/" + version + " (is its CRD installed?)";
        this.consequence = consequence;
    }

    /** What is said of the resource while it is missing (the same each time). */
    public String missingMessage() {
        return missingMessage;
    }

    /** Whether the resource is known to be missing now. */
    public boolean missing() {
        return missing;
    }

    /** How many times the resource went missing in this process: an outage's number, while {@link #missing}. */
    public long outages() {
        return outages;
    }

    /**
     * Whether a write may be sent: the resource is not known to be missing, or discovery, asked now because a check is
     * due, lists it again. False while it is missing (no request, unless a check is due).
     */
    public boolean served(long now) {
        synchronized (lock) {
            if (!missing) {
                return true;
            }
            if (now < nextCheck) {
                return false;
            }
            // the other writes meanwhile are not sent; this one asks
            backoff = Math.min(maxBackoff, backoff * 2);
            nextCheck = now + backoff;
        }
        if (listed() != Boolean.TRUE) {
            return false;
        }
        synchronized (lock) {
            if (missing) {
                missing = false;
                LOG.info("the API server serves {}.{}/{} again: writing them again", plural, group, version);
            }
        }
        return true;
    }

    /**
     * A create met {@code notFound}: true when discovery answers without the resource, which is missing from now on
     * (reported the first time); false when discovery lists it or does not answer (the 404 is then an error of its own).
     */
    public boolean confirmsMissing(ApiException.NotFound notFound, long now) {
        if (listed() != Boolean.FALSE) {
            return false;
        }
        synchronized (lock) {
            if (!missing) {
                missing = true;
                outages++;
                backoff = FIRST_BACKOFF.toMillis();
                nextCheck = now + backoff;
                LOG.warn("{}: {} Asking discovery again after {} s, backing off to every {} s. (A create answered: {})",
                        missingMessage, consequence, backoff / 1000, maxBackoff / 1000, notFound.getMessage());
            }
        }
        return true;
    }

    /** Whether discovery lists the resource; null when discovery did not answer. */
    private Boolean listed() {
        JsonNode list;
        try {
            list = api.getJson("/apis/" + group + "/" + version);
        } catch (ApiException.NotFound e) {
            return false; // not even the group/version
        } catch (ApiException | RuntimeException e) {
            LOG.debug("discovery of {}/{} did not answer: {}", group, version, e.getMessage());
            return null;
        }
        for (JsonNode r : list.path("resources")) {
            if (plural.equals(r.path("name").asText())) {
                return true;
            }
        }
        return false;
    }
}
