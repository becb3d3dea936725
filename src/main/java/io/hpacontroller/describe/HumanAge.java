package io.hpacontroller.describe;

import java.time.Duration;

/**
 * An age as kubectl prints it (apimachinery's {@code duration.HumanDuration}): "45s", "3m20s", "42m", "5h12m", "3d4h",
 * "400d", "2y30d". Our own, for parity with kubectl's columns.
 */
final class HumanAge {

    private HumanAge() {
    }

    static String of(Duration d) {
        long seconds = d.getSeconds();
        if (seconds < -1) {
            return "<invalid>";
        }
        if (seconds < 0) {
            return "0s";
        }
        if (seconds < 120) {
            return seconds + "s";
        }
        long minutes = seconds / 60;
        if (minutes < 10) {
            return seconds % 60 == 0 ? minutes + "m" : minutes + "m" + seconds % 60 + "s";
        }
        if (minutes < 180) {
            return minutes + "m";
        }
        long hours = minutes / 60;
        if (hours < 8) {
            return minutes % 60 == 0 ? hours + "h" : hours + "h" + minutes % 60 + "m";
        }
        if (hours < 48) {
            return hours + "h";
        }
        if (hours < 24 * 8) {
            return hours % 24 == 0 ? hours / 24 + "d" : hours / 24 + "d" + hours % 24 + "h";
        }
        if (hours < 24 * 365 * 2) {
            return hours / 24 + "d";
        }
        if (hours < 24 * 365 * 8) {
            long days = hours / 24 % 365;
            return days == 0 ? hours / 24 / 365 + "y" : hours / 24 / 365 + "y" + days + "d";
        }
        return hours / 24 / 365 + "y";
    }
}
