package dev.pier.cli;

/** Ends a command with a message for the operator and an exit status. */
public class CliException extends RuntimeException {
  /** The exit status of a bad command line: a flag, its value or an argument. */
  public static final int USAGE = 2;

  /** The exit status of a command that ran and failed. */
  public static final int FAILED = 1;

  private final int status;

  public CliException(int status, String message) {
    super(message);
    this.status = status;
  }

  public static CliException usage(String message) {
    return new CliException(USAGE, message);
  }

  public static CliException failed(String message) {
    return new CliException(FAILED, message);
  }

  public int status() {
    return status;
  }
}
