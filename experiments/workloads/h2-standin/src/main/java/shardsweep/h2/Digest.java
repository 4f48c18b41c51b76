package shardsweep.h2;

import java.math.BigDecimal;

/** FNV-1a over what a sequence of transactions returned (values in a fixed order). */
final class Digest {
    long h = 0xcbf29ce484222325L;

    Digest add(long v) {
        for (int i = 0; i < 8; i++) {
            h ^= (v >>> (8 * i)) & 0xff;
            h *= 0x100000001b3L;
        }
        return this;
    }

    Digest add(String s) {
        if (s == null) return add(-1L);
        for (int i = 0; i < s.length(); i++) {
            h ^= s.charAt(i);
            h *= 0x100000001b3L;
        }
        return add(s.length());
    }

    /** A decimal by value and scale (the columns' scales are fixed, so equal values compare equal). */
    Digest add(BigDecimal d) {
        return d == null ? add(-2L) : add(d.toPlainString());
    }

    /** SplitMix64's finaliser of (seed, i): a well-mixed value per (seed, i). */
    static long mix(long seed, long i) {
        long z = seed + 0x9E3779B97F4A7C15L * (i + 1);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
