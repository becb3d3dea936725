package io.hpacontroller.cli;

import io.hpacontroller.core.GoDuration;
import picocli.CommandLine;

import java.time.Duration;

/** Reads flag values in Go's duration form (15s, 5m, 1m30s). */
public final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
        try {
            Duration d = GoDuration.parse(value);
            if (d.isNegative()) {
                throw new CommandLine.TypeConversionException("must not be negative: '" + value + "'");
            }
            return d;
        } catch (IllegalArgumentException e) {
            throw new CommandLine.TypeConversionException(e.getMessage());
        }
    }
}
