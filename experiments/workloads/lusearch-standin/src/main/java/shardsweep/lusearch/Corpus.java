package shardsweep.lusearch;

import java.util.SplittableRandom;

/**
 * A deterministic generated English-like corpus: a vocabulary of pronounceable pseudo-words
 * (rank r's spelling depends only on the seed and r) and a Zipf distribution over the ranks
 * (exponent {@link #ZIPF_S}, close to natural-language text). Documents are sentences of
 * Zipf-drawn words; everything depends only on (seed, parameters), never on the JDK or the
 * thread count.
 */
final class Corpus {
    static final double ZIPF_S = 1.07;
    private static final String[] ONSETS = {
        "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t", "v", "w", "y", "z",
        "br", "ch", "cl", "cr", "dr", "fl", "fr", "gl", "gr", "pl", "pr", "sh", "sl", "sp", "st", "str",
        "th", "tr", "wh", ""};
    private static final String[] NUCLEI = {
        "a", "e", "i", "o", "u", "ai", "ea", "ee", "ie", "oa", "oo", "ou", "y"};
    private static final String[] CODAS = {
        "", "", "", "n", "r", "s", "t", "l", "nd", "st", "ng", "ck", "th", "m", "rd", "ll"};

    final long seed;
    final String[] words;
    private final double[] cdf;

    Corpus(long seed, int vocabulary) {
        this.seed = seed;
        this.words = new String[vocabulary];
        java.util.HashSet<String> seen = new java.util.HashSet<>(vocabulary * 2);
        for (int r = 0; r < vocabulary; r++) {
            SplittableRandom rnd = new SplittableRandom(mix(seed, r));
            // Frequent words are short, as in natural language.
            int syllables = 1 + (r < 200 ? 0 : r < 5000 ? rnd.nextInt(2) : 1 + rnd.nextInt(3));
            String w;
            do {
                StringBuilder sb = new StringBuilder();
                for (int s = 0; s < syllables; s++) {
                    sb.append(ONSETS[rnd.nextInt(ONSETS.length)]);
                    sb.append(NUCLEI[rnd.nextInt(NUCLEI.length)]);
                    if (s == syllables - 1 || rnd.nextInt(3) == 0) sb.append(CODAS[rnd.nextInt(CODAS.length)]);
                }
                w = sb.toString();
                syllables++; // a collision gets a longer spelling
            } while (!seen.add(w));
            words[r] = w;
        }
        cdf = new double[vocabulary];
        double sum = 0;
        for (int r = 0; r < vocabulary; r++) {
            sum += 1.0 / Math.pow(r + 1, ZIPF_S);
            cdf[r] = sum;
        }
        for (int r = 0; r < vocabulary; r++) cdf[r] /= sum;
    }

    /** A Zipf-distributed rank. */
    int rank(SplittableRandom rnd) {
        double u = rnd.nextDouble();
        int lo = 0, hi = cdf.length - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (cdf[mid] < u) lo = mid + 1; else hi = mid;
        }
        return lo;
    }

    /** A rank drawn from the Zipf distribution restricted to ranks >= {@code from}. */
    int rankAtLeast(SplittableRandom rnd, int from) {
        double base = from == 0 ? 0 : cdf[from - 1];
        double u = base + rnd.nextDouble() * (1 - base);
        int lo = from, hi = cdf.length - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (cdf[mid] < u) lo = mid + 1; else hi = mid;
        }
        return lo;
    }

    /** Document {@code d}: its words, as sentences. Same text for the same (seed, d, length). */
    String document(int d, int meanWords) {
        SplittableRandom rnd = new SplittableRandom(mix(seed ^ 0x5DEECE66DL, d));
        int n = meanWords / 4 + rnd.nextInt(meanWords * 3 / 2 + 1);
        StringBuilder sb = new StringBuilder(n * 7);
        int sentence = 0;
        for (int i = 0; i < n; i++) {
            String w = words[rank(rnd)];
            if (sentence == 0) {
                sb.append(Character.toUpperCase(w.charAt(0))).append(w, 1, w.length());
            } else {
                sb.append(w);
            }
            sentence++;
            if (sentence > 4 && rnd.nextInt(12) == 0) {
                sb.append(rnd.nextInt(4) == 0 ? "; " : ". ");
                sentence = 0;
            } else if (rnd.nextInt(9) == 0) {
                sb.append(", ");
            } else {
                sb.append(' ');
            }
        }
        sb.append('.');
        return sb.toString();
    }

    static long mix(long seed, long i) {
        long z = seed + 0x9E3779B97F4A7C15L * (i + 1);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
