package io.hpacontroller.cli;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventList;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.api.KubeApi;
import io.hpacontroller.api.PathSegment;
import io.hpacontroller.core.port.ApiException;
import io.hpacontroller.describe.HpaDescription;
import io.hpacontroller.explain.Explainer;
import io.hpacontroller.explain.HpaLookup;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintWriter;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code kubectl hpa describe NAMESPACE/NAME}: {@code kubectl describe hpa}'s reading ({@link HpaDescription}) of an
 * autoscaling/v2 HPA or a mirror HPA, with its events (kubectl's field selector: the HPA's kind, name, namespace and
 * uid). Two or three GETs, each retried once when it failed in a way that may pass. Exit 2 for a mistake of the
 * command line (no such HPA included), 1 for a cluster that cannot be read; events that cannot be listed leave the
 * Events section out, with a warning on stderr.
 */
@Command(name = "describe", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Shows one HorizontalPodAutoscaler as kubectl describe hpa shows it.",
                "Metrics (current / target), bounds, behavior, replicas, conditions and events, for autoscaling/v2 HPAs and mirror",
                "HPAs (autoscaling.hpa-controller.io) alike."})
public final class DescribeCommand implements Callable<Integer> {

    @CommandLine.Mixin
    HpaTarget hpaTarget;

    @Option(names = "--show-events", arity = "1", defaultValue = "true", paramLabel = "BOOL",
            description = "Show the HPA's events, as kubectl describe (default: ${DEFAULT-VALUE}).")
    boolean showEvents;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        CommandLine cl = spec.commandLine();
        HpaTarget.Resolved resolved = hpaTarget.resolve(cl);
        HpaLookup.Target named = resolved.hpa();
        try (KubernetesClient client = resolved.connection().connect(Explainer.API_TIMEOUT, 4)) {
            KubeApi api = new KubeApi(client, Explainer.API_TIMEOUT).retryingReadsOnce();
            HorizontalPodAutoscaler hpa = HpaTarget.read(api, named, cl);
            if (hpa == null) {
                return 1;
            }
            List<Event> events = null;
            if (showEvents) {
                try {
                    events = api.get(eventsPath(hpa), EventList.class).getItems();
                } catch (ApiException e) {
                    cl.getErr().println("warning: cannot list the events of " + named + ": " + e.getMessage());
                    cl.getErr().flush();
                }
            }
            PrintWriter out = cl.getOut();
            out.print(HpaDescription.render(hpa, events, Instant.now(), ZoneId.systemDefault()));
            out.flush();
            return 0;
        }
    }

    /** kubectl's {@code searchEvents}: the events whose involvedObject is this HPA. */
    private static String eventsPath(HorizontalPodAutoscaler hpa) {
        var meta = hpa.getMetadata();
        String selector = "involvedObject.name=" + meta.getName() + ",involvedObject.namespace=" + meta.getNamespace()
                + ",involvedObject.kind=HorizontalPodAutoscaler" + (meta.getUid() == null ? "" : ",involvedObject.uid=" + meta.getUid());
        return "/api/v1/namespaces/" + PathSegment.encode(meta.getNamespace()) + "/events?fieldSelector=" + KubeApi.encode(selector);
    }
}
