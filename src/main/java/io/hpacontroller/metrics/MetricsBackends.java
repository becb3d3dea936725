package io.hpacontroller.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import io.hpacontroller.api.KubeApi;
import io.hpacontroller.core.cadence.MetricsPipelines;
import io.hpacontroller.core.port.ApiException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which backend serves each metrics API, read once at start from its APIService (apiregistration.k8s.io/v1): the
 * Service ({@code namespace/name}) the aggregator forwards the group/version the controller queries to. Two groups
 * one adapter serves (custom and external metrics from one prometheus-adapter) are then one metrics pipeline
 * ({@link MetricsPipelines}). A group whose APIService cannot be read (forbidden, absent, served by the API server
 * itself) is left out: it stays a pipeline of its own. Read once: an APIService moved to another Service later is seen
 * at the next start.
 */
public final class MetricsBackends {

    private static final Logger LOG = LoggerFactory.getLogger(MetricsBackends.class);

    /** The APIServices of the group/versions {@link RestMetrics} queries, by group. */
    public static final Map<String, String> QUERIED;

    static {
        Map<String, String> queried = new LinkedHashMap<>();
        queried.put(MetricsPipelines.RESOURCE, "v1beta1.metrics.k8s.io");
        queried.put(MetricsPipelines.CUSTOM, "v1beta2.custom.metrics.k8s.io");
        queried.put(MetricsPipelines.EXTERNAL, "v1beta1.external.metrics.k8s.io");
        QUERIED = Collections.unmodifiableMap(queried);
    }

    private MetricsBackends() {
    }

    /** The backend Service of each metrics API group whose APIService names one; the others are left out. */
    public static Map<String, String> read(KubeApi api) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, String> queried : QUERIED.entrySet()) {
            String group = queried.getKey();
            String name = queried.getValue();
            try {
                String service = serviceOf(api.getJson("/apis/apiregistration.k8s.io/v1/apiservices/" + name));
                if (service != null) {
                    out.put(group, service);
                }
            } catch (ApiException.NotFound e) {
                LOG.debug("APIService {} not found: {} is a metrics pipeline of its own", name, group);
            } catch (ApiException e) {
                LOG.info("cannot read APIService {} ({}): {} is a metrics pipeline of its own", name, e.getMessage(), group);
            }
        }
        return out;
    }

    /** {@code spec.service} as "namespace/name", null for an APIService the API server serves itself. */
    static String serviceOf(JsonNode apiService) {
        JsonNode service = apiService == null ? null : apiService.path("spec").path("service");
        if (service == null || !service.isObject()) {
            return null;
        }
        String namespace = service.path("namespace").asText("");
        String name = service.path("name").asText("");
        return namespace.isEmpty() || name.isEmpty() ? null : namespace + "/" + name;
    }
}
