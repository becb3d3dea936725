package io.hpacontroller.shard;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseList;
import io.hpacontroller.api.KubeApi;
import io.hpacontroller.api.PathSegment;
import io.hpacontroller.core.port.ApiException;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The members' Leases (coordination.k8s.io/v1) in the controller's namespace: this replica's own, written with a PUT
 * guarded by its resourceVersion, and all of them, listed by their label. A list without a resourceVersion is served
 * from etcd (a quorum read), so it sees every write that completed before it: the claim rule relies on that. Not final:
 * ShardingTest holds up its writes, as an API server that answers late.
 */
public class ShardLeases {

    private final KubeApi api;
    private final String namespace;
    /** The label value that makes a Lease one of ours (the leader election Lease's name). */
    private final String group;

    ShardLeases(KubeApi api, String namespace, String group) {
        this.api = api;
        this.namespace = namespace;
        this.group = group;
    }

    private String collection() {
        return "/apis/coordination.k8s.io/v1/namespaces/" + PathSegment.encode(namespace) + "/leases";
    }

    /** Every member's Lease (live or not) of the group in the namespace: for {@code explain}, which asks the owner of an HPA. */
    public static List<MemberLease> list(KubeApi api, String namespace, String group) throws ApiException {
        return new ShardLeases(api, namespace, group).list();
    }

    /** Every member's Lease (live or not). */
    List<MemberLease> list() throws ApiException {
        String selector = URLEncoder.encode(MemberLease.MEMBER_LABEL + "=" + group, StandardCharsets.UTF_8);
        LeaseList list = api.get(collection() + "?labelSelector=" + selector, LeaseList.class);
        List<MemberLease> members = new ArrayList<>();
        for (Lease lease : list.getItems()) {
            MemberLease m = member(lease);
            if (m != null) {
                members.add(m);
            }
        }
        return members;
    }

    /** Writes this replica's Lease: a PUT guarded by its resourceVersion, or a POST when it has none. Returns it as stored. */
    MemberLease write(MemberLease lease) throws ApiException {
        String name = MemberLease.leaseName(group, lease.identity());
        Map<String, String> annotations = new HashMap<>(Map.of(MemberLease.VIEW_ANNOTATION, MemberLease.viewText(lease.view())));
        if (lease.handover() != null) {
            annotations.put(Handover.ANNOTATION, lease.handover());
        }
        Lease body = new LeaseBuilder()
                .withNewMetadata().withName(name).withNamespace(namespace).withResourceVersion(lease.resourceVersion())
                .withLabels(Map.of(MemberLease.MEMBER_LABEL, group))
                .withAnnotations(annotations).endMetadata()
                .withNewSpec().withHolderIdentity(lease.identity()).withLeaseDurationSeconds(lease.leaseDurationSeconds())
                .withRenewTime(lease.renewTime() == null ? null : lease.renewTime().atZone(ZoneOffset.UTC)).endSpec()
                .build();
        String answer = lease.resourceVersion() == null ? api.post(collection(), body)
                : api.put(collection() + "/" + PathSegment.encode(name), body);
        return member(api.serialization().unmarshal(answer, Lease.class));
    }

    /** This replica's Lease as stored, null when there is none. */
    MemberLease read(String identity) throws ApiException {
        try {
            return member(api.get(collection() + "/" + PathSegment.encode(MemberLease.leaseName(group, identity)), Lease.class));
        } catch (ApiException.NotFound e) {
            return null;
        }
    }

    private static MemberLease member(Lease lease) {
        var spec = lease == null ? null : lease.getSpec();
        if (spec == null || spec.getHolderIdentity() == null || spec.getHolderIdentity().isEmpty()) {
            return null;
        }
        Map<String, String> annotations = lease.getMetadata().getAnnotations();
        return new MemberLease(spec.getHolderIdentity(), spec.getLeaseDurationSeconds() == null ? 0 : spec.getLeaseDurationSeconds(),
                spec.getRenewTime() == null ? null : spec.getRenewTime().toInstant(),
                MemberLease.parseView(annotations == null ? null : annotations.get(MemberLease.VIEW_ANNOTATION)),
                lease.getMetadata().getResourceVersion(), annotations == null ? null : annotations.get(Handover.ANNOTATION));
    }
}
