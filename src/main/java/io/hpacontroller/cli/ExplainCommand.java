package io.hpacontroller.cli;

import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.api.KubeApi;
import io.hpacontroller.core.validation.NameSyntax;
import io.hpacontroller.explain.ControllerLink;
import io.hpacontroller.explain.Explainer;
import io.hpacontroller.explain.ExplanationText;
import io.hpacontroller.explain.HpaLookup;
import io.hpacontroller.ops.DecisionsJson;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.net.URI;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@code explain NAMESPACE/NAME}: what the autoscaler decides for one HPA now, and why. Reads the HPA (autoscaling/v2 or
 * the mirror API's, {@link HpaLookup}), its scale, pods and metrics with a handful of GETs, each retried once when it
 * failed in a way that may pass, runs the decision core read-only (nothing is written), prints the answer in one
 * sentence, then the decision trace. A failure is one line: exit 2 for a mistake of the command line (no such HPA
 * included), 1 for a cluster that cannot be read.
 */
@Command(name = "explain", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Explains what the autoscaler decides for one HorizontalPodAutoscaler now, and why.",
                "NAMESPACE/NAME is the autoscaling/v2 HPA or the mirror HPA of that name; hpa/NAMESPACE/NAME or xhpa/NAMESPACE/NAME says which.",
                "Reads the HPA, its scale, pods and metrics, and runs the decision core read-only: nothing is written.",
                "The stabilization windows and policies depend on what the controller remembers: explain asks the running",
                "controller for it: at --controller-url, or the leader its Lease names (in hpa-controller, then the kubeconfig",
                "context's namespace), through the API server (a port-forward for HTTPS, the pod proxy for plain HTTP). Over HTTPS it",
                "authenticates with --controller-token, else the kubeconfig user's bearer token.",
                "When it cannot, it says so and what that changes."})
public final class ExplainCommand implements Callable<Integer> {

    @CommandLine.Mixin
    HpaTarget hpaTarget;

    @Option(names = {"-o", "--output"}, paramLabel = "FORMAT", defaultValue = "text",
            description = "text (the answer, then the trace) or json (default: ${DEFAULT-VALUE}).")
    String output;

    @Option(names = "--controller-url", paramLabel = "URL",
            description = "The controller's metrics address (e.g. https://localhost:8080 for a controller run on this machine). Default: the"
                    + " leader named by the Lease, through the API server.")
    URI controllerUrl;

    @Option(names = "--controller-token", paramLabel = "TOKEN", defaultValue = "${env:HPA_CONTROLLER_CONTROLLER_TOKEN}",
            description = "The bearer token sent to the controller over HTTPS, instead of the kubeconfig user's: one the API server accepts"
                    + " and allows to get /decisions/*"
                    + " (e.g. $(kubectl -n hpa-controller create token SA), SA bound to the ClusterRole hpa-controller-metrics-reader)."
                    + " Or the environment variable HPA_CONTROLLER_CONTROLLER_TOKEN.")
    String controllerToken;

    @Option(names = "--controller-namespace", paramLabel = "NS",
            description = "The controller's namespace, where its Lease is (its --leader-elect-resource-namespace). Default: hpa-controller"
                    + " (the chart's), then the kubeconfig context's namespace (where run puts it outside a pod).")
    String controllerNamespace;

    @Option(names = "--controller-lease", paramLabel = "NAME", defaultValue = "hpa-controller",
            description = "The controller's Lease (its --leader-elect-resource-name; default: ${DEFAULT-VALUE}).")
    String controllerLease;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        CommandLine cl = spec.commandLine();
        if (!output.equals("text") && !output.equals("json")) {
            throw new CommandLine.ParameterException(cl, "-o must be text or json, got " + output);
        }
        if (controllerUrl != null && (controllerUrl.getScheme() == null || !controllerUrl.getScheme().matches("https?") || controllerUrl.getHost() == null)) {
            throw new CommandLine.ParameterException(cl, "--controller-url must be http://HOST:PORT or https://HOST:PORT, got " + controllerUrl);
        }
        if (controllerNamespace != null && !NameSyntax.dns1123Label(controllerNamespace).isEmpty()) {
            throw new CommandLine.ParameterException(cl, "--controller-namespace must be a namespace name (a DNS-1123 label), got '" + controllerNamespace + "'");
        }
        if (!NameSyntax.dns1123Subdomain(controllerLease).isEmpty()) {
            throw new CommandLine.ParameterException(cl, "--controller-lease must be a Lease name (a DNS-1123 subdomain), got '" + controllerLease + "'");
        }
        if (controllerToken != null && controllerUrl != null && !"https".equals(controllerUrl.getScheme())) {
            throw new CommandLine.ParameterException(cl, "--controller-token is sent only over HTTPS, not to " + controllerUrl);
        }
        HpaTarget.Resolved resolved = hpaTarget.resolve(cl);
        KubeConnection connection = resolved.connection();
        HpaLookup.Target named = resolved.hpa();
        KubernetesClient client = connection.connect(Explainer.API_TIMEOUT, 4);
        try (client) {
            KubeApi api = new KubeApi(client, Explainer.API_TIMEOUT).retryingReadsOnce();
            HorizontalPodAutoscaler hpa = HpaTarget.read(api, named, cl);
            if (hpa == null) {
                return 1;
            }
            Clock clock = Clock.systemUTC();
            List<String> namespaces = controllerNamespace != null ? List.of(controllerNamespace)
                    : Stream.of(ControllerLink.CHART_NAMESPACE, connection.namespace()).distinct().toList();
            String userToken = connection.bearerToken(client);
            ControllerLink.Target where = controllerToken != null
                    ? new ControllerLink.Target(controllerUrl, namespaces, controllerLease, controllerToken, "the token of --controller-token")
                    : new ControllerLink.Target(controllerUrl, namespaces, controllerLease, userToken, "the kubeconfig user's token");
            Explainer.Explanation e = Explainer.explain(client, api, hpa, where, clock);
            PrintWriter out = cl.getOut();
            out.print(output.equals("json") ? DecisionsJson.writePretty(e) + "\n" : ExplanationText.render(e, clock.millis()));
            out.flush();
            return 0;
        }
    }
}
