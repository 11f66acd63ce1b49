import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * The quick start's backend: answers every request on HOST:PORT (run with `java Backend.java HOST
 * PORT [WHERE]`), saying where it runs (default: node demo-node).
 */
public class Backend {
  public static void main(String[] args) throws IOException {
    String host = args.length > 1 ? args[0] : "127.0.0.1";
    int port = Integer.parseInt(args.length > 1 ? args[1] : args[0]);
    String where = args.length > 2 ? args[2] : "node demo-node";
    HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 0);
    server.createContext(
        "/",
        exchange -> {
          byte[] body =
              ("hello from the backend on " + where + ", port " + port + "\n")
                  .getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    server.start();
    System.out.println("backend listening on " + host + ":" + port);
  }
}
