package dev.pier.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * Real traffic through a load balancer, for assertions. Every request opens its own TCP connection
 * (HTTP/1.0), so that a load balancer's choice of backend is made per request.
 */
public final class Traffic {
  private Traffic() {}

  /** The body of {@code GET http://ip:port/}, or null when the request failed. */
  public static String get(String ip, int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(ip, port), 2000);
      s.setSoTimeout(3000);
      s.getOutputStream()
          .write(
              ("GET / HTTP/1.0\r\nHost: " + ip + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().flush();
      InputStream in = s.getInputStream();
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      in.transferTo(out);
      String response = out.toString(StandardCharsets.UTF_8);
      int headerEnd = response.indexOf("\r\n\r\n");
      if (!response.startsWith("HTTP/1.") || headerEnd < 0 || !response.contains(" 200 ")) {
        return null;
      }
      return response.substring(headerEnd + 4);
    } catch (IOException e) {
      return null;
    }
  }

  /** True when nothing listens on ip:port (the connection is refused). */
  public static boolean refused(String ip, int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(ip, port), 2000);
      return false;
    } catch (ConnectException e) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
