package io.hpacontroller.explain;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.api.KubeApi;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.hpa.HpaApi;
import io.hpacontroller.hpa.MirrorHpa;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The HPA {@code explain} is asked about: {@code NAMESPACE/NAME} is the autoscaling/v2 HPA or the mirror HPA of that
 * name, whichever exists ({@link #find}: two GETs); {@code hpa/NAMESPACE/NAME} and {@code xhpa/NAMESPACE/NAME} (kubectl's
 * short names) say which. The HPA comes back as the core takes it (a mirror one as an autoscaling/v2 object whose
 * apiVersion names the mirror API).
 */
public final class HpaLookup {

    /** An optional short name, a DNS-1123 namespace and a DNS-1123 subdomain name, as the API server accepts them. */
    private static final Pattern TARGET = Pattern.compile("(?:(hpa|xhpa)/)?([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)/([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?)");

    /**
     * What the user named.
     *
     * @param api       the API, null when either
     * @param namespace its namespace
     * @param name      its name
     */
    public record Target(HpaApi api, String namespace, String name) {

        /** The target, or null when the text is not one. */
        public static Target parse(String text) {
            Matcher m = TARGET.matcher(text);
            if (!m.matches()) {
                return null;
            }
            HpaApi api = m.group(1) == null ? null : m.group(1).equals("hpa") ? HpaApi.BUILTIN : HpaApi.MIRROR;
            return new Target(api, m.group(2), m.group(4));
        }

        @Override
        public String toString() {
            return (api == null ? "" : api == HpaApi.BUILTIN ? "hpa/" : "xhpa/") + namespace + "/" + name;
        }
    }

    /** The target names no HPA, or two (an autoscaling/v2 one and a mirror one): a mistake of the command line. */
    public static final class Unknown extends Exception {
        Unknown(String message) {
            super(message);
        }
    }

    private HpaLookup() {
    }

    /**
     * The HPA, read through the API.
     *
     * @throws Unknown      when there is none, or the target is ambiguous
     * @throws ApiException when it cannot be read (the message says why, in one line)
     */
    public static HorizontalPodAutoscaler find(KubeApi api, Target target) throws Unknown, ApiException {
        Read builtin = target.api() == HpaApi.MIRROR ? Read.NONE : read(api, HpaApi.BUILTIN, target);
        Read mirror = target.api() == HpaApi.BUILTIN ? Read.NONE : read(api, HpaApi.MIRROR, target);
        String key = target.namespace() + "/" + target.name();
        if (builtin.hpa() != null && mirror.hpa() != null) {
            throw new Unknown(key + " is both an autoscaling/v2 HPA and a mirror HPA (" + HpaApi.MIRROR.apiVersion()
                    + "): name one, hpa/" + key + " or xhpa/" + key);
        }
        if (builtin.hpa() != null || mirror.hpa() != null) {
            return builtin.hpa() != null ? builtin.hpa() : mirror.hpa(); // the other API could not be read: a user may read one only
        }
        if (builtin.failure() != null || mirror.failure() != null) {
            throw builtin.failure() != null ? builtin.failure() : mirror.failure();
        }
        throw new Unknown("horizontalpodautoscaler " + target + " not found" + (target.api() != null ? ""
                : " (neither " + HpaApi.BUILTIN.apiVersion() + " nor " + HpaApi.MIRROR.apiVersion() + " has it)"));
    }

    /** What one API answered: its HPA, none (also when it does not serve the API: the mirror's CRD not installed), or a failure. */
    private record Read(HorizontalPodAutoscaler hpa, ApiException failure) {
        static final Read NONE = new Read(null, null);
    }

    private static Read read(KubeApi api, HpaApi kind, Target target) {
        String path = kind.path(target.namespace(), target.name());
        try {
            return new Read(kind == HpaApi.MIRROR ? api.get(path, MirrorHpa.class).toCore() : api.get(path, HorizontalPodAutoscaler.class), null);
        } catch (ApiException.NotFound e) {
            return Read.NONE;
        } catch (ApiException e) {
            return new Read(null, e);
        }
    }
}
