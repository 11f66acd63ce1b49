package dev.pier.cloud.local;

import java.math.BigInteger;
import java.util.BitSet;
import java.util.TreeSet;

/**
 * The taken offsets of one pool range: a bit set for ranges up to 2^24 addresses, a sorted set of
 * the taken offsets for larger (IPv6) ones, so memory follows what is taken, not the range's size.
 */
sealed interface TakenOffsets {

  /** Ranges up to this many addresses track free addresses in a bit set. */
  long BITSET_LIMIT = 1L << 24;

  /** Storage for a range of {@code count} addresses. */
  static TakenOffsets forSize(BigInteger count) {
    return count.compareTo(BigInteger.valueOf(BITSET_LIMIT)) <= 0
        ? new Bits(count.intValueExact())
        : new Sparse(count.longValue());
  }

  boolean taken(long offset);

  void set(long offset);

  void clear(long offset);

  /** The lowest free offset, or -1 (never a valid offset) when every address is taken. */
  long lowestFree();

  /** A bit per address, grown only as far as the highest taken one. */
  final class Bits implements TakenOffsets {
    private final int size;
    private final BitSet bits = new BitSet();

    Bits(int size) {
      this.size = size;
    }

    @Override
    public boolean taken(long offset) {
      return bits.get((int) offset);
    }

    @Override
    public void set(long offset) {
      bits.set((int) offset);
    }

    @Override
    public void clear(long offset) {
      bits.clear((int) offset);
    }

    @Override
    public long lowestFree() {
      int free = bits.nextClearBit(0);
      return free < size ? free : -1;
    }
  }

  /** Taken offsets of a very large range, kept sorted as unsigned numbers. */
  final class Sparse implements TakenOffsets {
    /** Unsigned. */
    private final long size;

    private final TreeSet<Long> taken = new TreeSet<>(Long::compareUnsigned);

    Sparse(long size) {
      this.size = size;
    }

    @Override
    public boolean taken(long offset) {
      return taken.contains(offset);
    }

    @Override
    public void set(long offset) {
      taken.add(offset);
    }

    @Override
    public void clear(long offset) {
      taken.remove(offset);
    }

    @Override
    public long lowestFree() {
      long candidate = 0;
      for (long t : taken) {
        if (t != candidate) {
          break;
        }
        candidate++;
      }
      return Long.compareUnsigned(candidate, size) < 0 ? candidate : -1;
    }
  }
}
