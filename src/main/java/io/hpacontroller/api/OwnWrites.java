package io.hpacontroller.api;

import io.hpacontroller.core.port.ApiException;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Read-your-own-write over an informer's cache: after this controller wrote an object (a target's scale, an HPA's
 * status), or a write of it failed, the cached copy is known to be behind, and the object is read from the API
 * ({@link #current}) until the cache holds the resourceVersion the API last returned for it. The scale port
 * ({@code scale.ScaleSubresource}) and the status port ({@code hpa.HpaStatusUpdater}) each keep one, keyed their
 * own way (by target; by HPA key). Thread-safe.
 */
public final class OwnWrites<K> {

    /** A read of the object from the API. */
    @FunctionalInterface
    public interface Read<T> {
        T read() throws ApiException;
    }

    /** The version the API holds is not known (the write's answer could not be read, or the write failed): read it. */
    private static final String UNKNOWN = "";

    /** Objects whose cached copy may be behind, with the resourceVersion the API last returned for them. */
    private final Map<K, String> behind = new ConcurrentHashMap<>();

    /**
     * The object of this key was written, or a write of it was sent: the cache is behind until it holds
     * {@code version}, the version the API answered with (null or empty when unknown: until a read tells).
     */
    public void wrote(K key, String version) {
        behind.put(key, version == null ? UNKNOWN : version);
    }

    /** Whether a copy of the object at {@code version} holds this controller's last write of it (or a later one is not known of). */
    public boolean holds(K key, String version) {
        String latest = behind.get(key);
        return latest == null || caughtUp(latest, version);
    }

    private static boolean caughtUp(String latest, String version) {
        return !latest.equals(UNKNOWN) && latest.equals(version);
    }

    /**
     * The object as this controller last wrote it or later: the cache's copy while nothing is known to be behind, or
     * once it holds the last write (which ends the catch-up); else the API's ({@code read}), whose version is then the
     * one to wait for. A read that finds the object gone (404) ends the catch-up too: there is nothing left to catch
     * up with. A failed read throws, and the object stays behind.
     *
     * @param cached  the cache's copy, null when the cache holds none (then the API's is read)
     * @param version the resourceVersion of a copy (null when it has none)
     */
    public <T> T current(K key, T cached, Function<T, String> version, Read<T> read) throws ApiException {
        String latest = behind.get(key);
        if (cached != null) {
            if (latest == null) {
                return cached;
            }
            if (caughtUp(latest, version.apply(cached))) {
                behind.remove(key, latest);
                return cached;
            }
        }
        T fresh;
        try {
            fresh = read.read();
        } catch (ApiException.NotFound e) {
            behind.remove(key);
            throw e;
        }
        String freshVersion = version.apply(fresh);
        if (latest != null && freshVersion != null && !freshVersion.isEmpty()) {
            behind.replace(key, latest, freshVersion);
        }
        return fresh;
    }

    /** The object is gone (or no longer read from the cache): nothing to catch up with. */
    public void forget(K key) {
        behind.remove(key);
    }

    /** Objects whose cached copy is known to be behind. */
    public int size() {
        return behind.size();
    }
}
