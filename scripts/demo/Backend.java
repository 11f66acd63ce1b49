import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/** The quick start's backend: answers every request on HOST:PORT (run with `java Backend.java`). */
public class Backend {
  public static void main(String[] args) throws IOException {
    String host = args.length > 1 ? args[0] : "127.0.0.1";
    int port = Integer.parseInt(args.length > 1 ? args[1] : args[0]);
    HttpServer server = HttpServer.create(new InetSocketAddress(host, port), 0);
    server.createContext(
        "/",
        exchange -> {
          byte[] body =
              ("hello from the backend on node demo-node, port " + port + "\n")
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
