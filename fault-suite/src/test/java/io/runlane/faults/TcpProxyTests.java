package io.runlane.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The fault suite's proxy behaves like a partition: a cut link delivers nothing and loses nothing. */
class TcpProxyTests {

    private ServerSocket echo;

    private TcpProxy proxy;

    @BeforeEach
    void startEchoServerBehindProxy() throws IOException {
        echo = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread server = new Thread(this::echoUntilClosed, "echo");
        server.setDaemon(true);
        server.start();
        proxy = new TcpProxy("test", "127.0.0.1", echo.getLocalPort());
    }

    @AfterEach
    void stop() throws IOException {
        proxy.close();
        echo.close();
    }

    @Test
    void cutLinkDeliversNothingUntilHealedThenEverything() throws IOException {
        try (Socket client = new Socket("127.0.0.1", proxy.port())) {
            client.setSoTimeout(2000);
            OutputStream out = client.getOutputStream();
            InputStream in = client.getInputStream();
            out.write('a');
            assertThat(in.read()).isEqualTo('a');

            proxy.cut();
            out.write('b');
            client.setSoTimeout(500);
            assertThatExceptionOfType(SocketTimeoutException.class).isThrownBy(in::read);

            proxy.heal();
            client.setSoTimeout(5000);
            assertThat(in.read()).isEqualTo('b');
        }
    }

    @Test
    void connectionOpenedDuringACutReachesTheServerOnlyAfterTheHeal() throws IOException {
        proxy.cut();
        try (Socket client = new Socket("127.0.0.1", proxy.port())) {
            client.getOutputStream().write('c');
            client.setSoTimeout(500);
            assertThatExceptionOfType(SocketTimeoutException.class)
                    .isThrownBy(() -> client.getInputStream().read());

            proxy.heal();
            client.setSoTimeout(5000);
            assertThat(client.getInputStream().read()).isEqualTo('c');
        }
    }

    private void echoUntilClosed() {
        while (!echo.isClosed()) {
            try {
                Socket socket = echo.accept();
                Thread pipe = new Thread(() -> echo(socket), "echo-connection");
                pipe.setDaemon(true);
                pipe.start();
            } catch (IOException ex) {
                return;
            }
        }
    }

    private static void echo(Socket socket) {
        try (socket;
                InputStream in = socket.getInputStream();
                OutputStream out = socket.getOutputStream()) {
            int b;
            while ((b = in.read()) >= 0) {
                out.write(b);
                out.flush();
            }
        } catch (IOException ex) {
            // The client went away.
        }
    }
}
