package io.hpacontroller.cli;

import io.hpacontroller.core.validation.NameSyntax;
import io.hpacontroller.explain.HpaLookup;

import java.util.function.Supplier;

/**
 * The HPA a command names, as kubectl users name it: {@code NAMESPACE/NAME} (or {@code hpa/NAMESPACE/NAME},
 * {@code xhpa/NAMESPACE/NAME}), or {@code NAME} ({@code hpa/NAME}, {@code xhpa/NAME}) in the namespace of {@code -n},
 * else of the kubeconfig context (kubectl's default).
 */
final class HpaArgument {

    private HpaArgument() {
    }

    /**
     * The target, or a {@link Problem} naming what is wrong with the text.
     *
     * @param namespace        the value of {@code -n}, null when not given
     * @param contextNamespace the kubeconfig context's namespace, asked only when neither names one
     */
    static HpaLookup.Target resolve(String text, String namespace, Supplier<String> contextNamespace) throws Problem {
        if (namespace != null && !NameSyntax.dns1123Label(namespace).isEmpty()) {
            throw new Problem("-n must be a namespace name (a DNS-1123 label), got '" + namespace + "'");
        }
        HpaLookup.Target named = HpaLookup.Target.parse(text);
        if (named != null && namespace == null) {
            return named;
        }
        String kind = text.startsWith("hpa/") || text.startsWith("xhpa/") ? text.substring(0, text.indexOf('/') + 1) : "";
        String name = text.substring(kind.length());
        HpaLookup.Target inNamespace = name.contains("/") ? null
                : HpaLookup.Target.parse(kind + (namespace != null ? namespace : contextNamespace.get()) + "/" + name);
        if (inNamespace == null) {
            throw new Problem(namespace != null && name.contains("/")
                    ? "give NAMESPACE/NAME or -n NAMESPACE NAME, not both (got -n " + namespace + " and '" + text + "')"
                    : "expected NAMESPACE/NAME or NAME of a HorizontalPodAutoscaler (or hpa/..., xhpa/...), got '" + text + "'");
        }
        return inNamespace;
    }

    /** The text names no HPA: a mistake of the command line. */
    static final class Problem extends Exception {
        Problem(String message) {
            super(message);
        }
    }
}
