package io.hpacontroller.api;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.URI;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PathSegmentTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "web|web",
            "web-1.v2_x~y|web-1.v2_x~y",
            "../../victim/deployments/web|..%2F..%2Fvictim%2Fdeployments%2Fweb",
            "web?x=|web%3Fx%3D",
            "a%2Fb|a%252Fb",
            "qps#frag|qps%23frag",
            "a b+c|a%20b%2Bc",
            "..;|..%3B",
            "pods/*/x|pods%2F%2A%2Fx",
            "grüße|gr%C3%BC%C3%9Fe",
            "...|...",
    })
    void encodesEverythingButTheUnreservedCharacters(String name, String encoded) {
        assertThat(PathSegment.encode(name)).isEqualTo(encoded);
    }

    @Test
    void controlCharactersAreEncoded() {
        assertThat(PathSegment.encode("qps\nx\r\t\u0000")).isEqualTo("qps%0Ax%0D%09%00");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ".", ".."})
    void aNameNoSegmentCanCarryIsRefused(String name) {
        assertThatThrownBy(() -> PathSegment.encode(name)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot be a segment of a URL path");
    }

    @Test
    void anyNameStaysOneSegmentThatDecodesToItself() {
        Random random = new Random(35);
        String alphabet = "aZ09-._~/%?#;:@!$&'()*+,= \n\u00e9\u4e2d\ud83d\ude00";
        for (int i = 0; i < 2000; i++) {
            StringBuilder name = new StringBuilder();
            int length = 1 + random.nextInt(12);
            while (name.length() < length) {
                int at = random.nextInt(alphabet.length());
                char c = alphabet.charAt(at);
                name.append(Character.isHighSurrogate(c) ? alphabet.substring(at, at + 2) : Character.isLowSurrogate(c) ? "x" : String.valueOf(c));
            }
            String n = name.toString();
            if (n.equals(".") || n.equals("..")) {
                continue;
            }
            String encoded = PathSegment.encode(n);
            assertThat(encoded).as(n).matches("[A-Za-z0-9._~-]*(%[0-9A-F]{2}[A-Za-z0-9._~-]*)*");
            URI uri = URI.create("https://api.example/apis/g/v1/namespaces/ns/things/" + encoded + "/scale");
            assertThat(uri.getPath()).as(n).isEqualTo("/apis/g/v1/namespaces/ns/things/" + n + "/scale");
            assertThat(uri.normalize().getRawPath()).as(n).isEqualTo(uri.getRawPath());
        }
    }
}
