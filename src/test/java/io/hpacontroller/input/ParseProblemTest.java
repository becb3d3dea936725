package io.hpacontroller.input;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

class ParseProblemTest {

    private static String problem(String text) {
        Throwable failure = catchThrowable(() -> new KubernetesSerialization().unmarshal(text, JsonNode.class));
        assertThat(failure).as("parsing %s fails", text).isNotNull();
        return ParseProblem.of(failure);
    }

    @Test
    void truncatedJsonSaysWhereItEndsAndWhereTheOpenObjectBegan() {
        assertThat(problem("{\n  \"kind\": \"calc\",\n  \"name\": \"x\"\n"))
                .isEqualTo("Unexpected end-of-input: expected close marker for Object (opened at line 1, column 1) (at line 4, column 1)");
        assertThat(problem("{\"a\": [1,\n2,")).isEqualTo("Unexpected end-of-input within/between Array entries (at line 2, column 3)");
    }

    @Test
    void brokenYamlIsTheParsersWordsAndTheLastMark() {
        assertThat(problem("a: [1,\n")).isEqualTo("while parsing a flow node: expected the node content, but found '<stream end>' (at line 2, column 1)");
    }

    @Test
    void anythingElseIsItsFirstLine() {
        assertThat(ParseProblem.of(new IllegalStateException("first\nsecond"))).isEqualTo("first");
        assertThat(ParseProblem.of(new IllegalStateException())).isEqualTo("(no detail)");
    }
}
