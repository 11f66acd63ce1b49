package dev.pier.testkit;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.stream.Collectors;
import org.slf4j.LoggerFactory;

/**
 * The lines one class of an in-process Pier logs, debug lines included, from now until closed: the
 * log a {@link PierSaw.LogMark} reads when Pier runs in the test's JVM.
 */
public final class CapturedLog implements AutoCloseable {
  private final Logger logger;
  private final Level before;
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

  private CapturedLog(Class<?> owner) {
    logger = (Logger) LoggerFactory.getLogger(owner);
    before = logger.getLevel();
    appender.setContext(logger.getLoggerContext());
    appender.start();
    logger.addAppender(appender);
    logger.setLevel(Level.DEBUG);
  }

  /** Captures what {@code owner} logs at debug level and above. */
  public static CapturedLog of(Class<?> owner) {
    return new CapturedLog(owner);
  }

  /** The lines so far, one formatted message a line. */
  public String text() {
    // The appender adds under its own lock: read under it too.
    synchronized (appender) {
      return appender.list.stream()
          .map(e -> e.getLevel() + " " + e.getFormattedMessage() + "\n")
          .collect(Collectors.joining());
    }
  }

  @Override
  public void close() {
    logger.detachAppender(appender);
    logger.setLevel(before);
    appender.stop();
  }
}
