package io.hpacontroller.cli;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class MainTest {

    @Test
    void anUnknownCommandListsTheCommands() {
        CommandRun r = CommandRun.of("simualte", "examples/seed-004-burst.yaml");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).startsWith("error: unknown command 'simualte'; the commands are run, explain, simulate, conformance, help\n")
                .contains("Try 'hpa-controller --help'");

        CommandRun none = CommandRun.of();
        assertThat(none.exit()).isEqualTo(2);
        assertThat(none.err()).startsWith("error: a command is required: the commands are run, explain, simulate, conformance, help\n");
    }

    /** The controller's jar leaves the bench out (io.hpacontroller.bench.BenchMain): asked for it, it names the bench's jar. */
    @Test
    void benchNamesTheJarItMovedTo() {
        CommandRun r = CommandRun.of("bench", "--hpas", "10");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).startsWith("error: 'bench' moved to a jar of its own, built beside this one: java -jar target/hpa-controller-bench.jar bench ...\n");
    }
}
