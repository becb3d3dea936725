package io.hpacontroller.testing.kube;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A program the tests started (etcd, kube-apiserver, kube-controller-manager, a controller JVM), its
 * output in a log file. Guarded by the {@link Watchdog}; stopped with SIGTERM then SIGKILL, or killed
 * outright.
 */
public final class ChildProcess {

    private final String name;
    private final Path log;
    private final Process process;
    private volatile boolean paused;

    private ChildProcess(String name, Path log, Process process) {
        this.name = name;
        this.log = log;
        this.process = process;
    }

    /** Starts a program; its standard output and error go to {@code log} (appended). */
    public static ChildProcess start(String name, List<String> command, Path log, Map<String, String> env) {
        try {
            Files.createDirectories(log.getParent());
            ProcessBuilder b = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            b.environment().putAll(env);
            Process p = b.start();
            Watchdog.guard(p.pid());
            return new ChildProcess(name, log, p);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + ": " + command.get(0), e);
        }
    }

    public String name() {
        return name;
    }

    public long pid() {
        return process.pid();
    }

    public Path log() {
        return log;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Waits until the process exits and returns its status; throws with the end of the log when it still runs after {@code timeout}. */
    public int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException(name + " still runs after " + timeout + "; last lines of " + log + ":\n" + tail(30));
        }
        Watchdog.release(process.pid());
        return process.exitValue();
    }

    /** Throws with the end of the log when the process has exited. */
    public void checkAlive() {
        if (!process.isAlive()) {
            throw new IllegalStateException(name + " exited with status " + process.exitValue() + "; last lines of " + log + ":\n" + tail(30));
        }
    }

    /** SIGSTOP: every thread of the process stops where it is (its connections stay open) until {@link #resume}. */
    public void pause() {
        signal("STOP");
        paused = true;
    }

    /** SIGCONT: a paused process goes on where it stopped. */
    public void resume() {
        signal("CONT");
        paused = false;
    }

    private void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed (" + name + ")");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot signal " + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling " + name, e);
        }
    }

    /** SIGTERM (after a SIGCONT when paused), then SIGKILL after the grace period. */
    public void stop(Duration grace) {
        if (paused && process.isAlive()) {
            resume();
        }
        if (process.isAlive()) {
            process.destroy();
            try {
                if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        Watchdog.release(process.pid());
    }

    /** SIGKILL: no shutdown hook, no lease release. Waits until the process is gone. */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Watchdog.release(process.pid());
    }

    /** The last lines of the log. */
    public String tail(int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException | UncheckedIOException e) {
            return "(log unreadable: " + e.getMessage() + ")";
        }
    }

    @Override
    public String toString() {
        return name + " (pid " + process.pid() + ")";
    }
}
