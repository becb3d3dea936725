package io.hpacontroller.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * A process as Linux's /proc shows it: resident memory (what a pod's memory limit sees) and CPU time.
 * Reads fail softly: a process that has ended reads as zeros.
 */
public final class ProcessMeter {

    /** Linux reports CPU times in clock ticks of USER_HZ, which is 100 on every architecture Kubernetes runs on. */
    private static final double TICKS_PER_SECOND = 100.0;

    /**
     * Resident memory, in KiB: now, the peak so far (VmHWM), and its anonymous (heap, stacks, JIT) and
     * file-backed (mapped jars, the JDK's modules and class-data archive) parts.
     */
    public record Memory(long rssKib, long peakKib, long anonKib, long fileKib, int threads) {
    }

    private final Path proc;

    public ProcessMeter(long pid) {
        this.proc = Path.of("/proc", Long.toString(pid));
    }

    public static boolean available() {
        return Files.isDirectory(Path.of("/proc/self"));
    }

    public Memory memory() {
        Map<String, Long> status = new HashMap<>();
        try {
            for (String line : Files.readAllLines(proc.resolve("status"))) {
                int colon = line.indexOf(':');
                if (colon > 0) {
                    String value = line.substring(colon + 1).trim().split("\\s+")[0];
                    if (!value.isEmpty() && value.chars().allMatch(Character::isDigit)) {
                        status.put(line.substring(0, colon), Long.parseLong(value));
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            return new Memory(0, 0, 0, 0, 0);
        }
        return new Memory(status.getOrDefault("VmRSS", 0L), status.getOrDefault("VmHWM", 0L), status.getOrDefault("RssAnon", 0L),
                status.getOrDefault("RssFile", 0L) + status.getOrDefault("RssShmem", 0L), status.getOrDefault("Threads", 0L).intValue());
    }

    /** The machine's load average over the last minute (/proc/loadavg), -1 when it cannot be read. */
    static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** User and system CPU time of every thread of the process so far, in seconds. */
    public double cpuSeconds() {
        try {
            String stat = Files.readString(proc.resolve("stat"));
            // the command name (field 2) is in parentheses and may hold spaces: count fields after its closing one
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS_PER_SECOND; // utime and stime: fields 14 and 15
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
