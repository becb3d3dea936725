package io.hpacontroller.cli;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class MainTest {

    @Test
    void anUnknownCommandListsTheCommands() {
        CommandRun r = CommandRun.of("simualte", "examples/seed-004-burst.yaml");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).startsWith("error: unknown command 'simualte'; the commands are run, explain, simulate, conformance, bench, help\n")
                .contains("Try 'hpa-controller --help'");

        CommandRun none = CommandRun.of();
        assertThat(none.exit()).isEqualTo(2);
        assertThat(none.err()).startsWith("error: a command is required: the commands are run, explain, simulate, conformance, bench, help\n");
    }
}
