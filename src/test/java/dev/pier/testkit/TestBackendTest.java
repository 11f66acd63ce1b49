package dev.pier.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

class TestBackendTest {

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void answersHelloAndHealthAndCountsThemApart() throws Exception {
    try (TestBackend backend = TestBackend.start("b1", "127.0.0.1", 0)) {
      String base = "http://127.0.0.1:" + backend.port();

      HttpResponse<String> hello = get(base + "/");
      HttpResponse<String> health = get(base + "/healthz");
      HttpResponse<String> missing = get(base + "/nope");

      assertThat(hello.statusCode()).isEqualTo(200);
      assertThat(hello.body()).isEqualTo("hello from b1\n");
      assertThat(hello.headers().firstValue("X-Backend")).contains("b1");
      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(missing.statusCode()).isEqualTo(404);
      assertThat(backend.requestCount()).isEqualTo(2);
      assertThat(backend.healthCheckCount()).isEqualTo(1);
    }
  }

  @Test
  void bindsToOtherLoopbackAddresses() throws Exception {
    try (TestBackend backend = TestBackend.start("b2", "127.0.55.2", 0)) {
      assertThat(backend.host()).isEqualTo("127.0.55.2");
      assertThat(get("http://127.0.55.2:" + backend.port() + "/").body())
          .isEqualTo("hello from b2\n");
    }
  }

  private HttpResponse<String> get(String url) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
  }
}
