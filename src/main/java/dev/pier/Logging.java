package dev.pier;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.joran.spi.JoranException;
import java.net.URL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Switches the log output between the text format (logback.xml) and JSON lines. */
final class Logging {
  private Logging() {}

  /**
   * For the operator's commands: their output is the command's, so the libraries log nothing,
   * unless {@code PIER_LOG_LEVEL} asks for more.
   */
  static void quiet() {
    if (System.getenv("PIER_LOG_LEVEL") == null
        && LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
      context.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(ch.qos.logback.classic.Level.OFF);
    }
  }

  static void configure(String format) {
    if (!"json".equals(format)) {
      return;
    }
    if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
      return;
    }
    URL json = Logging.class.getResource("/logback-json.xml");
    context.reset();
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    try {
      configurator.doConfigure(json);
    } catch (JoranException e) {
      throw new IllegalStateException("cannot configure JSON logging", e);
    }
  }
}
