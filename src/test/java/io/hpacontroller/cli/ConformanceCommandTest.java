package io.hpacontroller.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class ConformanceCommandTest {

    @Test
    void sharedCasesAllPassAndTheLastLineCountsThem() {
        CommandRun r = CommandRun.of("conformance", "src/test/resources/conformance", "src/test/resources/conformance-v137");
        assertThat(r.exit()).isZero();
        assertThat(r.lastLine()).matches("\\d+ passed, 0 failed");
        assertThat(r.out()).contains("PASS scale-up").doesNotContain("FAIL");
    }

    @Test
    void malformedUnknownAndWrongCasesAreFailLinesNotStackTraces(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("a-broken.json"), "{ this is not json");
        Files.writeString(dir.resolve("b-unknown.json"), "{\"kind\": \"telepathy\", \"name\": \"mind-reading\"}");
        Files.copy(Path.of("src/test/resources/conformance/calc/resource-cpu-scale-up.json"), dir.resolve("c-good.json"));
        String wrong = Files.readString(Path.of("src/test/resources/conformance/calc/resource-cpu-scale-up.json"))
                .replace("\"replicas\": 5", "\"replicas\": 7");
        Files.writeString(dir.resolve("d-wrong.json"), wrong);

        CommandRun r = CommandRun.of("conformance", dir.toString());

        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.out()).contains("FAIL a-broken.json: case file " + dir.resolve("a-broken.json") + " is not valid JSON: ")
                .contains("FAIL mind-reading: unknown case kind \"telepathy\"")
                .contains("replicas: expected 7, got 5")
                .doesNotContain("Exception");
        assertThat(r.lastLine()).isEqualTo("1 passed, 3 failed");
    }

    @Test
    void aTruncatedCaseFileSaysWhereItEnds(@TempDir Path dir) throws IOException {
        String whole = Files.readString(Path.of("src/test/resources/conformance/calc/resource-cpu-scale-up.json"));
        Path truncated = dir.resolve("truncated.json");
        Files.writeString(truncated, whole.substring(0, whole.indexOf("\"replicas\"")));
        long lines = whole.substring(0, whole.indexOf("\"replicas\"")).lines().count();

        CommandRun r = CommandRun.of("conformance", truncated.toString());

        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.out()).containsPattern("FAIL truncated.json: case file " + java.util.regex.Pattern.quote(truncated.toString())
                        + " is not valid JSON: Unexpected end-of-input.* \\(at line " + lines + ", column \\d+\\)")
                .doesNotContain("An error has occurred").doesNotContain("Exception");
    }

    @Test
    void aDirectoryWithoutCasesIsAFailureNotAPass(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("notes.txt"), "no cases here");
        CommandRun r = CommandRun.of("conformance", dir.toString());
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).isEqualTo("conformance: no case files (*.json) under " + dir + System.lineSeparator());
        assertThat(r.out()).doesNotContain("passed");
    }

    @Test
    void aMissingDirectoryIsAUsageError() {
        CommandRun r = CommandRun.of("conformance", "no/such/dir");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("no such file or directory");
    }

    @Test
    void everyCommandHasHelp() {
        assertThat(CommandRun.of("--help").out()).contains("conformance");
        assertThat(CommandRun.of("conformance", "--help").out()).contains("Usage: hpa-controller conformance");
    }
}
