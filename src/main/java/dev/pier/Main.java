package dev.pier;

import dev.pier.boot.EnvironmentVariables;
import dev.pier.boot.PierOptions;
import dev.pier.boot.Usage;
import dev.pier.cli.Cli;
import dev.pier.config.ConfigException;
import dev.pier.config.ConfigLoader;
import dev.pier.config.ConfigValues;
import dev.pier.config.Durations;
import dev.pier.kube.ClientWarmup;
import dev.pier.util.BuildInfo;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code java -jar pier.jar [--config FILE]}: runs Pier until it is stopped. {@code java -jar
 * pier.jar join|unjoin|status ...} runs an operator's command ({@link Cli}) instead.
 */
public final class Main {
  private static final int EXIT_USAGE = 2;
  private static final Duration STOP_ALLOWANCE = Duration.ofSeconds(30);

  private Main() {}

  public static void main(String[] args) throws InterruptedException {
    if (Cli.isCommand(args)) {
      Logging.quiet();
      System.exit(Cli.run(args, System.out, System.err));
      return;
    }
    Path config = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "-h", "--help" -> {
          System.out.print(Usage.text());
          return;
        }
        case "-v", "--version" -> {
          System.out.println(BuildInfo.current());
          return;
        }
        case "-c", "--config" -> {
          if (i + 1 >= args.length) {
            fail("--config needs a file path");
          }
          config = Path.of(args[++i]);
        }
        default -> fail("unknown argument '" + args[i] + "'");
      }
    }
    ClientWarmup.start();
    ConfigValues values;
    List<String> unknownVariables;
    try {
      values = new ConfigLoader(PierOptions.ALL, System::getenv).load(config);
      unknownVariables = EnvironmentVariables.check(values, System.getenv());
    } catch (ConfigException e) {
      System.err.println("pier: configuration error: " + e.getMessage());
      System.exit(EXIT_USAGE);
      return;
    }
    Logging.configure(values.get(PierOptions.LOG_FORMAT));
    Logger log = LoggerFactory.getLogger(Main.class);
    for (String unknown : unknownVariables) {
      log.warn("{}; ignored (config.strictEnvironment: true makes this an error)", unknown);
    }
    log.info("Starting {} with {}", BuildInfo.current(), values.source());
    CountDownLatch started = new CountDownLatch(1);
    Pier[] running = new Pier[1];
    Throwable[] failure = new Throwable[1];
    Pier.start(values)
        .onComplete(
            ar -> {
              running[0] = ar.result();
              failure[0] = ar.cause();
              started.countDown();
            });
    // Pier.start fails by itself at startup.timeout; this bounds the stop that follows as well.
    Duration deadline = values.get(PierOptions.STARTUP_TIMEOUT).plus(STOP_ALLOWANCE);
    if (!started.await(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
      log.error(
          "Pier failed to start: it neither started nor stopped within {} (startup.timeout plus"
              + " {} to stop)",
          Durations.format(deadline),
          Durations.format(STOP_ALLOWANCE));
      System.exit(1);
    }
    if (failure[0] != null) {
      System.exit(reportStartFailure(failure[0], log));
    }
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  CountDownLatch stopped = new CountDownLatch(1);
                  running[0].stop().onComplete(ar -> stopped.countDown());
                  try {
                    stopped.await(10, TimeUnit.SECONDS);
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                },
                "pier-shutdown"));
    log.info("Pier is running");
  }

  /**
   * Logs why Pier did not start and returns the exit status: a configuration problem (also one
   * wrapped in another exception) as the one line that names it, with the status of a usage error;
   * anything else with its stack trace.
   */
  static int reportStartFailure(Throwable failure, Logger log) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof ConfigException config) {
        log.error("Pier failed to start: configuration error: {}", config.getMessage());
        return EXIT_USAGE;
      }
    }
    log.error("Pier failed to start: {}", failure.getMessage(), failure);
    return 1;
  }

  private static void fail(String message) {
    System.err.println("pier: " + message + "\n\n" + Usage.text());
    System.exit(EXIT_USAGE);
  }
}
