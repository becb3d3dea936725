package io.hpacontroller.ops;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.PatternLayout;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.LayoutWrappingEncoder;
import ch.qos.logback.core.spi.ContextAwareBase;
import org.slf4j.Logger;

/**
 * The product's logging, set up in code (logback finds it through {@code META-INF/services}): one text
 * line per event on stderr, INFO and up, the Kubernetes client's own logging at WARN. Configuring
 * logback from an XML file would load its XML configuration framework and the JDK's XML parser, about
 * 500 classes of metadata the controller carries for its whole life. A file given with
 * {@code -Dlogback.configurationFile=...} still wins; {@code --log-format=json} switches the encoder
 * afterwards ({@link LogFormat}).
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_NORMAL_PRIORITY)
public final class LogSetup extends ContextAwareBase implements Configurator {

    /** {@code %msg} and {@code %ex} are {@link LogEscaping}'s: one event is one line, whatever a message quotes. */
    static final String PATTERN = "%d{yyyy-MM-dd'T'HH:mm:ss.SSSX} %-5level [%thread] %logger{36} - %msg%n%ex";

    @Override
    public ExecutionStatus configure(LoggerContext context) {
        if (System.getProperty("logback.configurationFile") != null) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        LayoutWrappingEncoder<ILoggingEvent> encoder = encoder(context);
        ConsoleAppender<ILoggingEvent> appender = new ConsoleAppender<>();
        appender.setContext(context);
        appender.setName("STDERR");
        appender.setTarget("System.err");
        appender.setEncoder(encoder);
        appender.start();
        ch.qos.logback.classic.Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.INFO);
        root.addAppender(appender);
        context.getLogger("io.fabric8").setLevel(Level.WARN);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    /** The text format's encoder: {@link #PATTERN} with {@link LogEscaping}'s converters. */
    static LayoutWrappingEncoder<ILoggingEvent> encoder(LoggerContext context) {
        PatternLayout layout = new PatternLayout();
        layout.setContext(context);
        for (String word : new String[]{"m", "msg", "message"}) {
            layout.getInstanceConverterMap().put(word, LogEscaping.Message::new);
        }
        for (String word : new String[]{"ex", "exception", "throwable"}) {
            layout.getInstanceConverterMap().put(word, LogEscaping.Throwable::new);
        }
        layout.setPattern(PATTERN);
        layout.start();
        LayoutWrappingEncoder<ILoggingEvent> encoder = new LayoutWrappingEncoder<>();
        encoder.setContext(context);
        encoder.setLayout(layout);
        encoder.start();
        return encoder;
    }
}
