package shardsweep.xalan;

import java.util.SplittableRandom;

/**
 * Generated XML documents: work item i's document depends only on (seed, i, mean books). A
 * catalogue of books (title, author from a small pool so grouping finds groups, genre, year,
 * price, stock, keywords, a blurb, nested sections); words are lowercase ASCII pseudo-words so
 * sorting does not depend on a locale's collation; titles and blurbs carry the markup
 * characters {@code & < >} now and then (escaped on output).
 */
final class Documents {
    static final String[] GENRES = {"poetry", "history", "science", "fiction", "travel", "cooking", "drama", "essays"};
    static final String[] FIRST = {"ada", "bea", "cyril", "dora", "emil", "fay", "gus", "hilde", "ivo", "jun",
        "kai", "lena", "milo", "nora", "otto", "pia", "quin", "rosa", "sven", "tove"};
    static final String[] SYLL = {"ka", "lo", "mi", "ra", "sen", "tu", "vi", "bel", "dor", "fen", "gar", "hul",
        "an", "es", "or", "ist", "un", "el", "am", "ot"};

    static long mix(long seed, long i) {
        long z = seed + 0x9E3779B97F4A7C15L * (i + 1);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    static String word(SplittableRandom r) {
        int n = 1 + r.nextInt(3);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) sb.append(SYLL[r.nextInt(SYLL.length)]);
        return sb.toString();
    }

    static void words(SplittableRandom r, StringBuilder out, int min, int max, boolean markup) {
        int n = r.nextInt(min, max + 1);
        for (int i = 0; i < n; i++) {
            if (i > 0) out.append(r.nextInt(30) == 0 ? "  " : " ");
            if (markup && r.nextInt(40) == 0) out.append(r.nextBoolean() ? "&amp;" : "&lt;b&gt;");
            else if (r.nextInt(25) == 0) out.append("and");
            else out.append(word(r));
        }
    }

    /** The document of work item i: a catalogue of about `meanBooks` books. */
    static String document(long seed, int i, int meanBooks) {
        SplittableRandom r = new SplittableRandom(mix(seed, i));
        int books = Math.max(1, meanBooks / 2 + r.nextInt(meanBooks + 1));
        // Authors: a pool per document, so that each author has a few books.
        int pool = Math.max(2, books / 4);
        String[] authors = new String[pool];
        for (int a = 0; a < pool; a++) {
            authors[a] = FIRST[r.nextInt(FIRST.length)] + " " + word(r) + word(r);
        }
        StringBuilder sb = new StringBuilder(books * 700);
        sb.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        sb.append("<catalog id=\"c").append(i).append("\" region=\"").append(word(r)).append("\">\n");
        for (int b = 0; b < books; b++) {
            sb.append("  <book id=\"b").append(String.format(java.util.Locale.ROOT, "%04d", r.nextInt(10_000))).append('-').append(b)
                    .append("\" year=\"").append(1900 + r.nextInt(125))
                    .append("\" genre=\"").append(GENRES[r.nextInt(GENRES.length)]).append("\">\n");
            sb.append("    <title>");
            words(r, sb, 1, 6, true);
            sb.append("</title>\n    <author>").append(authors[r.nextInt(pool)]).append("</author>\n");
            sb.append("    <price>").append(1 + r.nextInt(200)).append('.').append(String.format(java.util.Locale.ROOT, "%02d", r.nextInt(100)))
                    .append("</price>\n    <stock>").append(r.nextInt(4) == 0 ? 0 : r.nextInt(1, 50)).append("</stock>\n");
            sb.append("    <keywords>");
            if (r.nextInt(10) == 0) sb.append("a");
            words(r, sb, 2, 9, r.nextInt(8) == 0);
            sb.append("</keywords>\n    <blurb>\n      ");
            words(r, sb, 10, 60, true);
            sb.append("\n    </blurb>\n");
            sections(r, sb, 0, 1 + r.nextInt(4));
            sb.append("  </book>\n");
        }
        sb.append("</catalog>\n");
        return sb.toString();
    }

    static void sections(SplittableRandom r, StringBuilder sb, int depth, int n) {
        for (int s = 0; s < n; s++) {
            sb.append("    <section><heading>");
            words(r, sb, 1, 4, false);
            sb.append("</heading>");
            if (depth < 3 && r.nextInt(3) == 0) sections(r, sb, depth + 1, 1 + r.nextInt(3));
            sb.append("</section>\n");
        }
    }
}
