package dev.pier;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.pier.boot.PierOptions;
import dev.pier.config.ConfigLoader;
import dev.pier.config.ConfigValues;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** How a failed start is reported: a configuration problem as one line, no stack trace. */
class MainTest {
  private final ListAppender<ILoggingEvent> events = new ListAppender<>();

  private Logger logger() {
    Logger log = new LoggerContext().getLogger("main-test");
    events.start();
    log.addAppender(events);
    return log;
  }

  @Test
  void aConfigurationProblemFoundWhileStartingIsOneLineWithoutAStackTrace(@TempDir Path dir)
      throws Exception {
    Path f =
        Files.writeString(
            dir.resolve("pier.yaml"),
            """
            cluster:
              name: solo
            clusters:
              - name: east
                kubeconfig: a
            """);
    ConfigValues values = new ConfigLoader(PierOptions.ALL, Map.<String, String>of()::get).load(f);
    Throwable failure =
        Pier.start(values)
            .toCompletionStage()
            .toCompletableFuture()
            .handle((p, e) -> e)
            .get(30, TimeUnit.SECONDS);
    assertThat(Main.reportStartFailure(failure, logger())).isEqualTo(2);
    assertThat(events.list).hasSize(1);
    ILoggingEvent e = events.list.get(0);
    // The message itself, not only its formatted form: the JSON log format leaves out arguments.
    assertThat(e.getFormattedMessage())
        .startsWith("Pier failed to start: configuration error: " + f + ": cluster.name")
        .doesNotContain("\n");
    assertThat(e.getThrowableProxy()).isNull();
  }

  @Test
  void aConfigurationProblemInsideAnotherExceptionIsOneLineToo() {
    RuntimeException wrapped =
        new RuntimeException(
            "outer", new dev.pier.config.ConfigException("pier.yaml: local.pools: bad"));
    assertThat(Main.reportStartFailure(wrapped, logger())).isEqualTo(2);
    assertThat(events.list.get(0).getFormattedMessage())
        .isEqualTo("Pier failed to start: configuration error: pier.yaml: local.pools: bad");
    assertThat(events.list.get(0).getThrowableProxy()).isNull();
  }

  @Test
  void anythingElseKeepsItsStackTrace() {
    assertThat(Main.reportStartFailure(new IllegalStateException("boom"), logger())).isEqualTo(1);
    assertThat(events.list.get(0).getThrowableProxy()).isNotNull();
  }
}
