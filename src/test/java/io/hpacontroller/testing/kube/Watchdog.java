package io.hpacontroller.testing.kube;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Kills the processes the tests started when this JVM dies, however it dies (SIGKILL included, where no
 * shutdown hook runs): a {@code sh} that reads the PIDs to guard on its standard input and, when that
 * pipe closes (the kernel closes it when the JVM is gone), SIGKILLs the ones still listed. A process
 * stopped normally is taken off the list first, so a reused PID is never killed.
 */
final class Watchdog {

    private static final String SCRIPT = """
            pids=' '
            while IFS= read -r line; do
              case "$line" in
                -*) pids=$(printf '%s' "$pids" | sed "s/ ${line#-} / /") ;;
                *) pids="$pids$line " ;;
              esac
            done
            for p in $pids; do kill -KILL "$p" 2>/dev/null; done
            """;

    private static OutputStream pipe;

    private Watchdog() {
    }

    static synchronized void guard(long pid) {
        send(Long.toString(pid));
    }

    static synchronized void release(long pid) {
        send("-" + pid);
    }

    private static void send(String line) {
        try {
            if (pipe == null) {
                Process sh = new ProcessBuilder("sh", "-c", SCRIPT).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
                pipe = sh.getOutputStream();
            }
            pipe.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
            pipe.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("the watchdog of the test processes is gone", e);
        }
    }
}
