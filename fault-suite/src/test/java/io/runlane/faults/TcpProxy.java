package io.runlane.faults;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A TCP proxy between one instance and PostgreSQL that can partition the link and slow it down.
 *
 * <p>Every accepted connection gets its own upstream connection and two pipes, one per direction. A pipe's reader
 * queues each chunk with the time it arrived; its writer forwards the chunk once the link's latency has passed and
 * while the link is not cut. Cutting therefore behaves like a network partition, not like a reset: both ends keep
 * their sockets, bytes sent meanwhile go nowhere, and no error reaches either side, so statements simply hang. Healing
 * delivers what was queued, as TCP would after a partition heals. A connection accepted while the link is cut waits
 * for the heal before it reaches PostgreSQL. If PostgreSQL cannot be reached the client's connection is closed.
 */
final class TcpProxy implements AutoCloseable {

    private final String name;

    private final InetSocketAddress upstream;

    private final ServerSocket server;

    private final ExecutorService threads;

    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

    private final Object link = new Object();

    private volatile boolean cut;

    private volatile long latencyNanos;

    private volatile boolean closed;

    TcpProxy(String name, String upstreamHost, int upstreamPort) throws IOException {
        this.name = name;
        this.upstream = new InetSocketAddress(upstreamHost, upstreamPort);
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.threads = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "proxy-" + name);
            thread.setDaemon(true);
            return thread;
        });
        threads.execute(this::acceptUntilClosed);
    }

    int port() {
        return server.getLocalPort();
    }

    /** Stops all traffic on the link, both ways, without closing anything. */
    void cut() {
        cut = true;
    }

    /** Lets the traffic flow again, delivering what was sent during the cut. */
    void heal() {
        synchronized (link) {
            cut = false;
            link.notifyAll();
        }
    }

    /** Delays every chunk by {@code oneWay} in each direction, so a round trip takes twice as long more. */
    void latency(Duration oneWay) {
        latencyNanos = oneWay.toNanos();
    }

    boolean isCut() {
        return cut;
    }

    @Override
    public void close() {
        closed = true;
        heal();
        try {
            server.close();
        } catch (IOException ignored) {
            // Closing anyway.
        }
        sockets.forEach(TcpProxy::closeQuietly);
        threads.shutdownNow();
    }

    private void acceptUntilClosed() {
        while (!closed) {
            try {
                Socket client = server.accept();
                client.setTcpNoDelay(true);
                sockets.add(client);
                threads.execute(() -> connect(client));
            } catch (IOException ex) {
                if (!closed) {
                    System.err.println("proxy " + name + " accept failed: " + ex);
                }
            }
        }
    }

    private void connect(Socket client) {
        awaitLink();
        Socket server = new Socket();
        try {
            server.setTcpNoDelay(true);
            server.connect(upstream, 2000);
        } catch (IOException ex) {
            closeQuietly(client);
            closeQuietly(server);
            sockets.remove(client);
            return;
        }
        sockets.add(server);
        pipe(client, server);
        pipe(server, client);
    }

    private void pipe(Socket from, Socket to) {
        BlockingQueue<Chunk> chunks = new LinkedBlockingQueue<>();
        threads.execute(() -> read(from, to, chunks));
        threads.execute(() -> write(from, to, chunks));
    }

    private void read(Socket from, Socket to, BlockingQueue<Chunk> chunks) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                chunks.add(new Chunk(System.nanoTime(), Arrays.copyOf(buffer, n)));
            }
        } catch (IOException ex) {
            // The connection ended; the writer closes both sockets when it reaches the end marker.
        }
        chunks.add(Chunk.END);
    }

    private void write(Socket from, Socket to, BlockingQueue<Chunk> chunks) {
        try (OutputStream out = to.getOutputStream()) {
            while (true) {
                Chunk chunk = chunks.take();
                awaitLink();
                if (chunk == Chunk.END) {
                    break;
                }
                long due = chunk.arrivedNanos() + latencyNanos;
                long wait;
                while ((wait = due - System.nanoTime()) > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                awaitLink();
                out.write(chunk.bytes());
                out.flush();
            }
        } catch (IOException | InterruptedException ex) {
            // The other end is gone or the proxy closes: the connection ends.
        } finally {
            closeQuietly(from);
            closeQuietly(to);
            sockets.remove(from);
            sockets.remove(to);
        }
    }

    private void awaitLink() {
        synchronized (link) {
            while (cut && !closed) {
                try {
                    link.wait(100);
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // Already closed.
        }
    }

    private record Chunk(long arrivedNanos, byte[] bytes) {
        static final Chunk END = new Chunk(0, new byte[0]);
    }
}
