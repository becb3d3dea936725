package io.hpacontroller.ops;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The HTTP/1.1 server of the controller's own endpoints ({@code /metrics}, {@code /decisions}, the health probes),
 * plain or over TLS: one request per connection ({@code Connection: close}), the answer buffered and sent with its
 * length. The JDK's {@code com.sun.net.httpserver} reads a request on a pooled thread with no time limit, so a few
 * clients that send half a request hold every thread (issue 29.4). Here each connection has a thread of its own,
 * and a slow client holds only that one:
 * <ul>
 * <li>the request head (the TLS handshake included) must arrive within {@link Limits#readTimeout} of the accept and
 *     be at most {@link Limits#maxHeadBytes}; the answer must be taken within {@link Limits#writeTimeout} (a reaper
 *     closes the connection at its deadline, whatever its client trickles);</li>
 * <li>at most {@link Limits#maxConnections} at once: one more closes the connection that has waited longest for
 *     its request head (a kubelet probe or a scrape sends its request at once, so it is never that one), or, when
 *     every connection is being answered, is itself closed.</li>
 * </ul>
 */
public final class EndpointServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EndpointServer.class);
    /** The stack of a connection's thread: parsing, a handler, and the TLS stack. */
    private static final long STACK_BYTES = 512 * 1024;

    /**
     * @param readTimeout    from the accept to the end of the request head
     * @param writeTimeout   from the end of the request head to the last byte of the answer taken by the client
     * @param maxHeadBytes   the request line and headers
     * @param maxConnections open at once
     */
    public record Limits(Duration readTimeout, Duration writeTimeout, int maxHeadBytes, int maxConnections) {
        public static final Limits DEFAULT = new Limits(Duration.ofSeconds(10), Duration.ofSeconds(60), 16 * 1024, 128);
    }

    /**
     * A request: its method, its path (decoded, without dot segments), its raw query (null when none), its headers by
     * lower-case name.
     */
    public record Request(String method, String path, String query, Map<String, List<String>> headers) {
        /** The first value of a header, null when absent. */
        public String header(String name) {
            List<String> values = headers.get(name.toLowerCase(Locale.ROOT));
            return values == null || values.isEmpty() ? null : values.get(0);
        }

        public boolean isGetOrHead() {
            return method.equals("GET") || method.equals("HEAD");
        }
    }

    /** An answer: status, headers (Content-Length and Connection are the server's), body. */
    public record Response(int status, Map<String, String> headers, byte[] body) {
        public static Response text(int status, String text) {
            return of(status, "text/plain; charset=utf-8", text);
        }

        public static Response of(int status, String contentType, String body) {
            return new Response(status, Map.of("Content-Type", contentType), body.getBytes(StandardCharsets.UTF_8));
        }

        /** 405 for a method other than GET and HEAD. */
        public static Response onlyGet() {
            return new Response(405, Map.of("Content-Type", "text/plain; charset=utf-8", "Allow", "GET, HEAD"),
                    "only GET and HEAD\n".getBytes(StandardCharsets.UTF_8));
        }
    }

    /** Answers a request. An exception is answered 500. */
    public interface Handler {
        Response handle(Request request) throws IOException;
    }

    /** A connection: what it waits for and until when. */
    private static final class Connection {
        final Socket socket;
        final long acceptedAt;
        /** Until when its current step may take (System.nanoTime()). */
        volatile long deadline;
        volatile boolean readingHead = true;

        Connection(Socket socket, long acceptedAt, long deadline) {
            this.socket = socket;
            this.acceptedAt = acceptedAt;
            this.deadline = deadline;
        }

        void close() {
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }

    private final String name;
    private final ServerSocket listener;
    private final Handler handler;
    private final Limits limits;
    private final Set<Connection> open = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService reaper;
    private final Thread acceptor;
    private volatile boolean closed;

    private EndpointServer(String name, ServerSocket listener, Handler handler, Limits limits) {
        this.name = name;
        this.listener = listener;
        this.handler = handler;
        this.limits = limits;
        this.reaper = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, name + "-reaper", 0));
        this.acceptor = daemon(this::accept, name + "-accept", 0);
    }

    /**
     * Listens on {@code address} and serves {@code handler}, over TLS when {@code tls} is not null.
     *
     * @param name names the threads and the log lines ("metrics", "health")
     */
    public static EndpointServer start(String name, InetSocketAddress address, SSLContext tls, Handler handler, Limits limits) throws IOException {
        ServerSocket listener;
        if (tls == null) {
            listener = new ServerSocket();
        } else {
            SSLServerSocket secure = (SSLServerSocket) tls.getServerSocketFactory().createServerSocket();
            secure.setSSLParameters(ServingCertificate.serverParameters(secure.getSSLParameters()));
            listener = secure;
        }
        try {
            listener.setReuseAddress(true);
            listener.bind(address, 128);
        } catch (IOException e) {
            listener.close();
            throw e;
        }
        EndpointServer server = new EndpointServer(name, listener, handler, limits);
        long tick = Math.max(50, Math.min(1000, limits.readTimeout().toMillis() / 4));
        server.reaper.scheduleWithFixedDelay(server::reap, tick, tick, TimeUnit.MILLISECONDS);
        server.acceptor.start();
        return server;
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** Connections open now (tests). */
    int openConnections() {
        return open.size();
    }

    private static Thread daemon(Runnable r, String name, long stack) {
        Thread t = new Thread(null, r, name, stack);
        t.setDaemon(true);
        return t;
    }

    private void accept() {
        while (!closed) {
            Socket socket;
            try {
                socket = listener.accept();
            } catch (IOException e) {
                if (!closed) {
                    LOG.warn("{} server: accept failed: {}", name, e.getMessage());
                    pause(); // e.g. out of file descriptors: not a busy loop
                }
                continue;
            }
            long now = System.nanoTime();
            Connection c = new Connection(socket, now, now + limits.readTimeout().toNanos());
            if (open.size() >= limits.maxConnections() && !evictSlowest()) {
                c.close(); // every connection is being answered: this one waits for none of them
                continue;
            }
            open.add(c);
            try {
                socket.setSoTimeout((int) Math.max(1, limits.readTimeout().toMillis()));
                daemon(() -> serve(c), name + "-conn", STACK_BYTES).start();
            } catch (IOException | RuntimeException | OutOfMemoryError e) {
                open.remove(c);
                c.close();
                LOG.warn("{} server: cannot serve a connection: {}", name, e.toString());
            }
        }
    }

    private static void pause() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Closes the connection that has waited longest for its request head; false when none is waiting for one. */
    private boolean evictSlowest() {
        Connection slowest = open.stream().filter(c -> c.readingHead).min(Comparator.comparingLong(c -> c.acceptedAt)).orElse(null);
        if (slowest == null) {
            return false;
        }
        open.remove(slowest);
        slowest.close();
        return true;
    }

    private void reap() {
        long now = System.nanoTime();
        for (Connection c : open) {
            if (now - c.deadline > 0) {
                open.remove(c);
                c.close();
            }
        }
    }

    private void serve(Connection c) {
        try (Socket socket = c.socket) {
            InputStream in = new BufferedInputStream(socket.getInputStream());
            Response response;
            Request request = null;
            try {
                request = read(in);
                c.readingHead = false;
                c.deadline = System.nanoTime() + limits.writeTimeout().toNanos();
                response = request == null ? Response.text(400, "malformed request\n") : answer(request);
            } catch (HeadTooLarge e) {
                response = Response.text(431, "request head larger than " + limits.maxHeadBytes() + " bytes\n");
            }
            write(socket.getOutputStream(), response, request != null && request.method().equals("HEAD"));
            drain(socket);
        } catch (IOException e) {
            // timed out, closed by the reaper or by the client: nothing to answer
            LOG.debug("{} server: connection ended: {}", name, e.toString());
        } finally {
            open.remove(c);
        }
    }

    /**
     * Reads what the client sent beyond the request head (a body, a pipelined request; at most 64 KiB, for at most
     * half a second) before the close, which would otherwise reset the connection and could lose the answer. Plain
     * connections only: a TLS socket cannot half-close.
     */
    private static void drain(Socket socket) throws IOException {
        if (socket instanceof javax.net.ssl.SSLSocket) {
            return;
        }
        socket.shutdownOutput();
        socket.setSoTimeout(500);
        InputStream in = socket.getInputStream();
        byte[] skip = new byte[8192];
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
        for (int total = 0, n; total < 64 * 1024 && System.nanoTime() - until < 0 && (n = in.read(skip)) >= 0; total += n) {
            // discarded
        }
    }

    private Response answer(Request request) {
        try {
            Response r = handler.handle(request);
            return r == null ? Response.text(404, "not found\n") : r;
        } catch (IOException | RuntimeException e) {
            LOG.warn("{} server: {} {} failed: {}", name, request.method(), request.path(), e.toString());
            return Response.text(500, "internal error\n");
        }
    }

    private static final class HeadTooLarge extends IOException {
        HeadTooLarge() {
            super("request head too large");
        }
    }

    /** The request head, or null when it is not HTTP/1.x or its target is not a plain path. */
    private Request read(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream(512);
        int tail = 0; // the last four bytes read
        do {
            int b = in.read();
            if (b < 0) {
                throw new SocketException("closed before the end of the request head");
            }
            if (head.size() >= limits.maxHeadBytes()) {
                throw new HeadTooLarge();
            }
            head.write(b);
            tail = (tail << 8) | b;
        } while (tail != 0x0d0a0d0a && (tail & 0xffff) != 0x0a0a); // "\r\n\r\n", or a bare "\n\n"
        String[] lines = head.toString(StandardCharsets.ISO_8859_1).split("\r?\n");
        String[] requestLine = lines[0].split(" ");
        if (requestLine.length != 3 || !requestLine[2].startsWith("HTTP/1.") || requestLine[0].isEmpty()) {
            return null;
        }
        URI target;
        try {
            target = new URI(requestLine[1]);
        } catch (URISyntaxException e) {
            return null;
        }
        String path = target.getPath(); // decoded
        if (path == null || !path.startsWith("/") || path.contains("//") || java.util.Arrays.stream(path.split("/")).anyMatch(x -> x.equals(".") || x.equals(".."))) {
            return null; // "/metrics/../decisions/x/y" is not authorized as one path and served as another
        }
        Map<String, List<String>> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.computeIfAbsent(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), k -> new ArrayList<>())
                        .add(lines[i].substring(colon + 1).trim());
            }
        }
        return new Request(requestLine[0], path, target.getRawQuery(), headers);
    }

    private static void write(OutputStream out, Response r, boolean head) throws IOException {
        StringBuilder text = new StringBuilder("HTTP/1.1 ").append(r.status()).append(' ').append(reason(r.status())).append("\r\n");
        r.headers().forEach((k, v) -> {
            if (!k.equalsIgnoreCase("Content-Length") && !k.equalsIgnoreCase("Connection") && !k.equalsIgnoreCase("Transfer-Encoding")) {
                text.append(k).append(": ").append(v).append("\r\n"); // those are this server's
            }
        });
        text.append("Content-Length: ").append(r.body().length).append("\r\nConnection: close\r\n\r\n");
        out.write(text.toString().getBytes(StandardCharsets.ISO_8859_1));
        if (!head) {
            out.write(r.body());
        }
        out.flush();
    }

    private static String reason(int status) {
        return switch (status) {
            case 200 -> "OK";
            case 400 -> "Bad Request";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            case 431 -> "Request Header Fields Too Large";
            case 500 -> "Internal Server Error";
            case 503 -> "Service Unavailable";
            default -> "Status";
        };
    }

    /** Whether the listening socket is closed: a test cannot tell by connecting, since a parallel test may bind the freed port. */
    boolean isClosed() {
        return listener.isClosed();
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing
        }
        reaper.shutdownNow();
        open.forEach(Connection::close);
        open.clear();
    }
}
