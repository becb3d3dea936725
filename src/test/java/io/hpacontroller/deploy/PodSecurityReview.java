package io.hpacontroller.deploy;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Volume;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The container posture issue 5 asks for (non-root, no privilege escalation, all capabilities
 * dropped) plus the rest of the restricted Pod Security Standard the controller can meet, evaluated
 * the way the kubelet does: a container's setting wins over the pod's.
 */
final class PodSecurityReview {

    private PodSecurityReview() {
    }

    static List<String> violations(PodSpec pod) {
        List<String> found = new ArrayList<>();
        if (Boolean.TRUE.equals(pod.getHostNetwork()) || Boolean.TRUE.equals(pod.getHostPID())
                || Boolean.TRUE.equals(pod.getHostIPC())) {
            found.add("pod shares a host namespace");
        }
        for (Volume volume : pod.getVolumes()) {
            if (volume.getHostPath() != null) {
                found.add("volume " + volume.getName() + " is a hostPath");
            }
        }
        PodSecurityContext podContext = Optional.ofNullable(pod.getSecurityContext()).orElseGet(PodSecurityContext::new);
        Stream.concat(pod.getInitContainers().stream(), pod.getContainers().stream())
                .forEach(c -> review(c, podContext, found));
        return found;
    }

    private static void review(Container container, PodSecurityContext pod, List<String> found) {
        String name = "container " + container.getName();
        SecurityContext own = Optional.ofNullable(container.getSecurityContext()).orElseGet(SecurityContext::new);
        Boolean runAsNonRoot = own.getRunAsNonRoot() != null ? own.getRunAsNonRoot() : pod.getRunAsNonRoot();
        Long runAsUser = own.getRunAsUser() != null ? own.getRunAsUser() : pod.getRunAsUser();
        Object seccomp = own.getSeccompProfile() != null ? own.getSeccompProfile().getType()
                : pod.getSeccompProfile() != null ? pod.getSeccompProfile().getType() : null;

        if (!Boolean.TRUE.equals(runAsNonRoot)) {
            found.add(name + ": runAsNonRoot is not true");
        }
        if (runAsUser != null && runAsUser == 0L) {
            found.add(name + ": runs as UID 0");
        }
        if (!Boolean.FALSE.equals(own.getAllowPrivilegeEscalation())) {
            found.add(name + ": allowPrivilegeEscalation is not false");
        }
        if (Boolean.TRUE.equals(own.getPrivileged())) {
            found.add(name + ": privileged");
        }
        if (own.getCapabilities() == null || !own.getCapabilities().getDrop().contains("ALL")) {
            found.add(name + ": does not drop ALL capabilities");
        } else if (!own.getCapabilities().getAdd().isEmpty()) {
            found.add(name + ": adds capabilities " + own.getCapabilities().getAdd());
        }
        if (!Boolean.TRUE.equals(own.getReadOnlyRootFilesystem())) {
            found.add(name + ": root filesystem is writable");
        }
        if (!"RuntimeDefault".equals(seccomp) && !"Localhost".equals(seccomp)) {
            found.add(name + ": seccomp profile is " + seccomp);
        }
    }
}
