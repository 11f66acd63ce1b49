package dev.pier.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FlagsTest {
  private static Join.Options join(String... args) {
    return Join.Options.parse(List.of(args));
  }

  @Test
  void joinFlagsInBothSpellings() {
    Join.Options o =
        join(
            "west",
            "--member-context=admin@west",
            "--region",
            "us",
            "--zones",
            "us-a, us-b",
            "--labels=tier=silver,env=prod",
            "--token-duration",
            "720h",
            "--wait=30s",
            "--dry-run");
    assertThat(o.name()).isEqualTo("west");
    assertThat(o.memberContext()).isEqualTo("admin@west");
    assertThat(o.region()).isEqualTo("us");
    assertThat(o.zones()).containsExactly("us-a", "us-b");
    assertThat(o.labels()).isEqualTo(Map.of("tier", "silver", "env", "prod"));
    assertThat(o.tokenDuration()).isEqualTo(Duration.ofHours(720));
    assertThat(o.waitFor()).isEqualTo(Duration.ofSeconds(30));
    assertThat(o.dryRun()).isTrue();
    assertThat(o.rotateToken()).isFalse();
    assertThat(o.secretNamespace()).isEqualTo("pier");
    assertThat(join("west").tokenDuration()).isEqualTo(Duration.ofHours(8760));
    assertThat(join("west", "--wait", "0").waitFor()).isZero();
  }

  @Test
  void aBadFlagNamesTheFlagAndValueWithTheUsageStatus() {
    assertUsage(
        () -> join("west", "--token-duration", "soon"),
        "flag --token-duration: invalid value 'soon': not a duration (e.g. 90s, 30m, 8760h)");
    assertUsage(
        () -> join("west", "--token-duration", "5m"),
        "flag --token-duration: invalid value '5m': the API server grants no token shorter than"
            + " 10m");
    assertUsage(
        () -> join("west", "--labels", "tier"),
        "flag --labels: invalid value 'tier': 'tier' is not a label key=value");
    assertUsage(
        () -> join("west", "--labels", "pier.dev/cluster=x"),
        "flag --labels: invalid value 'pier.dev/cluster=x': pier.dev/cluster is set from NAME");
    assertUsage(
        () -> join("west", "--zones", "a,,b"),
        "flag --zones: invalid value 'a,,b': '' is not a valid name");
    assertUsage(
        () -> join("West_1"),
        "invalid cluster NAME 'West_1': must be a DNS label (lower case letters, digits, '-')");
    assertUsage(() -> join(), "missing cluster NAME");
    assertUsage(() -> join("west", "--region"), "flag --region needs a value");
    assertUsage(() -> join("west", "--dry-run=maybe"), "flag --dry-run: invalid value 'maybe'");
    assertThatThrownBy(() -> join("west", "--regoin", "us"))
        .hasMessageStartingWith("unknown flag --regoin (known: --dry-run, --host-context");
  }

  @Test
  void cliReturnsTheUsageStatusAndNamesTheFlag() {
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    int status =
        Cli.run(
            new String[] {"status", "-o", "yaml"},
            new java.io.PrintStream(new java.io.ByteArrayOutputStream()),
            new java.io.PrintStream(err));
    assertThat(status).isEqualTo(2);
    assertThat(err.toString())
        .contains("pier status: flag -o: invalid value 'yaml': table or json");
  }

  private static void assertUsage(Runnable r, String message) {
    assertThatThrownBy(r::run)
        .isInstanceOf(CliException.class)
        .hasMessage(message)
        .satisfies(e -> assertThat(((CliException) e).status()).isEqualTo(2));
  }
}
