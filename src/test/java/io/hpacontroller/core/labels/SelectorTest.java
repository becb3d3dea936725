package io.hpacontroller.core.labels;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.hpacontroller.core.labels.Selector.Operator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SelectorTest {

    private static final Map<String, String> WEB = Map.of("app", "web", "tier", "front", "version", "3");

    @Test
    void parsesEveryOperatorOfTheTextForm() {
        Selector s = Selector.parse("app=web, tier==front,env!=prod,zone in (a, b),track notin (canary),version,!legacy,version>2,version<4");
        assertThat(s.requirements()).extracting(Selector.Requirement::operator).containsExactlyInAnyOrder(
                Operator.EQUALS, Operator.EQUALS, Operator.NOT_EQUALS, Operator.IN, Operator.NOT_IN,
                Operator.EXISTS, Operator.DOES_NOT_EXIST, Operator.GREATER_THAN, Operator.LESS_THAN);
        assertThat(s.toString()).isEqualTo("app=web,env!=prod,!legacy,tier=front,track notin (canary),version,version>2,version<4,zone in (a,b)");
    }

    @Test
    void theEmptyTextSelectsEverything() {
        assertThat(Selector.parse("")).isEqualTo(Selector.everything());
        assertThat(Selector.parse("   ").isEverything()).isTrue();
        assertThat(Selector.parse("").matches(Map.of())).isTrue();
    }

    @Test
    void equalSelectorsAreEqualWhateverTheOrderAndSpacing() {
        assertThat(Selector.parse("b=2,a in (y,x)")).isEqualTo(Selector.parse("a in (x, y), b==2"))
                .hasSameHashCodeAs(Selector.parse("a in (x, y), b==2"));
        assertThat(Selector.parse("a=1")).isNotEqualTo(Selector.parse("a!=1"));
    }

    @Test
    void matchesLikeKubernetes() {
        assertThat(Selector.parse("app=web").matches(WEB)).isTrue();
        assertThat(Selector.parse("app=db").matches(WEB)).isFalse();
        assertThat(Selector.parse("app!=db").matches(WEB)).isTrue();
        assertThat(Selector.parse("env!=prod").matches(WEB)).as("!= matches a missing label").isTrue();
        assertThat(Selector.parse("tier in (back,front)").matches(WEB)).isTrue();
        assertThat(Selector.parse("tier in (back)").matches(WEB)).isFalse();
        assertThat(Selector.parse("env in (prod)").matches(WEB)).isFalse();
        assertThat(Selector.parse("env notin (prod)").matches(WEB)).as("notin matches a missing label").isTrue();
        assertThat(Selector.parse("tier notin (front)").matches(WEB)).isFalse();
        assertThat(Selector.parse("app").matches(WEB)).isTrue();
        assertThat(Selector.parse("env").matches(WEB)).isFalse();
        assertThat(Selector.parse("!env").matches(WEB)).isTrue();
        assertThat(Selector.parse("!app").matches(WEB)).isFalse();
        assertThat(Selector.parse("version>2").matches(WEB)).isTrue();
        assertThat(Selector.parse("version>3").matches(WEB)).isFalse();
        assertThat(Selector.parse("version<4").matches(WEB)).isTrue();
        assertThat(Selector.parse("app>1").matches(WEB)).as("a label that is not a number is neither greater nor less").isFalse();
        assertThat(Selector.parse("app=web,tier=back").matches(WEB)).as("every requirement must hold").isFalse();
        assertThat(Selector.parse("app=web").matches((Map<String, String>) null)).isFalse();
        assertThat(Selector.parse("!app").matches((Map<String, String>) null)).isTrue();
    }

    @Test
    void anEmptyValueIsAValue() {
        assertThat(Selector.parse("app=").matches(Map.of("app", ""))).isTrue();
        assertThat(Selector.parse("app=").matches(WEB)).isFalse();
        // like upstream's parser, "(a,)" is the set {a, ""}
        assertThat(Selector.parse("app in (a,)").matches(Map.of("app", ""))).isTrue();
        assertThat(Selector.parse("app in (a,)").matches(Map.of("app", "b"))).isFalse();
    }

    @Test
    void prefixedKeysAreAllowed() {
        assertThat(Selector.parse("app.kubernetes.io/name=web").matches(Map.of("app.kubernetes.io/name", "web"))).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"app=web,", ",app=web", "=web", "app web", "app in ()", "app in (a", "app in a",
            "app=a b", "app=web)", "!app=web", "app>x", "app<", "-app=web", "app=-web", "app=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "a b c", "app in (a b)", "app ~ web"})
    void malformedTextIsAnIllegalArgument(String text) {
        assertThatThrownBy(() -> Selector.parse(text)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aNullTextIsAnIllegalArgument() {
        assertThatThrownBy(() -> Selector.parse(null)).isInstanceOf(IllegalArgumentException.class).hasMessage("selector is required");
    }

    @Test
    void aParseErrorSaysWhereItStopped() {
        assertThatThrownBy(() -> Selector.parse("app=web,tier lol (a)"))
                .hasMessage("unable to parse selector \"app=web,tier lol (a)\" at position 16: expected one of '=', '==', '!=', 'in', 'notin', found 'lol'");
    }

    @Test
    void aNullLabelSelectorSelectsNothingAndAnEmptyOneEverything() {
        assertThat(Selector.fromLabelSelector(null).isNothing()).isTrue();
        assertThat(Selector.fromLabelSelector(null).matches(WEB)).isFalse();
        assertThat(Selector.fromLabelSelector(null).matches(Map.of())).isFalse();
        assertThat(Selector.fromLabelSelector(null)).hasToString("<none>");
        assertThat(Selector.fromLabelSelector(new LabelSelector()).isEverything()).isTrue();
        assertThat(Selector.fromLabelSelector(new LabelSelector()).matches(WEB)).isTrue();
        assertThat(Selector.fromLabelSelector(new LabelSelector(List.of(), Map.of())).matches(Map.of())).isTrue();
    }

    @Test
    void aLabelSelectorConvertsToTheSameRequirementsAsItsText() {
        LabelSelector ls = new LabelSelectorBuilder()
                .withMatchLabels(Map.of("app", "web"))
                .addNewMatchExpression().withKey("tier").withOperator("In").withValues("front", "back").endMatchExpression()
                .addNewMatchExpression().withKey("env").withOperator("NotIn").withValues("prod").endMatchExpression()
                .addNewMatchExpression().withKey("version").withOperator("Exists").endMatchExpression()
                .addNewMatchExpression().withKey("legacy").withOperator("DoesNotExist").endMatchExpression()
                .build();
        Selector s = Selector.fromLabelSelector(ls);
        assertThat(s).isEqualTo(Selector.parse("app=web,tier in (back,front),env notin (prod),version,!legacy"));
        assertThat(s.matches(WEB)).isTrue();
        assertThat(s.matches(Map.of("app", "web", "tier", "front"))).isFalse();
    }

    @Test
    void aBadLabelSelectorIsAnIllegalArgument() {
        assertThatThrownBy(() -> Selector.fromLabelSelector(expression("tier", "Like", "a")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("\"Like\" is not a valid label selector operator");
        assertThatThrownBy(() -> Selector.fromLabelSelector(expression("tier", "In")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("values set can't be empty");
        assertThatThrownBy(() -> Selector.fromLabelSelector(expression("tier", "Exists", "a")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("values set must be empty");
        assertThatThrownBy(() -> Selector.fromLabelSelector(expression("", "Exists")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("key: Invalid value: \"\": name part must be non-empty");
        assertThatThrownBy(() -> Selector.fromLabelSelector(new LabelSelector(List.of(), Map.of("bad key", "x"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("key: Invalid value: \"bad key\": name part must consist of");
    }

    private static final String LABEL_VALUE_RULE = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.',"
            + " and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345',"
            + " regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

    /** Values are checked as upstream's LabelSelectorAsSelector checks them, with its field errors. */
    @Test
    void anInvalidLabelValueIsRefusedWithUpstreamsMessage() {
        assertThatThrownBy(() -> Selector.fromLabelSelector(new LabelSelector(List.of(), Map.of("path", "/api"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("values[0][path]: Invalid value: \"/api\": " + LABEL_VALUE_RULE);
        assertThatThrownBy(() -> Selector.fromLabelSelector(expression("queue", "In", "jobs", "worker/1")))
                .hasMessage("values[1][queue]: Invalid value: \"worker/1\": " + LABEL_VALUE_RULE);
        assertThatThrownBy(() -> Selector.fromLabelSelector(expression("queue", "NotIn", "x".repeat(64))))
                .hasMessage("values[0][queue]: Invalid value: \"" + "x".repeat(64) + "\": must be no more than 63 characters");
        assertThatThrownBy(() -> Selector.fromLabelSelector(expression("tier", "In")))
                .hasMessage("values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty");
        assertThatThrownBy(() -> Selector.fromLabelSelector(expression("tier", "Exists", "a")))
                .hasMessage("values: Invalid value: []string{\"a\"}: values set must be empty for exists and does not exist");
        assertThatThrownBy(() -> Selector.fromLabelSelector(expression("Example.com/tier", "In", "-a")))
                .as("several errors of one requirement are aggregated in brackets")
                .hasMessageStartingWith("[key: Invalid value: \"Example.com/tier\": prefix part a lowercase RFC 1123 subdomain")
                .hasMessageContaining(", values[0][Example.com/tier]: Invalid value: \"-a\": a valid label");
        assertThat(Selector.fromLabelSelector(new LabelSelector(List.of(), Map.of("path", "api.v1_x-2", "empty", ""))).matches(
                Map.of("path", "api.v1_x-2", "empty", ""))).isTrue();
    }

    @Test
    void theTextFormChecksValuesToo() {
        assertThatThrownBy(() -> Selector.parse("app=-web")).hasMessage("values[0][app]: Invalid value: \"-web\": " + LABEL_VALUE_RULE);
    }

    @Test
    void requiredLabelsAreTheSingleValuedEqualities() {
        assertThat(Selector.parse("app=web,tier in (front),env in (a,b),x!=y,z").requiredLabels())
                .isEqualTo(Map.of("app", "web", "tier", "front"));
    }

    @Test
    void ofLabelsMatchesExactlyThoseLabels() {
        Selector s = Selector.ofLabels(Map.of("app", "web", "tier", "front"));
        assertThat(s.matches(WEB)).isTrue();
        assertThat(s.matches(Map.of("app", "web"))).isFalse();
    }

    private static LabelSelector expression(String key, String operator, String... values) {
        return new LabelSelector(List.of(new LabelSelectorRequirement(key, operator, List.of(values))), Map.of());
    }
}
