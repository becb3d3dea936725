package io.hpacontroller.testing.node;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** What a real node needs on this machine, checked before anything starts: a failure names what to install. */
final class Preflight {

    private static final List<String> PROGRAMS = List.of("containerd", "containerd-shim-runc-v2", "runc", "ctr", "unshare", "nsenter", "ip", "ldd");
    private static final List<String> CNI = List.of("bridge", "host-local", "loopback");

    private Preflight() {
    }

    static void check() {
        List<String> missing = new ArrayList<>();
        if (!"0".equals(uid())) {
            missing.add("root (the kubelet, containerd and the node's namespaces need it)");
        }
        for (String p : PROGRAMS) {
            if (onPath(p) == null) {
                missing.add(p);
            }
        }
        for (String c : CNI) {
            if (!Files.isExecutable(Path.of("/usr/lib/cni", c))) {
                missing.add("/usr/lib/cni/" + c);
            }
        }
        if (!Files.isExecutable(Path.of(LocalImages.BUSYBOX_BINARY))) {
            missing.add(LocalImages.BUSYBOX_BINARY);
        }
        if (!Files.isDirectory(Path.of("/sys/fs/cgroup/cpu"))) {
            missing.add("cgroup v1 hierarchies under /sys/fs/cgroup (the node uses the cgroupfs driver)");
        }
        if (!missing.isEmpty()) {
            throw new IllegalStateException("a real node cannot start here; missing: " + String.join(", ", missing)
                    + " (Debian: apt-get install -y containerd runc containernetworking-plugins busybox-static iproute2 util-linux; "
                    + ".ci/run installs them)");
        }
    }

    static Path onPath(String program) {
        for (String d : (System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/usr/bin:/sbin:/bin").split(":")) {
            Path p = Path.of(d.isEmpty() ? "." : d, program);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    private static String uid() {
        try {
            return Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("Uid:"))
                    .map(l -> l.split("\\s+")[1]).findFirst().orElse("?");
        } catch (java.io.IOException e) {
            return "?";
        }
    }
}
