package io.hpacontroller.testing.kube;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.hpacontroller.testing.Waits;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Predicate;

/**
 * kube-apiserver's JSON audit log, read as it grows: every request except the API server's own and
 * health checks, with who made it, what it did and the answer's status code.
 *
 * <p>The API server writes an event after it answered, so a request the test just saw answered may not
 * be in the file yet. {@link #sync()} makes a marker request and waits until it is there: every request
 * answered before the marker is then in the log. The query methods sync first.
 */
public final class AuditLog {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration SYNC_TIMEOUT = Waits.STATE;

    private final Path file;
    private final KubernetesClient admin;
    private final List<AuditEvent> events = new ArrayList<>();
    private long offset;

    AuditLog(Path file, KubernetesClient admin) {
        this.file = file;
        this.admin = admin;
    }

    public Path file() {
        return file;
    }

    /** Every request matching the filter, in the order they were logged. */
    public synchronized List<AuditEvent> events(Predicate<AuditEvent> filter) {
        sync();
        return events.stream().filter(filter).toList();
    }

    public long count(Predicate<AuditEvent> filter) {
        return events(filter).size();
    }

    /** Waits until every request answered before this call is in the log. */
    public synchronized void sync() {
        String marker = "audit-sync-" + UUID.randomUUID();
        try {
            admin.namespaces().withName(marker).get(); // a 404, logged like any request
        } catch (RuntimeException e) {
            throw new IllegalStateException("the API server did not answer the audit marker request", e);
        }
        long deadline = System.nanoTime() + SYNC_TIMEOUT.toNanos();
        while (true) {
            int before = events.size();
            readNew();
            for (int i = events.size() - 1; i >= before; i--) {
                if (marker.equals(events.get(i).name())) {
                    return;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the audit marker " + marker + " did not reach " + file + " within " + SYNC_TIMEOUT);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
    }

    private void readNew() {
        if (!Files.exists(file)) {
            return;
        }
        try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
            long length = in.length();
            if (length <= offset) {
                return;
            }
            byte[] bytes = new byte[(int) (length - offset)];
            in.seek(offset);
            in.readFully(bytes);
            int start = 0;
            for (int i = 0; i < bytes.length; i++) {
                if (bytes[i] == '\n') {
                    if (i > start) {
                        events.add(AuditEvent.parse(JSON.readTree(new String(bytes, start, i - start, StandardCharsets.UTF_8))));
                    }
                    start = i + 1;
                }
            }
            offset += start; // a partly written last line is read next time
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the audit log " + file, e);
        }
    }
}
