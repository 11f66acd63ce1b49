package dev.pier.federation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pier.model.LbIngress;
import dev.pier.model.LbStatus;
import dev.pier.nodes.Topology;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

class CopyStateTest {

  @Test
  void anOwnedCopyCrossesProcessesUnchanged() {
    CopyState copy =
        new CopyState(
            true,
            new Topology("eu-central", List.of("eu-central-1a", "eu-central-1b")),
            true,
            true,
            new LbStatus(
                List.of(
                    LbIngress.ip("203.0.113.7"),
                    new LbIngress(
                        null,
                        "lb.example.com",
                        "Proxy",
                        List.of(new LbIngress.PortStatus(443, "TCP", "Pending"))))),
            true,
            "copy-uid",
            false,
            "n-1",
            true);

    CopyState back = CopyState.fromJson(new JsonObject(copy.toJson().encode()));

    assertThat(back).isEqualTo(copy);
  }

  @Test
  void noCopyCarriesOnlyTheMembersState() {
    CopyState none = CopyState.none(false, new Topology(null, List.of()));

    CopyState back = CopyState.fromJson(new JsonObject(none.toJson().encode()));

    assertThat(back).isEqualTo(none);
    assertThat(back.status()).isNull();
    assertThat(none.toJson().fieldNames()).containsExactlyInAnyOrder("synced", "zones", "owned");
  }

  @Test
  void anOwnedCopyWithoutAnAddressHasAnEmptyStatus() {
    CopyState pending =
        new CopyState(true, null, true, false, null, false, "copy-uid", false, null, false);

    assertThat(pending.status()).isEqualTo(LbStatus.EMPTY);
    assertThat(CopyState.fromJson(pending.toJson())).isEqualTo(pending);
  }

  /**
   * A replica of an earlier version sends no uid: its copy could not be checked against the host
   * Service's record, so the read fails and the aggregate waits, as for an owner that is moving.
   */
  @Test
  void anOwnedCopyWithoutItsUidIsRefused() {
    JsonObject old =
        new CopyState(true, null, true, false, null, false, "u", false, null, false).toJson();
    old.remove("uid");

    assertThatThrownBy(() -> CopyState.fromJson(old))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("without its uid");
  }

  @Test
  void somethingElseIsRefusedByName() {
    assertThatThrownBy(() -> CopyState.fromJson(new JsonObject().put("owned", "yes")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a copy state");
  }
}
