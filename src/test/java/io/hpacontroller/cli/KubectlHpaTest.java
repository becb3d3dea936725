package io.hpacontroller.cli;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The plugin's command line: its verbs, and a mistake is exit 2 and one line, as the other commands. */
class KubectlHpaTest {

    private static CommandRun run(String... args) {
        return CommandRun.of(KubectlHpa.commandLine(), args);
    }

    @Test
    void helpListsTheVerbs() {
        CommandRun help = run("--help");
        assertThat(help.exit()).isZero();
        assertThat(help.out()).startsWith("Usage: kubectl hpa [-hV] VERB").contains("\nVerbs:\n  describe  ", "\n  why       ", "\n  simulate  ");
        assertThat(run("why", "--help").out()).as("why is explain").startsWith("Usage: kubectl hpa why ")
                .contains("Explains what the autoscaler decides for one HorizontalPodAutoscaler now");
        assertThat(run("simulate", "--example").out()).as("simulate is simulate").contains("duration:");
    }

    @Test
    void mistakesExitTwoWithOneLine() {
        CommandRun none = run();
        assertThat(none.exit()).isEqualTo(2);
        assertThat(none.err()).startsWith("error: a verb is required: the commands are describe, why, simulate, help\n");
        CommandRun typo = run("descibe", "default/web");
        assertThat(typo.exit()).isEqualTo(2);
        assertThat(typo.err()).startsWith("error: unknown command 'descibe'; the commands are describe, why, simulate, help\n")
                .contains("Try 'kubectl hpa --help'");
        CommandRun malformed = run("describe", "-n", "Bad_Namespace", "web", "--kubeconfig=/nonexistent/kubeconfig");
        assertThat(malformed.exit()).isEqualTo(2);
        assertThat(malformed.err()).startsWith("error: --kubeconfig /nonexistent/kubeconfig: ");
        for (CommandRun r : new CommandRun[] {none, typo, malformed}) {
            assertThat(r.err().lines().filter(l -> l.startsWith("error:")).count()).isEqualTo(1);
            assertThat(r.err()).doesNotContain("\tat ");
        }
    }

    @Test
    void aNameTakesItsNamespaceFromTheFlagOrTheContext() throws Exception {
        assertThat(HpaArgument.resolve("web", "prod", () -> "default")).hasToString("prod/web");
        assertThat(HpaArgument.resolve("xhpa/web", "prod", () -> "default")).hasToString("xhpa/prod/web");
        assertThat(HpaArgument.resolve("web", null, () -> "team")).hasToString("team/web");
        assertThat(HpaArgument.resolve("prod/web", null, () -> "default")).hasToString("prod/web");
        assertThat(HpaArgument.resolve("hpa/prod/web", null, () -> "default")).hasToString("hpa/prod/web");
    }
}
