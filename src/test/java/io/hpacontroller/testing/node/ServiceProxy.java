package io.hpacontroller.testing.node;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code kubernetes} Service of a node without kube-proxy: a TCP forwarder from the Service's address
 * and port (held by the node's bridge, so pods reach it through their route to the Service range) to
 * kube-apiserver on loopback. Bytes only: TLS is between the pod and the API server, whose certificate
 * names the Service's address.
 */
final class ServiceProxy implements AutoCloseable {

    private final ServerSocket server;
    private final int target;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();

    private ServiceProxy(ServerSocket server, int target) {
        this.server = server;
        this.target = target;
    }

    static ServiceProxy start(String address, int port, int apiServerPort) {
        try {
            ServerSocket server = new ServerSocket();
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(InetAddress.getByName(address), port), 64);
            ServiceProxy proxy = new ServiceProxy(server, apiServerPort);
            thread("service-proxy-accept", proxy::accept).start();
            return proxy;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on " + address + ":" + port + " for the kubernetes Service", e);
        }
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket(InetAddress.getLoopbackAddress(), target);
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                open.add(client);
                open.add(upstream);
                thread("service-proxy-up", () -> pump(client, upstream)).start();
                thread("service-proxy-down", () -> pump(upstream, client)).start();
            } catch (IOException e) {
                // closed, or the API server is restarting: the client sees its connection refused
            }
        }
    }

    private void pump(Socket from, Socket to) {
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            in.transferTo(out);
        } catch (IOException e) {
            // one side went away
        } finally {
            close(from);
            close(to);
        }
    }

    private void close(Socket s) {
        open.remove(s);
        try {
            s.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    private static Thread thread(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        return t;
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            // closing anyway
        }
        open.forEach(this::close);
    }
}
