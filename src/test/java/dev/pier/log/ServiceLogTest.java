package dev.pier.log;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.pier.model.ServiceRef;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class ServiceLogTest {
  private static final ServiceRef REF = new ServiceRef("c1", "ns", "web", "uid-1");

  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
  private Logger logger;

  @BeforeEach
  void attach() {
    logger = (Logger) LoggerFactory.getLogger(ServiceLogTest.class);
    appender.setContext(logger.getLoggerContext());
    appender.start();
    logger.addAppender(appender);
  }

  @AfterEach
  void detach() {
    logger.detachAppender(appender);
  }

  private static Map<String, Object> fields(ILoggingEvent e) {
    return e.getKeyValuePairs().stream().collect(Collectors.toMap(kv -> kv.key, kv -> kv.value));
  }

  @Test
  void textLinesStartWithTheServiceAndJsonLinesCarryItsFields() {
    ServiceLog.of(ServiceLogTest.class).info(REF, "ensured {} in {} ms", "[10.0.0.1]", 5);

    ILoggingEvent e = appender.list.get(0);
    assertThat(e.getFormattedMessage()).isEqualTo("Service c1/ns/web: ensured [10.0.0.1] in 5 ms");
    assertThat(fields(e))
        .containsEntry("cluster", "c1")
        .containsEntry("namespace", "ns")
        .containsEntry("name", "web")
        .containsEntry("uid", "uid-1")
        .containsEntry("key", "c1/ns/web");

    JsonEncoder json = new JsonEncoder();
    json.setContext((LoggerContext) LoggerFactory.getILoggerFactory());
    json.start();
    String line = new String(json.encode(e), StandardCharsets.UTF_8);
    assertThat(line).contains("\"cluster\"").contains("\"c1\"").contains("\"key\"");
  }

  @Test
  void aTrailingThrowableIsTheCauseAndAnUnknownUidIsLeftOut() {
    ServiceLog.of(ServiceLogTest.class)
        .warn(
            new ServiceRef("c1", "ns", "web", null),
            "failed: {}",
            "boom",
            new IllegalStateException("x"));

    ILoggingEvent e = appender.list.get(0);
    assertThat(e.getFormattedMessage()).isEqualTo("Service c1/ns/web: failed: boom");
    assertThat(e.getThrowableProxy().getClassName())
        .isEqualTo(IllegalStateException.class.getName());
    assertThat(fields(e)).doesNotContainKey("uid");
  }
}
