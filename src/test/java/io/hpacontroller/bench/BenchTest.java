package io.hpacontroller.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The bench command end to end, on a small world (its figures are for the README, not asserted as speeds). */
class BenchTest {

    @Test
    @Timeout(value = 15, unit = TimeUnit.MINUTES, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // about 20 s (minutes when loaded); fails rather than hangs the build
    void benchRunsTheControllerAndPrintsEveryFigure() {
        StringWriter out = new StringWriter();
        CommandLine cl = BenchMain.commandLine();
        cl.setOut(new PrintWriter(out));
        int exit = cl.execute("bench", "--hpas", "60", "--pods-per-hpa", "3", "--duration", "2s", "--workers", "2",
                "--run-for", "12s", "--sync-period", "3s");
        assertThat(exit).as(out.toString()).isZero();

        Map<String, String> figures = new HashMap<>();
        for (String line : out.toString().split("\n")) {
            int colon = line.indexOf(": ");
            if (!line.startsWith("#") && colon > 0) {
                figures.put(line.substring(0, colon), line.substring(colon + 2).trim());
            }
        }
        assertThat(figures).containsKeys("hpas", "pods", "informer_sync_seconds", "reconciles_per_second", "reconcile_p50_ms",
                "reconcile_p99_ms", "own_cpu_p99_ms", "api_requests_per_reconcile", "heap_mib_after_gc",
                "seconds_to_first_reconcile_all", "cpu_seconds_to_steady", "rss_mib_peak", "rss_mib_end");
        assertThat(Double.parseDouble(figures.get("rss_mib_end"))).as("the controller process's resident memory").isPositive();
        assertThat(figures.get("jvm_options")).as("the image's options in a pod of the chart's memory limit")
                .startsWith("-XX:MaxRAM=256m ").contains("-XX:+UseSerialGC");
        assertThat(figures.get("hpas")).isEqualTo("60");
        assertThat(figures.get("pods")).isEqualTo("180");
        assertThat(Double.parseDouble(figures.get("reconciles_per_second"))).isPositive();
        assertThat(figures.get("reconcile_errors")).isEqualTo("0");
        // at steady state nothing scales and no status changes: one request per reconcile (the metrics query)
        assertThat(Double.parseDouble(figures.get("api_requests_per_reconcile"))).isEqualTo(1.0);
        assertThat(out.toString()).contains("scale-get=0").contains("status=0");
        // every HPA due at once at a 3 s period: worked off at most twice as fast as 60 HPAs are due (40/s), after a
        // first burst of 10
        assertThat(figures.get("paced_limit_per_second")).isEqualTo("40");
        assertThat(Double.parseDouble(figures.get("paced_reconciles_per_second"))).isPositive().isLessThanOrEqualTo(40.0 * 60 / 50);
    }

    @Test
    void badArgumentsExitWithTwo() {
        CommandLine cl = BenchMain.commandLine();
        cl.setErr(new PrintWriter(new StringWriter()));
        assertThat(cl.execute("bench", "--hpas", "0")).isEqualTo(2);
        assertThat(cl.execute("bench", "--duration", "soon")).isEqualTo(2);
        assertThat(cl.execute("bench", "--memory-limit", "lots")).isEqualTo(2);
    }

    @Test
    void replicaMistakesExitWithTwoAndOneLineNamingThem() {
        Map<String, String> mistakes = Map.of(
                "--replicas 0", "error: --replicas must be at least 1, got 0",
                "--replicas -2", "error: --replicas must be at least 1, got -2",
                "--replicas two", "error: Invalid value for option '--replicas': 'two' is not an int",
                "--baseline", "error: --baseline compares N replicas with one: it needs --replicas 2 or more",
                "--replicas 3 --run-for 0s", "error: --replicas 3 measures the controller processes: --run-for must be positive",
                "--replicas 2 --duration 10s", "error: --duration measures one controller in this JVM: it cannot go with --replicas 2 (leave it out)",
                "--replicas 3 --baseline-sync-period 180s", "error: --baseline-sync-period sets the baseline's period: it needs --baseline and"
                        + " a positive duration",
                "--others-as-leases", "error: --others-as-leases runs replica 1 of --replicas N beside N-1 Leases: it needs --replicas 2 or more",
                "--pin-cores", "error: --pin-cores gives each of --replicas N >= 2 processes a core of its own: N must be 2 to "
                        + Runtime.getRuntime().availableProcessors() + " here, got 1");
        mistakes.forEach((args, line) -> {
            StringWriter err = new StringWriter();
            CommandLine cl = BenchMain.commandLine();
            cl.setErr(new PrintWriter(err));
            String[] argv = ("bench " + args).split(" ");
            assertThat(cl.execute(argv)).as(args).isEqualTo(2);
            assertThat(err.toString().lines()).as(args).first().isEqualTo(line);
            assertThat(err.toString()).as(args).doesNotContain("Exception").doesNotContain("\tat ");
        });
    }
}
