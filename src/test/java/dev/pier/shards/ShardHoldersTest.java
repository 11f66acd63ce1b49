package dev.pier.shards;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Answers between replicas: believed only when sealed by the shard's holder as last read. */
class ShardHoldersTest {
  private static final String KEY_A = ReplySeal.newKey();
  private static final String KEY_B = ReplySeal.newKey();

  private static ShardHolders asker() {
    ShardHolders holders = new ShardHolders("replica-b", KEY_B);
    holders.update(
        Map.of(0, "replica-a", 1, "replica-b", 2, ""),
        Map.of("replica-a", Set.of(KEY_A), "replica-b", Set.of(KEY_B)));
    return holders;
  }

  @Test
  void theHoldersSealOnTheAnswerToThisQuestionIsBelieved() {
    String seal = new ShardHolders("replica-a", KEY_A).seal("n1", 0, "{\"owned\":1}");
    assertThat(asker().fromHolder(0, "replica-a", "n1", "{\"owned\":1}", seal)).isTrue();
  }

  @Test
  void anyOtherAnswerIsNot() {
    ShardHolders a = new ShardHolders("replica-a", KEY_A);
    String seal = a.seal("n1", 0, "{\"owned\":1}");
    ShardHolders asker = asker();
    assertThat(asker.fromHolder(0, "replica-a", "n1", "{\"owned\":2}", seal))
        .as("another text")
        .isFalse();
    assertThat(asker.fromHolder(0, "replica-a", "n2", "{\"owned\":1}", seal))
        .as("replayed to another question")
        .isFalse();
    assertThat(asker.fromHolder(1, "replica-a", "n1", "{\"owned\":1}", a.seal("n1", 1, "x")))
        .as("from a replica that does not hold the shard")
        .isFalse();
    assertThat(asker.fromHolder(1, "replica-b", "n1", "x", a.seal("n1", 1, "x")))
        .as("naming the holder, sealed with another replica's key")
        .isFalse();
    assertThat(asker.fromHolder(2, "replica-a", "n1", "x", a.seal("n1", 2, "x")))
        .as("a free shard")
        .isFalse();
    assertThat(asker.fromHolder(3, "replica-a", "n1", "x", a.seal("n1", 3, "x")))
        .as("a shard never read")
        .isFalse();
    assertThat(asker.fromHolder(0, "replica-a", "n1", "x", null)).as("no seal").isFalse();
    assertThat(asker.fromHolder(0, null, "n1", "x", a.seal("n1", 0, "x")))
        .as("no identity")
        .isFalse();
  }

  @Test
  void beforeTheFirstReadNothingIsBelieved() {
    ShardHolders fresh = new ShardHolders("replica-b", KEY_B);
    String seal = new ShardHolders("replica-a", KEY_A).seal("n", 0, "x");
    assertThat(fresh.fromHolder(0, "replica-a", "n", "x", seal)).isFalse();
  }

  @Test
  void keysAreFreshAndLongEnough() {
    assertThat(ReplySeal.newKey()).isNotEqualTo(ReplySeal.newKey()).hasSizeGreaterThan(40);
  }
}
