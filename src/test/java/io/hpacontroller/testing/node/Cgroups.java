package io.hpacontroller.testing.node;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The node's cgroup root in every cgroup v1 hierarchy (the kubelet's {@code cgroupRoot}: its
 * {@code kubepods} tree goes under it, apart from the host's). Created before the kubelet starts (it refuses
 * a missing root), removed when the node is closed or, after a killed run, when the next one starts.
 */
final class Cgroups {

    private static final Path FS = Path.of("/sys/fs/cgroup");

    private Cgroups() {
    }

    static void create(String root) {
        try {
            for (Path hierarchy : hierarchies()) {
                Path dir = Files.createDirectories(hierarchy.resolve(root));
                if (Files.exists(dir.resolve("cpu.shares"))) { // the node's CPU weight is its capacity's, as a machine's whole
                    Files.writeString(dir.resolve("cpu.shares"), Integer.toString(1024 * Runtime.getRuntime().availableProcessors()));
                }
                if (Files.exists(dir.resolve("cpuset.cpus"))) { // an empty cpuset admits no task
                    for (String f : List.of("cpuset.cpus", "cpuset.mems")) {
                        Files.writeString(dir.resolve(f), Files.readString(hierarchy.resolve(f)).strip());
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the node's cgroups under " + FS, e);
        }
    }

    /** Kills what still runs in the root's cgroups (a node killed with the JVM), then removes them, deepest first. */
    static void remove(String root) {
        for (Path hierarchy : hierarchies()) {
            Path dir = hierarchy.resolve(root);
            if (!Files.isDirectory(dir)) {
                continue;
            }
            for (int attempt = 0; attempt < 50 && Files.isDirectory(dir); attempt++) {
                try (Stream<Path> tree = Files.walk(dir)) {
                    List<Path> dirs = tree.filter(Files::isDirectory).sorted(Comparator.reverseOrder()).toList();
                    for (Path d : dirs) {
                        for (String pid : Files.readAllLines(d.resolve("cgroup.procs"))) {
                            ProcessHandle.of(Long.parseLong(pid.strip())).ifPresent(ProcessHandle::destroyForcibly);
                        }
                        d.toFile().delete(); // rmdir: fails while a task is still in it
                    }
                } catch (IOException | UncheckedIOException e) {
                    // a directory went away meanwhile: look again
                }
                if (Files.isDirectory(dir)) {
                    sleep();
                }
            }
        }
    }

    private static List<Path> hierarchies() {
        try (Stream<Path> s = Files.list(FS)) {
            return s.filter(p -> Files.isDirectory(p) && !Files.isSymbolicLink(p) && Files.exists(p.resolve("cgroup.procs"))).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the cgroup hierarchies in " + FS + " (cgroup v1 is needed)", e);
        }
    }

    private static void sleep() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
