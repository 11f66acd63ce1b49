package dev.pier;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.joran.spi.JoranException;
import java.net.URL;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Switches the log output between the text format (logback.xml) and JSON lines. */
final class Logging {
  private Logging() {}

  /**
   * For the operator's commands: their output is the command's, so the libraries log nothing,
   * unless {@code PIER_LOG_LEVEL} asks for more, and what they log goes to standard error, never
   * into the output a script reads ({@code pier status -o json}).
   */
  static void quiet() {
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
      quiet(context, System.getenv("PIER_LOG_LEVEL"));
    }
  }

  static void quiet(LoggerContext context, String logLevel) {
    if (logLevel == null) {
      // Loggers with a level of their own (io.netty, io.fabric8) do not follow the root's.
      for (ch.qos.logback.classic.Logger l : context.getLoggerList()) {
        if (l.getLevel() != null) {
          l.setLevel(Level.OFF);
        }
      }
      context.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(Level.OFF);
    }
    context
        .getLogger(Logger.ROOT_LOGGER_NAME)
        .iteratorForAppenders()
        .forEachRemaining(
            a -> {
              if (a instanceof ConsoleAppender<?> console) {
                console.stop();
                console.setTarget("System.err");
                console.start();
              }
            });
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
