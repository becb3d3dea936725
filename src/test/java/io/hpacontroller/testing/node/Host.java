package io.hpacontroller.testing.node;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Short commands on this machine ({@code ip}, {@code ctr}, {@code nsenter}), waited for, output kept. */
final class Host {

    record Result(int exit, String output) {
    }

    private Host() {
    }

    /** Runs a command for at most five minutes; with {@code check}, a non-zero exit throws with its output. */
    static Result run(List<String> command, boolean check) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(5, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish in 5 minutes");
            }
            if (check && p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " exited " + p.exitValue() + ": " + out.strip());
            }
            return new Result(p.exitValue(), out);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command.get(0), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + String.join(" ", command));
        }
    }
}
