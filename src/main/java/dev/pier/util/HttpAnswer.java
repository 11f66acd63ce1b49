package dev.pier.util;

import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.RequestOptions;
import java.time.Duration;

/**
 * An answer of a cloud or DNS API, read to its end within its {@link AnswerLimit}.
 *
 * @param body never null; empty when the answer had none
 */
public record HttpAnswer(int statusCode, String statusMessage, MultiMap headers, Buffer body) {

  public String getHeader(String name) {
    return headers.get(name);
  }

  public String bodyAsString() {
    return body.toString();
  }

  /**
   * A client to a cloud or DNS API: the connect timeout and a pool of {@code maxConnections} (see
   * {@link ClientPools#of}). It follows no redirects ({@link #send} never asks it to): a redirect
   * would carry every header, the API token included, to whatever host it names.
   */
  public static HttpClient client(Vertx vertx, Duration connectTimeout, int maxConnections) {
    return vertx.createHttpClient(
        new HttpClientOptions()
            .setConnectTimeout((int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis())),
        ClientPools.of(maxConnections));
  }

  /**
   * Sends {@code request} with {@code body} (none when null), with Pier's user agent unless the
   * request names one, and reads the answer within {@code limit}.
   *
   * @param what the request, for errors: "Hetzner API GET /load_balancers"
   */
  public static Future<HttpAnswer> send(
      HttpClient client, RequestOptions request, Buffer body, AnswerLimit limit, String what) {
    MultiMap headers = request.getHeaders();
    if (headers == null || !headers.contains(HttpHeaders.USER_AGENT)) {
      request.putHeader(HttpHeaders.USER_AGENT, "pier");
    }
    request.setFollowRedirects(false);
    // The body is asked for in the callback that delivers the response: one hop later, the end
    // of a short answer may have passed.
    return client
        .request(request)
        .compose(
            r ->
                (body == null ? r.send() : r.send(body))
                    .compose(
                        response ->
                            limit
                                .read(response, what)
                                .map(
                                    b ->
                                        new HttpAnswer(
                                            response.statusCode(),
                                            response.statusMessage(),
                                            response.headers(),
                                            b))));
  }
}
