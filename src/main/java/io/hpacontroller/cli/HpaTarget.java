package io.hpacontroller.cli;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.hpacontroller.api.KubeApi;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.explain.HpaLookup;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;

/**
 * The HPA a command reads and the cluster it reads it from, as {@code explain} ({@code why}) and {@code describe} take
 * them: the target ({@link HpaArgument}), {@code -n}, {@code --kubeconfig} and {@code --context}.
 */
final class HpaTarget {

    @Parameters(index = "0", paramLabel = "NAMESPACE/NAME",
            description = "the HorizontalPodAutoscaler (either API), or hpa/NAMESPACE/NAME (autoscaling/v2), xhpa/NAMESPACE/NAME (the mirror API);"
                    + " or NAME (hpa/NAME, xhpa/NAME) in the namespace of -n, else of the kubeconfig context")
    String target;

    @Option(names = {"-n", "--namespace"}, paramLabel = "NS", description = "The namespace of a target given as NAME.")
    String namespace;

    @Option(names = "--kubeconfig", paramLabel = "PATH",
            description = "Path to a kubeconfig. Default: $KUBECONFIG, else ~/.kube/config, else the pod's service account.")
    Path kubeconfig;

    @Option(names = "--context", paramLabel = "NAME", description = "The kubeconfig context to use. Default: the current context.")
    String context;

    /** The connection and the HPA it names. */
    record Resolved(KubeConnection connection, HpaLookup.Target hpa) {
    }

    /** The connection and the HPA; a problem with either is a usage error of {@code cl} (exit 2, one line). */
    Resolved resolve(CommandLine cl) {
        try {
            KubeConnection connection = KubeConnection.resolve(kubeconfig, context);
            return new Resolved(connection, HpaArgument.resolve(target, namespace, connection::namespace));
        } catch (KubeConnection.Problem | HpaArgument.Problem e) {
            throw new CommandLine.ParameterException(cl, e.getMessage());
        }
    }

    /**
     * The HPA, read through the API; null when it cannot be read, after one line on stderr (the command exits 1). None
     * of that name (or one of each API) is a usage error of {@code cl}.
     */
    static HorizontalPodAutoscaler read(KubeApi api, HpaLookup.Target named, CommandLine cl) {
        try {
            return HpaLookup.find(api, named);
        } catch (HpaLookup.Unknown e) {
            throw new CommandLine.ParameterException(cl, e.getMessage());
        } catch (ApiException e) {
            cl.getErr().println("error: cannot read horizontalpodautoscaler " + named + ": " + e.getMessage());
            cl.getErr().flush();
            return null;
        }
    }
}
