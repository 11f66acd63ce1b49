package dev.pier.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A minimal DNS client over UDP, in process, for tests that send thousands of queries: asks for a
 * name's A records (recursion desired), optionally with an EDNS Client Subnet option (RFC 7871),
 * and returns the A addresses of the answer section. One socket per call; a reply to another query
 * id is ignored. A query without an answer in time is sent again, as a stub resolver does (its
 * {@code attempts}): a server may drop a datagram under load, and one lost datagram is no wrong
 * answer.
 */
public final class DnsQuery implements AutoCloseable {
  private static final int TYPE_A = 1;
  private static final int TYPE_OPT = 41;
  private static final int OPTION_ECS = 8;
  private static final int ATTEMPTS = 3;

  private final DatagramSocket socket;
  private final InetSocketAddress server;

  /** A client that reuses one socket for many queries to {@code server}. */
  public DnsQuery(InetSocketAddress server, Duration timeout) {
    this.server = server;
    try {
      socket = new DatagramSocket();
      socket.setSoTimeout((int) timeout.toMillis());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** One query on a socket of its own. */
  public static List<String> ask(
      InetSocketAddress server, String name, String clientSubnet, Duration timeout) {
    try (DnsQuery q = new DnsQuery(server, timeout)) {
      return q.a(name, clientSubnet);
    }
  }

  /**
   * The A addresses answering {@code name}.
   *
   * @param clientSubnet an IPv4 {@code address/prefix} sent as EDNS Client Subnet, or null
   */
  public List<String> a(String name, String clientSubnet) {
    SocketTimeoutException unanswered = null;
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      try {
        return once(name, clientSubnet);
      } catch (SocketTimeoutException e) {
        unanswered = e;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    throw new UncheckedIOException(
        "no answer from " + server + " for " + name + " in " + ATTEMPTS + " attempts", unanswered);
  }

  private List<String> once(String name, String clientSubnet) throws IOException {
    int id = ThreadLocalRandom.current().nextInt(1 << 16);
    byte[] query = query(id, name, clientSubnet);
    socket.send(new DatagramPacket(query, query.length, server));
    byte[] buf = new byte[4096];
    while (true) {
      DatagramPacket p = new DatagramPacket(buf, buf.length);
      socket.receive(p);
      ByteBuffer r = ByteBuffer.wrap(buf, 0, p.getLength());
      if ((r.getShort(0) & 0xffff) == id) {
        return answers(r);
      }
    }
  }

  private static byte[] query(int id, String name, String clientSubnet) {
    ByteBuffer b = ByteBuffer.allocate(512);
    b.putShort((short) id).putShort((short) 0x0100); // RD
    b.putShort((short) 1).putShort((short) 0).putShort((short) 0).putShort((short) 1);
    for (String label : name.replaceAll("\\.$", "").split("\\.")) {
      byte[] l = label.getBytes(StandardCharsets.US_ASCII);
      b.put((byte) l.length).put(l);
    }
    b.put((byte) 0).putShort((short) TYPE_A).putShort((short) 1);
    // OPT: root name, type, UDP size, extended rcode/version/flags, options.
    b.put((byte) 0).putShort((short) TYPE_OPT).putShort((short) 1232).putInt(0);
    if (clientSubnet == null) {
      b.putShort((short) 0);
    } else {
      String[] parts = clientSubnet.split("/");
      int prefix = Integer.parseInt(parts[1]);
      byte[] addr;
      try {
        addr = InetAddress.getByName(parts[0]).getAddress();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      int bytes = (prefix + 7) / 8;
      b.putShort((short) (4 + 4 + bytes));
      b.putShort((short) OPTION_ECS).putShort((short) (4 + bytes));
      b.putShort((short) 1).put((byte) prefix).put((byte) 0).put(addr, 0, bytes);
    }
    byte[] out = new byte[b.position()];
    b.flip().get(out);
    return out;
  }

  private static List<String> answers(ByteBuffer r) {
    int qd = r.getShort(4) & 0xffff;
    int an = r.getShort(6) & 0xffff;
    r.position(12);
    for (int i = 0; i < qd; i++) {
      skipName(r);
      r.position(r.position() + 4);
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < an; i++) {
      skipName(r);
      int type = r.getShort() & 0xffff;
      r.position(r.position() + 6); // class, ttl
      int len = r.getShort() & 0xffff;
      if (type == TYPE_A && len == 4) {
        out.add(
            (r.get() & 0xff)
                + "."
                + (r.get() & 0xff)
                + "."
                + (r.get() & 0xff)
                + "."
                + (r.get() & 0xff));
      } else {
        r.position(r.position() + len);
      }
    }
    return out;
  }

  private static void skipName(ByteBuffer r) {
    while (true) {
      int len = r.get() & 0xff;
      if (len == 0) {
        return;
      }
      if ((len & 0xc0) == 0xc0) {
        r.get();
        return;
      }
      r.position(r.position() + len);
    }
  }

  @Override
  public void close() {
    socket.close();
  }
}
