package io.hpacontroller.ops;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.encoder.Encoder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 29, item 10: an annotation value with a newline, quoted in a log message, wrote a forged line
 * ({@code INFO ... scaled kube-system/forged from 1 to 100 replicas}) into the text log.
 */
class LogEscapingTest {

    private static final String FORGED = "x\n2026-11-26T23:00:00.000Z INFO  [hpa-worker-1] i.h.live.HorizontalController - scaled kube-system/forged"
            + " from 1 to 100 replicas\r\u001b[2K\u2028";

    private final LoggerContext context = new LoggerContext();

    {
        context.setMDCAdapter(new ch.qos.logback.classic.util.LogbackMDCAdapter());
    }

    private ILoggingEvent event(Throwable thrown) {
        return new LoggingEvent(LogEscapingTest.class.getName(), context.getLogger("io.hpacontroller.controller.HorizontalController"), Level.WARN,
                "invalid annotation {}: {}", thrown, new Object[]{"autoscaling.hpa-controller.io/mode", FORGED});
    }

    private static String encoded(Encoder<ILoggingEvent> encoder, ILoggingEvent event) {
        return new String(encoder.encode(event), StandardCharsets.UTF_8);
    }

    @Test
    void theTextFormatWritesOneLinePerEventWhateverTheMessageQuotes() {
        String line = encoded(LogSetup.encoder(context), event(null));

        assertThat(line.lines()).hasSize(1);
        assertThat(line).endsWith(" - invalid annotation autoscaling.hpa-controller.io/mode: x\\n2026-11-26T23:00:00.000Z INFO  [hpa-worker-1] "
                + "i.h.live.HorizontalController - scaled kube-system/forged from 1 to 100 replicas\\r\\u001b[2K\\u2028" + System.lineSeparator());
    }

    @Test
    void anExceptionsMessageIsEscapedAndItsStackTraceKeepsItsLines() {
        String text = encoded(LogSetup.encoder(context), event(new IllegalStateException("bad value " + FORGED, new RuntimeException("cause\nINFO forged"))));

        assertThat(text.lines().filter(l -> !l.startsWith("\tat ") && !l.startsWith("\t... "))).hasSize(3).satisfiesExactly(
                first -> assertThat(first).contains("invalid annotation"),
                ex -> assertThat(ex).startsWith("java.lang.IllegalStateException: bad value x\\n2026").endsWith("replicas\\r\\u001b[2K\\u2028"),
                cause -> assertThat(cause).isEqualTo("Caused by: java.lang.RuntimeException: cause\\nINFO forged"));
    }

    @Test
    void theJsonFormatWritesOneObjectPerLineWithTheMessageIntact() throws Exception {
        String line = encoded(LogFormat.jsonEncoder(context), event(null));

        assertThat(line.strip().lines()).hasSize(1);
        JsonNode json = new ObjectMapper().readTree(line);
        assertThat(json.path("formattedMessage").asText()).isEqualTo("invalid annotation autoscaling.hpa-controller.io/mode: " + FORGED);
    }

    @Test
    void textWithoutControlCharactersIsKeptAsItIs() {
        String plain = "scaled shop/web from 2 to 4 replicas: cpu resource utilization (percentage of request) above target";
        assertThat(LogEscaping.escape(plain)).isSameAs(plain);
        assertThat(LogEscaping.escape("tab\there")).isEqualTo("tab\\there");
        assertThat(LogEscaping.escape("Grüße – ok")).isEqualTo("Grüße – ok");
    }
}
