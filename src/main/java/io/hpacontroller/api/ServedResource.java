package io.hpacontroller.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.hpacontroller.core.port.ApiException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;

/**
 * Whether the API server serves a custom resource, as far as this instance knows: its CRD can be deleted and
 * installed again while the controller runs. A write that meets a 404 on creating an object asks discovery
 * ({@code /apis/GROUP/VERSION}); when that does not list the resource, the resource is missing: reported once
 * (one ERROR line), and the writes that follow fail at once with {@link #missingMessage} instead of being sent.
 * Discovery is asked again at the first write due after 1 s, 2 s, 4 s, ... at most {@code maxBackoff} apart; the
 * first answer that lists the resource ends it (one INFO line), and that write goes ahead.
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
    /** Whether the resource is known to be missing; guarded by {@link #lock}. */
    private boolean missing;
    private long nextCheck;
    private long backoff;

    /**
     * @param consequence what its absence stops and what brings it back, said once in the report
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

    /** The message of every write refused while the resource is missing (the same each time: conditions stay put). */
    String missingMessage() {
        return missingMessage;
    }

    /**
     * Returns when a write may be sent: the resource is not known to be missing, or discovery, asked now because a
     * check is due, lists it again.
     *
     * @throws ApiException while the resource is missing
     */
    public void checkServed(long now) throws ApiException {
        synchronized (lock) {
            if (!missing) {
                return;
            }
            if (now < nextCheck) {
                throw new ApiException(missingMessage);
            }
            // the other writes meanwhile fail at once; this one asks
            backoff = Math.min(maxBackoff, backoff * 2);
            nextCheck = now + backoff;
        }
        if (listed() != Boolean.TRUE) {
            throw new ApiException(missingMessage);
        }
        synchronized (lock) {
            if (missing) {
                missing = false;
                LOG.info("the API server serves {}.{}/{} again: writing them again", plural, group, version);
            }
        }
    }

    /**
     * A create met {@code notFound}: when discovery does not list the resource, it is missing from now on (reported
     * the first time) and the exception to throw says so; otherwise {@code notFound} itself.
     */
    public ApiException createNotFound(ApiException.NotFound notFound, long now) {
        if (listed() != Boolean.FALSE) {
            return notFound;
        }
        synchronized (lock) {
            if (!missing) {
                missing = true;
                backoff = FIRST_BACKOFF.toMillis();
                nextCheck = now + backoff;
                LOG.error("{}: {} Asking discovery again after {} s, backing off to every {} s. (A create answered: {})",
                        missingMessage, consequence, backoff / 1000, maxBackoff / 1000, notFound.getMessage());
            }
        }
        return new ApiException(missingMessage);
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
