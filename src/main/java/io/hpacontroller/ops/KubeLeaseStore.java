package io.hpacontroller.ops;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.hpacontroller.api.KubeApi;
import io.hpacontroller.api.PathSegment;
import io.hpacontroller.core.port.ApiException;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;

/** A coordination.k8s.io/v1 Lease on the API server: GET, POST, and PUT guarded by the resourceVersion. */
final class KubeLeaseStore implements LeaseStore {

    private final KubeApi api;
    private final String namespace;
    private final String name;

    KubeLeaseStore(KubeApi api, String namespace, String name) {
        this.api = api;
        this.namespace = namespace;
        this.name = name;
    }

    private String collection() {
        return "/apis/coordination.k8s.io/v1/namespaces/" + PathSegment.encode(namespace) + "/leases";
    }

    @Override
    public LeaderRecord get() throws LeaseException {
        try {
            return record(api.get(collection() + "/" + PathSegment.encode(name), Lease.class));
        } catch (ApiException.NotFound e) {
            return null;
        } catch (ApiException e) {
            throw new LeaseException("cannot read the Lease " + namespace + "/" + name + ": " + e.getMessage());
        }
    }

    @Override
    public LeaderRecord create(LeaderRecord record) throws LeaseException {
        try {
            return record(api.serialization().unmarshal(api.post(collection(), lease(record)), Lease.class));
        } catch (ApiException e) {
            throw new LeaseException("cannot create the Lease " + namespace + "/" + name + ": " + e.getMessage());
        }
    }

    @Override
    public LeaderRecord update(LeaderRecord record) throws LeaseException {
        try {
            return record(api.serialization().unmarshal(api.put(collection() + "/" + PathSegment.encode(name), lease(record)), Lease.class));
        } catch (ApiException e) {
            throw new LeaseException("cannot update the Lease " + namespace + "/" + name + ": " + e.getMessage());
        }
    }

    private Lease lease(LeaderRecord r) {
        return new LeaseBuilder()
                .withNewMetadata().withName(name).withNamespace(namespace).withResourceVersion(r.resourceVersion()).endMetadata()
                .withNewSpec().withHolderIdentity(r.holder()).withLeaseDurationSeconds(r.leaseDurationSeconds())
                .withAcquireTime(time(r.acquireTime())).withRenewTime(time(r.renewTime())).withLeaseTransitions(r.transitions()).endSpec()
                .build();
    }

    private static LeaderRecord record(Lease lease) {
        var spec = lease.getSpec();
        return new LeaderRecord(spec == null ? "" : spec.getHolderIdentity(),
                spec == null || spec.getLeaseDurationSeconds() == null ? 0 : spec.getLeaseDurationSeconds(),
                spec == null ? null : instant(spec.getAcquireTime()), spec == null ? null : instant(spec.getRenewTime()),
                spec == null || spec.getLeaseTransitions() == null ? 0 : spec.getLeaseTransitions(),
                lease.getMetadata() == null ? null : lease.getMetadata().getResourceVersion());
    }

    private static ZonedDateTime time(Instant t) {
        return t == null ? null : t.atZone(ZoneOffset.UTC);
    }

    private static Instant instant(ZonedDateTime t) {
        return t == null ? null : t.toInstant();
    }
}
