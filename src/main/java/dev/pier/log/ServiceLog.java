package dev.pier.log;

import dev.pier.model.ServiceRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * Log lines about one Service: text logs start with {@code Service <cluster>/<namespace>/<name>:},
 * JSON logs also carry the fields {@code cluster}, {@code namespace}, {@code name}, {@code uid} and
 * {@code key}. Key-value pairs rather than the MDC, because a run hops between threads and
 * callbacks.
 */
public final class ServiceLog {
  private final Logger log;

  private ServiceLog(Logger log) {
    this.log = log;
  }

  public static ServiceLog of(Class<?> owner) {
    return new ServiceLog(LoggerFactory.getLogger(owner));
  }

  public void debug(ServiceRef ref, String format, Object... args) {
    emit(Level.DEBUG, ref, format, args);
  }

  public void info(ServiceRef ref, String format, Object... args) {
    emit(Level.INFO, ref, format, args);
  }

  public void warn(ServiceRef ref, String format, Object... args) {
    emit(Level.WARN, ref, format, args);
  }

  public void error(ServiceRef ref, String format, Object... args) {
    emit(Level.ERROR, ref, format, args);
  }

  private void emit(Level level, ServiceRef ref, String format, Object[] args) {
    if (!log.isEnabledForLevel(level)) {
      return;
    }
    LoggingEventBuilder event =
        log.atLevel(level)
            .addKeyValue("cluster", ref.cluster())
            .addKeyValue("namespace", ref.namespace())
            .addKeyValue("name", ref.name())
            .addKeyValue("key", ref.key().toString())
            .setMessage(ref + ": " + format);
    if (ref.uid() != null) {
      event.addKeyValue("uid", ref.uid());
    }
    for (Object arg : args) {
      if (arg instanceof Throwable t && arg == args[args.length - 1]) {
        event.setCause(t);
      } else {
        event.addArgument(arg);
      }
    }
    event.log();
  }
}
