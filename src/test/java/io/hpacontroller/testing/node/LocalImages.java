package io.hpacontroller.testing.node;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * The images every pod of a real node needs, made here from Debian's {@code busybox-static} (no registry
 * is reachable): {@link #BUSYBOX} (busybox and a link per applet: {@code sh}, {@code usleep}, {@code httpd}...)
 * and the sandbox image {@link #PAUSE} (busybox's {@code sleep}: a pod's sandbox only has to hold its
 * namespaces; containerd stops it with SIGKILL). Pods name them with {@code imagePullPolicy: Never}.
 */
public final class LocalImages {

    public static final String BUSYBOX = "registry.local/busybox:1.35";
    public static final String PAUSE = "registry.local/pause:3.9";
    static final String BUSYBOX_BINARY = "/bin/busybox";

    private LocalImages() {
    }

    static void importInto(RealNode node, Path dir) {
        Path busybox = dir.resolve("busybox.tar");
        ImageArchive image = new ImageArchive(BUSYBOX).copy(Path.of(BUSYBOX_BINARY), "/bin/busybox")
                .file("/etc/passwd", "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n".getBytes(StandardCharsets.US_ASCII), 0644)
                .file("/etc/group", "root:x:0:\nnogroup:x:65534:\n".getBytes(StandardCharsets.US_ASCII), 0644)
                .directory("/tmp", 01777).directory("/root", 0700).entrypoint("/bin/sh");
        for (String applet : applets()) {
            if (!applet.equals("busybox")) {
                image.symlink("/bin/" + applet, "busybox");
            }
        }
        image.writeTo(busybox);
        Path pause = dir.resolve("pause.tar");
        new ImageArchive(PAUSE).copy(Path.of(BUSYBOX_BINARY), "/bin/busybox").entrypoint("/bin/busybox", "sleep", "2147483647").writeTo(pause);
        node.importImage(busybox);
        node.importImage(pause);
    }

    private static List<String> applets() {
        return Host.run(List.of(BUSYBOX_BINARY, "--list"), true).output().lines().map(String::strip).filter(s -> !s.isEmpty()).toList();
    }
}
