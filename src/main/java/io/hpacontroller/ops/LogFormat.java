package io.hpacontroller.ops;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import org.slf4j.LoggerFactory;

/** Switches logging to JSON lines ({@code --log-format=json}); the default is human-readable text. */
public final class LogFormat {

    private LogFormat() {
    }

    public static void apply(String format) {
        if (!"json".equals(format)) {
            return;
        }
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext ctx)) {
            return;
        }
        ch.qos.logback.classic.Logger root = ctx.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.detachAndStopAllAppenders();
        ConsoleAppender<ILoggingEvent> appender = new ConsoleAppender<>();
        appender.setContext(ctx);
        appender.setName("JSON");
        appender.setTarget("System.err");
        appender.setEncoder(jsonEncoder(ctx));
        appender.start();
        root.addAppender(appender);
    }

    /** One JSON object per line: logback's encoder escapes control characters in every string (the message's newlines too). */
    static JsonEncoder jsonEncoder(LoggerContext ctx) {
        JsonEncoder encoder = new JsonEncoder();
        encoder.setContext(ctx);
        encoder.setWithSequenceNumber(false);
        encoder.setWithNanoseconds(false);
        encoder.setWithContext(false);
        encoder.setWithMessage(false);
        encoder.setWithArguments(false);
        encoder.setWithFormattedMessage(true);
        encoder.start();
        return encoder;
    }
}
