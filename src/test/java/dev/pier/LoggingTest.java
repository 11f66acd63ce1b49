package dev.pier;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.OutputStreamAppender;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The JSON log lines (the shipped in-cluster format) carry every argument of a message. */
class LoggingTest {

  /** One event as the shipped logback-json.xml writes it. */
  private static JsonObject jsonLine(Level level, String message, Object... args) throws Exception {
    LoggerContext context = new LoggerContext();
    context.setMDCAdapter(new ch.qos.logback.classic.util.LogbackMDCAdapter());
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    configurator.doConfigure(LoggingTest.class.getResource("/logback-json.xml"));
    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    @SuppressWarnings("unchecked")
    OutputStreamAppender<ILoggingEvent> out =
        (OutputStreamAppender<ILoggingEvent>) root.getAppender("STDOUT");
    Logger logger = context.getLogger("dev.pier.reconcile.ServiceReconciler");
    LoggingEvent event = new LoggingEvent(Logger.FQCN, logger, level, message, null, args);
    String line = new String(out.getEncoder().encode(event), StandardCharsets.UTF_8).trim();
    context.stop();
    return new JsonObject(line);
  }

  private static LoggerContext shipped() throws Exception {
    LoggerContext context = new LoggerContext();
    context.setMDCAdapter(new ch.qos.logback.classic.util.LogbackMDCAdapter());
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    configurator.doConfigure(LoggingTest.class.getResource("/logback.xml"));
    return context;
  }

  private static String consoleTarget(LoggerContext context) {
    return ((ConsoleAppender<?>)
            context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).getAppender("STDOUT"))
        .getTarget();
  }

  /**
   * A command's output is what a script reads: the libraries' warnings (Netty's on a machine
   * without a hardware address) stay out of it, those of loggers with a level of their own too.
   */
  @Test
  void aCommandLogsNothingAndNeverToItsOutput() throws Exception {
    LoggerContext context = shipped();
    Logging.quiet(context, null);
    assertThat(context.getLogger("io.netty.util.internal.MacAddressUtil").isWarnEnabled())
        .isFalse();
    assertThat(context.getLogger("io.fabric8.kubernetes").isWarnEnabled()).isFalse();
    assertThat(context.getLogger("dev.pier.cli").isErrorEnabled()).isFalse();
    assertThat(consoleTarget(context)).isEqualTo("System.err");
    context.stop();
  }

  /** With PIER_LOG_LEVEL the libraries log as asked, on standard error. */
  @Test
  void aCommandLogsAsAskedOnStandardError() throws Exception {
    LoggerContext context = shipped();
    Logging.quiet(context, "DEBUG");
    assertThat(context.getLogger("io.netty.util.internal.MacAddressUtil").isWarnEnabled()).isTrue();
    assertThat(consoleTarget(context)).isEqualTo("System.err");
    context.stop();
  }

  @Test
  void aMessageWithArgumentsIsWrittenWithEveryArgument() throws Exception {
    JsonObject line =
        jsonLine(
            Level.WARN,
            "{}: sync failed, retrying with backoff: {}",
            "Service kubernetes/shop/web",
            "provider timed out");
    assertThat(line.encode())
        .contains(
            "Service kubernetes/shop/web: sync failed, retrying with backoff: provider timed out");
    assertThat(line.getString("level")).isEqualTo("WARN");
    assertThat(line.getString("loggerName")).isEqualTo("dev.pier.reconcile.ServiceReconciler");
  }
}
