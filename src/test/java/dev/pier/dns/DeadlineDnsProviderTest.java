package dev.pier.dns;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every DNS call gets a total deadline; a call past it fails as a retryable DnsException. */
class DeadlineDnsProviderTest {
  private Vertx vertx;

  /** A DNS server that accepts every request and never answers. */
  private static final class Silent implements DnsProvider {
    @Override
    public String name() {
      return "silent";
    }

    @Override
    public Future<List<DnsZone>> zones() {
      return Promise.<List<DnsZone>>promise().future();
    }

    @Override
    public Future<Optional<DnsZone>> zone(String id) {
      return Promise.<Optional<DnsZone>>promise().future();
    }

    @Override
    public Future<DnsZone> createZone(String name) {
      return Promise.<DnsZone>promise().future();
    }

    @Override
    public Future<List<RecordSet>> recordSets(DnsZone zone, String name) {
      return Promise.<List<RecordSet>>promise().future();
    }

    @Override
    public Future<List<RecordSet>> recordSets(DnsZone zone) {
      return Promise.<List<RecordSet>>promise().future();
    }

    @Override
    public Future<Void> apply(DnsZone zone, ChangeSet changes) {
      return Promise.<Void>promise().future();
    }
  }

  @BeforeEach
  void setUp() {
    vertx = Vertx.vertx();
  }

  @AfterEach
  void tearDown() {
    vertx.close().await();
  }

  private static Throwable failureOf(Future<?> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().handle((v, t) -> t).get(5, TimeUnit.SECONDS);
  }

  @Test
  void aCallThatNeverAnswersFailsRetryablyAtTheDeadline() throws Exception {
    DnsProvider dns = new DeadlineDnsProvider(new Silent(), vertx, Duration.ofMillis(200));
    DnsZone zone = new DnsZone("z1", "example.org.");
    Throwable e = failureOf(dns.apply(zone, null));
    assertThat(e)
        .isInstanceOf(DnsException.class)
        .hasMessage(
            "DNS call silent apply to example.org. did not finish within its deadline of 200ms");
    assertThat(((DnsException) e).retryable()).isTrue();
    for (Future<?> f :
        List.of(
            dns.zones(),
            dns.zone("z1"),
            dns.createZone("example.org."),
            dns.recordSets(zone, "a.example.org."),
            dns.recordSets(zone))) {
      assertThat(failureOf(f)).isInstanceOf(DnsException.class);
    }
  }
}
