package dev.pier.cloud.local;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Which pool addresses are taken, and by whom: per range the taken offsets, per Service key its
 * {@link Holding}, and the members of each sharing group. An address shared by a group is taken
 * once, by its first holder, and free again when its last holder releases it. Whether a move is
 * allowed is the caller's decision; this class only keeps the books.
 *
 * <p>Not thread-safe, except {@link #inUse}: the provider confines it to one context, metrics read
 * the counts from any thread.
 */
final class AddressSlots {

  /**
   * One Service's address.
   *
   * @param range the index of the pool range
   * @param offset the unsigned offset into that range
   * @param group the sharing group (namespace and {@code pier.dev/allow-shared-ip} key), or null
   */
  record Holding(int range, long offset, String uid, String group) {

    boolean at(int range, long offset) {
      return this.range == range && this.offset == offset;
    }
  }

  private final TakenOffsets[] taken;

  /** Taken addresses per range; written only on the provider's context, read from any thread. */
  private final AtomicLongArray inUse;

  private final Map<String, Holding> byKey = new HashMap<>();

  /** The keys of the Services of each sharing group. */
  private final Map<String, Set<String>> groups = new HashMap<>();

  AddressSlots(List<PoolRange> ranges) {
    this.taken = new TakenOffsets[ranges.size()];
    for (int i = 0; i < taken.length; i++) {
      taken[i] = TakenOffsets.forSize(ranges.get(i).count());
    }
    this.inUse = new AtomicLongArray(ranges.size());
  }

  /** The Service's holding, or null. */
  Holding get(String key) {
    return byKey.get(key);
  }

  boolean taken(int range, long offset) {
    return taken[range].taken(offset);
  }

  /** The lowest free offset of the range, or -1 when it is full. */
  long lowestFree(int range) {
    return taken[range].lowestFree();
  }

  /** How many addresses of the range are taken; safe from any thread. */
  long inUse(int range) {
    return inUse.get(range);
  }

  /** The keys holding an address, second-family keys included. */
  List<String> keys() {
    return new ArrayList<>(byKey.keySet());
  }

  /** How many keys hold an address, second-family keys included. */
  int size() {
    return byKey.size();
  }

  /** Records that the Service {@code key} holds the address; the key must hold none. */
  void take(String key, String uid, int range, long offset, String group) {
    if (!taken[range].taken(offset)) {
      // A shared address is taken once, by its first holder.
      taken[range].set(offset);
      inUse.incrementAndGet(range);
    }
    byKey.put(key, new Holding(range, offset, uid, group));
    if (group != null) {
      groups.computeIfAbsent(group, g -> new LinkedHashSet<>()).add(key);
    }
  }

  /** Frees the Service's address, unless another holder shares it; returns what it held. */
  Optional<Holding> release(String key) {
    Holding h = byKey.get(key);
    if (h == null) {
      return Optional.empty();
    }
    boolean shared = sharedWithOthers(key);
    byKey.remove(key);
    leaveGroup(key, h.group());
    if (!shared) {
      taken[h.range()].clear(h.offset());
      inUse.decrementAndGet(h.range());
    }
    return Optional.of(h);
  }

  /** Records the uid of the Service that holds {@code key}'s address now. */
  void setUid(String key, String uid) {
    byKey.computeIfPresent(key, (k, h) -> new Holding(h.range(), h.offset(), uid, h.group()));
  }

  /** Moves the Service {@code key} into {@code group}, keeping its address. */
  void regroup(String key, String group) {
    Holding h = byKey.get(key);
    if (!Objects.equals(h.group(), group)) {
      leaveGroup(key, h.group());
      byKey.put(key, new Holding(h.range(), h.offset(), h.uid(), group));
      if (group != null) {
        groups.computeIfAbsent(group, g -> new LinkedHashSet<>()).add(key);
      }
    }
  }

  /** The keys of a sharing group, in the order they joined. */
  Set<String> members(String group) {
    return groups.getOrDefault(group, Set.of());
  }

  /** Whether another Service (only one of the same sharing group can) holds the same address. */
  boolean sharedWithOthers(String key) {
    Holding h = byKey.get(key);
    if (h.group() == null) {
      return false;
    }
    for (String member : members(h.group())) {
      if (!member.equals(key) && byKey.get(member).at(h.range(), h.offset())) {
        return true;
      }
    }
    return false;
  }

  /** The key holding a taken address, or null; linear, used only for messages and sharing. */
  String holderKey(int range, long offset) {
    for (Map.Entry<String, Holding> e : byKey.entrySet()) {
      if (e.getValue().at(range, offset)) {
        return e.getKey();
      }
    }
    return null;
  }

  private void leaveGroup(String key, String group) {
    Set<String> members = group == null ? null : groups.get(group);
    if (members != null) {
      members.remove(key);
      if (members.isEmpty()) {
        groups.remove(group);
      }
    }
  }
}
