package dev.pier.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InvalidClassException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import javax.security.auth.x500.X500Principal;
import org.junit.jupiter.api.Test;

/** Java deserialization under scale-out: the allow-list, JVM-wide. */
class SerializationFilterTest {
  /** A class of Pier's own packages. */
  record Allowed(String name, List<Integer> values) implements Serializable {}

  private static byte[] serialize(Object o) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(o);
    }
    return bytes.toByteArray();
  }

  private static Object read(byte[] bytes, ObjectInputFilter filter)
      throws IOException, ClassNotFoundException {
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes))) {
      if (filter != null) {
        in.setObjectInputFilter(filter);
      }
      return in.readObject();
    }
  }

  @Test
  void valuesCollectionsAndPiersOwnClassesAreRead() throws Exception {
    Map<String, Object> value = new HashMap<>();
    value.put("list", new ArrayList<>(List.of(1, 2L, "three")));
    value.put("uuid", UUID.randomUUID());
    value.put("when", Instant.now());
    value.put("amount", new BigDecimal("1.5"));
    value.put("bytes", new byte[] {1, 2});
    value.put("map", new ConcurrentHashMap<>(Map.of("k", "v")));
    value.put("own", new Allowed("a", List.of(1)));
    Object read = read(serialize(value), SerializationFilter.FILTER);
    assertThat(read).isInstanceOf(Map.class);
    assertThat(((Map<?, ?>) read).get("own")).isEqualTo(new Allowed("a", List.of(1)));
  }

  @Test
  void aClassOutsideTheAllowListIsRefusedAloneOrInsideAnAllowedOne() throws Exception {
    X500Principal outside = new X500Principal("CN=outside");
    assertThat(read(serialize(outside), info -> ObjectInputFilter.Status.ALLOWED))
        .isEqualTo(outside);
    assertThatThrownBy(() -> read(serialize(outside), SerializationFilter.FILTER))
        .isInstanceOf(InvalidClassException.class)
        .hasMessageContaining("REJECTED");
    assertThatThrownBy(
            () -> read(serialize(new HashMap<>(Map.of("k", outside))), SerializationFilter.FILTER))
        .isInstanceOf(InvalidClassException.class);
    assertThatThrownBy(
            () -> read(serialize(new X500Principal[] {outside}), SerializationFilter.FILTER))
        .isInstanceOf(InvalidClassException.class);
  }

  @Test
  void installedItFiltersEveryStreamOfTheJvmAndInstallingAgainChangesNothing() throws Exception {
    SerializationFilter.install();
    SerializationFilter.install();
    assertThat(ObjectInputFilter.Config.getSerialFilter()).isSameAs(SerializationFilter.FILTER);
    assertThatThrownBy(() -> read(serialize(new X500Principal("CN=outside")), null))
        .isInstanceOf(InvalidClassException.class);
    assertThat(read(serialize(new Allowed("b", List.of())), null))
        .isEqualTo(new Allowed("b", List.of()));
  }
}
