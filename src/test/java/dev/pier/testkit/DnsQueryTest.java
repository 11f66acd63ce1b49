package dev.pier.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The tests' DNS client against a server on loopback that drops the first queries it gets, as a
 * loaded server may: a dropped datagram is asked again, as a stub resolver does.
 */
class DnsQueryTest {
  private static final Duration TIMEOUT = Duration.ofMillis(300);

  @Test
  void aDroppedQueryIsAskedAgain() throws Exception {
    try (DroppingServer server = new DroppingServer(2)) {
      assertThat(DnsQuery.ask(server.address(), "web.example.", null, TIMEOUT))
          .containsExactly("192.0.2.7");
      assertThat(server.received.get()).isEqualTo(3);
    }
  }

  @Test
  void aServerThatNeverAnswersFailsNamingItAfterThreeAttempts() throws Exception {
    try (DroppingServer server = new DroppingServer(Integer.MAX_VALUE)) {
      assertThatThrownBy(() -> DnsQuery.ask(server.address(), "web.example.", null, TIMEOUT))
          .isInstanceOf(UncheckedIOException.class)
          .hasMessageContaining("no answer from")
          .hasMessageContaining("web.example.")
          .hasMessageContaining("3 attempts");
      assertThat(server.received.get()).isEqualTo(3);
    }
  }

  /** Answers every query for A after dropping the first {@code drops}, with 192.0.2.7. */
  private static final class DroppingServer implements AutoCloseable {
    final AtomicInteger received = new AtomicInteger();
    private final DatagramSocket socket;
    private final Thread thread;

    DroppingServer(int drops) throws Exception {
      socket = new DatagramSocket(0, InetAddress.getLoopbackAddress());
      thread =
          new Thread(
              () -> {
                byte[] buf = new byte[512];
                while (!socket.isClosed()) {
                  try {
                    DatagramPacket p = new DatagramPacket(buf, buf.length);
                    socket.receive(p);
                    if (received.incrementAndGet() > drops) {
                      byte[] answer = answer(Arrays.copyOf(buf, p.getLength()));
                      socket.send(new DatagramPacket(answer, answer.length, p.getSocketAddress()));
                    }
                  } catch (Exception closed) {
                    return;
                  }
                }
              });
      thread.start();
    }

    InetSocketAddress address() {
      return new InetSocketAddress(InetAddress.getLoopbackAddress(), socket.getLocalPort());
    }

    /** The query's id and question, with one A record for it. */
    private static byte[] answer(byte[] query) {
      int end = 12;
      while (query[end] != 0) {
        end += (query[end] & 0xff) + 1;
      }
      end += 1 + 4;
      ByteBuffer b = ByteBuffer.allocate(end + 16);
      b.put(query, 0, 2).putShort((short) 0x8180);
      b.putShort((short) 1).putShort((short) 1).putShort((short) 0).putShort((short) 0);
      b.put(query, 12, end - 12);
      b.putShort((short) 0xc00c).putShort((short) 1).putShort((short) 1).putInt(0);
      b.putShort((short) 4).put(new byte[] {(byte) 192, 0, 2, 7});
      return Arrays.copyOf(b.array(), b.position());
    }

    @Override
    public void close() throws Exception {
      socket.close();
      thread.join(5_000);
    }
  }
}
