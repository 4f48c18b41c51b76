package shardsweep.lusearch;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LogDocMergePolicy;
import org.apache.lucene.index.SerialMergeScheduler;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;

/**
 * lusearch-standin: a stand-in of our own for DaCapo's lusearch (which cannot be downloaded
 * here). Like lusearch, {@code -t} threads each open their own index reader and run text
 * queries against a Lucene index held on disk (memory-mapped, off the Java heap), page through
 * the top hits and load their stored fields, building result text; the total number of queries
 * is fixed whatever the thread count (threads take batches of queries from a shared counter).
 *
 * <p>Harness (DaCapo-like): {@code -n} iterations, the last one timed; every iteration's result
 * digest (order-independent over queries, so independent of the thread count) must equal the
 * first one's and, for the built-in sizes with the default seed, the recorded digest. Prints
 * {@code ===== lusearch-standin <size> PASSED in N msec =====} or {@code ... FAILED ...}
 * (exit 1). An OutOfMemoryError anywhere exits with status 3 after printing it and a FAILED line.
 * A usage error is one line, exit 2.
 */
public final class Main {
    static final String NAME = "lusearch-standin";

    /** Built-in sizes: corpus and query work. */
    enum Size {
        //        docs  meanWords vocab  queries batch
        SMALL(    600,   200,  8_000,   1_024,  32),
        DEFAULT( 6_000,   300, 40_000,   4_096,  64),
        LARGE(  20_000,   400, 80_000,  16_384, 128);

        final int docs, meanWords, vocab, queries, batch;

        Size(int docs, int meanWords, int vocab, int queries, int batch) {
            this.docs = docs; this.meanWords = meanWords; this.vocab = vocab;
            this.queries = queries; this.batch = batch;
        }
    }

    /**
     * Result digests recorded for the built-in sizes with the default seed and hits; a run
     * with other parameters checks only that its iterations agree.
     */
    static String expectedDigest(Size size) {
        switch (size) {
            case SMALL: return "17cd354aaab6e231";
            case DEFAULT: return "66efc1e4129cbeb2";
            case LARGE: return "191c9ff9dab48bf6";
            default: return "";
        }
    }

    static final long DEFAULT_SEED = 20240917L;
    static final int HITS_PER_PAGE = 10;
    static final int PAGES = 5;

    // Options.
    int threads = Runtime.getRuntime().availableProcessors();
    int iterations = 1;
    Size size = Size.DEFAULT;
    long seed = DEFAULT_SEED;
    Integer docs, vocab, queries, batch, meanWords;
    boolean sharedReader = false;
    Path indexDir;
    boolean buildOnly = false;
    String expect;
    String callbackClass;
    boolean verbose = false;

    public static void main(String[] args) {
        Main m = new Main();
        int status;
        try {
            m.parse(args);
            status = m.run();
        } catch (OutOfMemoryError e) {
            System.err.println(NAME + ": java.lang.OutOfMemoryError: " + e.getMessage());
            System.out.printf(Locale.ROOT, "===== %s %s FAILED (out of memory) =====%n", NAME, m.sizeName());
            status = 3;
        } catch (UsageError e) {
            System.err.println(NAME + ": " + e.getMessage() + " (--help lists the options)");
            status = 2;
        } catch (Throwable e) {
            e.printStackTrace();
            status = 1;
        }
        System.out.flush();
        System.exit(status);
    }

    static final class UsageError extends Exception {
        UsageError(String m) { super(m); }
    }

    static void usage(PrintStream out) {
        out.println("usage: java -jar lusearch-standin.jar [options] [lusearch]");
        out.println("       java -cp lusearch-standin.jar:<probes.jar> Harness -c probe.ProbeMux [options] [lusearch]");
        out.println("  -t, --threads N     query threads (default: available processors)");
        out.println("  -n, --iterations N  iterations; the last is timed (default 1)");
        out.println("  -s, --size S        small | default | large");
        out.println("  --index DIR         use (or build, if absent) the index in DIR instead of a temporary one");
        out.println("  --build-index DIR   build the index in DIR and exit");
        out.println("  --shared-reader     one index reader for all threads (default: one per thread, as lusearch)");
        out.println("  --seed N --docs N --vocab N --words N --queries N --batch N   override the size's corpus/work");
        out.println("  --expect HEX        fail unless the digest is HEX");
        out.println("  -c, --callback CLS  call CLS.begin(String,boolean)/end(boolean) around each iteration and");
        out.println("                      CLS.init()/cleanup() (MMTk probes' probe.ProbeMux interface)");
        out.println("  -v, --verbose");
    }

    void parse(String[] args) throws UsageError {
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "-t": case "--threads": threads = intArg(args, ++i, a); break;
                case "-n": case "--iterations": iterations = intArg(args, ++i, a); break;
                case "-s": case "--size":
                    String s = strArg(args, ++i, a).toUpperCase(Locale.ROOT);
                    try { size = Size.valueOf(s); } catch (IllegalArgumentException e) {
                        throw new UsageError("unknown size " + s.toLowerCase(Locale.ROOT) + " (small, default, large)");
                    }
                    break;
                case "--index": indexDir = Paths.get(strArg(args, ++i, a)); break;
                case "--build-index": indexDir = Paths.get(strArg(args, ++i, a)); buildOnly = true; break;
                case "--shared-reader": sharedReader = true; break;
                case "--seed":
                    String v = strArg(args, ++i, a);
                    try { seed = Long.parseLong(v); } catch (NumberFormatException e) {
                        throw new UsageError(a + ": not a number: " + v);
                    }
                    break;
                case "--docs": docs = intArg(args, ++i, a); break;
                case "--vocab": vocab = intArg(args, ++i, a); break;
                case "--words": meanWords = intArg(args, ++i, a); break;
                case "--queries": queries = intArg(args, ++i, a); break;
                case "--batch": batch = intArg(args, ++i, a); break;
                case "--expect": expect = strArg(args, ++i, a); break;
                case "-c": case "--callback": callbackClass = strArg(args, ++i, a); break;
                case "-v": case "--verbose": verbose = true; break;
                case "-h": case "--help": usage(System.out); System.exit(0); break;
                // The benchmark name, as on DaCapo's command line (what running-ng passes last).
                case "lusearch": case "lusearch-standin": break;
                default: throw new UsageError("unknown option " + a);
            }
        }
        if (threads < 1 || iterations < 1) throw new UsageError("-t and -n must be >= 1");
    }

    static String strArg(String[] args, int i, String opt) throws UsageError {
        if (i >= args.length) throw new UsageError(opt + " needs a value");
        return args[i];
    }

    static int intArg(String[] args, int i, String opt) throws UsageError {
        String v = strArg(args, i, opt);
        try { return Integer.parseInt(v); } catch (NumberFormatException e) {
            throw new UsageError(opt + ": not a number: " + v);
        }
    }

    int nDocs() { return docs != null ? docs : size.docs; }
    int nVocab() { return vocab != null ? vocab : size.vocab; }
    int nWords() { return meanWords != null ? meanWords : size.meanWords; }
    int nQueries() { return queries != null ? queries : size.queries; }
    int nBatch() { return batch != null ? batch : size.batch; }
    boolean builtinParameters() {
        return seed == DEFAULT_SEED && docs == null && vocab == null && meanWords == null && queries == null && batch == null;
    }
    String sizeName() { return size.name().toLowerCase(Locale.ROOT); }
    String indexKey() { return "seed=" + seed + " docs=" + nDocs() + " vocab=" + nVocab() + " words=" + nWords(); }

    int run() throws Exception {
        Corpus corpus = new Corpus(seed, nVocab());
        Path dir = indexDir;
        boolean temporary = dir == null;
        if (temporary) dir = Files.createTempDirectory(NAME + "-index");
        try {
            ensureIndex(corpus, dir);
            if (buildOnly) return 0;
            return iterate(corpus, dir);
        } finally {
            if (temporary) deleteTree(dir);
        }
    }

    /** Builds the index unless DIR already holds one for the same corpus parameters. */
    void ensureIndex(Corpus corpus, Path dir) throws IOException {
        Path stamp = dir.resolve("lusearch-standin.corpus");
        if (Files.exists(stamp) && Files.readString(stamp).trim().equals(indexKey())) {
            if (verbose) System.out.println(NAME + ": reusing index in " + dir);
            return;
        }
        long t0 = System.nanoTime();
        Files.createDirectories(dir);
        Files.deleteIfExists(stamp);
        IndexWriterConfig cfg = new IndexWriterConfig(new StandardAnalyzer());
        cfg.setOpenMode(IndexWriterConfig.OpenMode.CREATE);
        // Deterministic and light on the heap: adjacent-only merges in this thread, a small
        // buffer, one segment at the end (doc ids in insertion order).
        cfg.setMergeScheduler(new SerialMergeScheduler());
        cfg.setMergePolicy(new LogDocMergePolicy());
        cfg.setRAMBufferSizeMB(4);
        cfg.setUseCompoundFile(false);
        long words = 0;
        try (Directory d = FSDirectory.open(dir); IndexWriter w = new IndexWriter(d, cfg)) {
            for (int i = 0; i < nDocs(); i++) {
                String text = corpus.document(i, nWords());
                words += text.chars().filter(c -> c == ' ').count() + 1;
                Document doc = new Document();
                doc.add(new StringField("path", String.format(Locale.ROOT, "corpus/doc%06d.txt", i), Field.Store.YES));
                int cut = text.indexOf('.');
                String title = text.substring(0, Math.min(cut < 0 ? text.length() : cut, 60));
                doc.add(new TextField("title", title, Field.Store.YES));
                doc.add(new TextField("contents", text, Field.Store.NO));
                w.addDocument(doc);
            }
            w.forceMerge(1);
            w.commit();
        }
        Files.writeString(stamp, indexKey() + "\n");
        System.out.printf(Locale.ROOT, "%s: index of %d documents (%d words, vocabulary %d) built in %d ms in %s%n",
                NAME, nDocs(), words, nVocab(), (System.nanoTime() - t0) / 1_000_000, dir);
    }

    int iterate(Corpus corpus, Path dir) throws Exception {
        String[] queryText = new String[nQueries()];
        for (int q = 0; q < queryText.length; q++) queryText[q] = query(corpus, q);
        Callback cb = Callback.load(callbackClass);
        cb.init();
        String first = null;
        boolean ok = true;
        System.out.printf(Locale.ROOT, "===== %s %s starting (%d threads, %d queries in batches of %d, %s readers) =====%n",
                NAME, sizeName(), threads, nQueries(), nBatch(), sharedReader ? "one shared" : "per-thread");
        try (Directory d = FSDirectory.open(dir)) {
            for (int it = 1; it <= iterations; it++) {
                boolean warmup = it < iterations;
                cb.begin("lusearch", warmup);
                long t0 = System.nanoTime();
                String digest = runIteration(d, queryText);
                long ms = (System.nanoTime() - t0) / 1_000_000;
                cb.end(warmup);
                if (!warmup) cb.cleanup();
                if (first == null) first = digest;
                boolean agree = digest.equals(first);
                ok &= agree;
                System.out.printf(Locale.ROOT, "%s: iteration %d digest %s%s%n", NAME, it, digest,
                        agree ? "" : " (DIFFERS from iteration 1: " + first + ")");
                if (warmup) {
                    System.out.printf(Locale.ROOT, "===== %s %s completed warmup %d in %d msec =====%n", NAME, sizeName(), it, ms);
                } else {
                    String want = expect != null ? expect : builtinParameters() ? expectedDigest(size) : "";
                    if (!want.isEmpty() && !want.equalsIgnoreCase(digest)) {
                        System.out.printf(Locale.ROOT, "%s: digest %s, expected %s%n", NAME, digest, want);
                        ok = false;
                    }
                    System.out.printf(Locale.ROOT, "===== %s %s %s in %d msec =====%n", NAME, sizeName(), ok ? "PASSED" : "FAILED", ms);
                }
                if (!ok) return 1;
            }
        }
        return 0;
    }

    /** Query q: deterministic in (seed, q). Term, conjunction, disjunction, phrase or prefix. */
    static String query(Corpus c, int q) {
        SplittableRandom rnd = new SplittableRandom(Corpus.mix(c.seed ^ 0x2545F4914F6CDD1DL, q));
        // Skip the most frequent ranks (stop-word-like) so queries are selective.
        int from = Math.min(50, c.words.length - 1);
        String a = c.words[c.rankAtLeast(rnd, from)];
        String b = c.words[c.rankAtLeast(rnd, from)];
        int kind = rnd.nextInt(20);
        if (kind < 8) return a;
        if (kind < 12) return "+" + a + " +" + b;
        if (kind < 15) return a + " " + b + " " + c.words[c.rankAtLeast(rnd, from)];
        if (kind < 18) return "\"" + a + " " + b + "\"~3";
        return a.substring(0, Math.min(3, a.length())) + "*";
    }

    String runIteration(Directory d, String[] queryText) throws Exception {
        int nBatches = (queryText.length + nBatch() - 1) / nBatch();
        AtomicInteger next = new AtomicInteger();
        AtomicLong digest = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        DirectoryReader shared = sharedReader ? DirectoryReader.open(d) : null;
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread th = new Thread(() -> {
                try {
                    DirectoryReader reader = shared != null ? shared : DirectoryReader.open(d);
                    try {
                        IndexSearcher searcher = new IndexSearcher(reader);
                        StoredFields stored = reader.storedFields();
                        QueryParser parser = new QueryParser("contents", new StandardAnalyzer());
                        long local = 0;
                        for (int b; (b = next.getAndIncrement()) < nBatches && failure.get() == null; ) {
                            StringBuilder out = new StringBuilder(1 << 14); // the batch's "output file"
                            for (int q = b * nBatch(); q < Math.min(queryText.length, (b + 1) * nBatch()); q++) {
                                int start = out.length();
                                search(parser, searcher, stored, queryText[q], out);
                                local += mixResult(q, out, start);
                            }
                        }
                        digest.addAndGet(local);
                    } finally {
                        if (shared == null) reader.close();
                    }
                } catch (Throwable e) {
                    // An OutOfMemoryError wins over any other failure: when one thread runs out
                    // of memory inside a class initialiser, the other threads then fail with
                    // NoClassDefFoundError, and the run must still count as out of memory.
                    failure.accumulateAndGet(e, (old, neu) -> old == null || (!isOom(old) && isOom(neu)) ? neu : old);
                }
            }, NAME + "-query-" + t);
            workers.add(th);
            th.start();
        }
        for (Thread th : workers) th.join();
        if (shared != null) shared.close();
        Throwable f = failure.get();
        for (Throwable c = f; c != null; c = c.getCause()) {
            if (c instanceof OutOfMemoryError) throw (OutOfMemoryError) c;
        }
        if (f instanceof Exception) throw (Exception) f;
        if (f != null) throw new RuntimeException(f);
        return String.format(Locale.ROOT, "%016x", digest.get());
    }

    /** Whether `t` is, or was caused by, an OutOfMemoryError. */
    static boolean isOom(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof OutOfMemoryError) return true;
        }
        return false;
    }

    /** As lusearch's paging search: up to PAGES pages of HITS_PER_PAGE hits, stored fields loaded. */
    static void search(QueryParser parser, IndexSearcher searcher, StoredFields stored, String text, StringBuilder out)
            throws Exception {
        Query query = parser.parse(text);
        TopDocs top = searcher.search(query, HITS_PER_PAGE * PAGES);
        out.append("query: ").append(query.toString("contents")).append('\n');
        out.append(top.totalHits.value).append(top.totalHits.relation == org.apache.lucene.search.TotalHits.Relation.EQUAL_TO ? "" : "+")
                .append(" total matching documents\n");
        ScoreDoc[] hits = top.scoreDocs;
        for (int page = 0; page * HITS_PER_PAGE < hits.length; page++) {
            int end = Math.min(hits.length, (page + 1) * HITS_PER_PAGE);
            for (int i = page * HITS_PER_PAGE; i < end; i++) {
                Document doc = stored.document(hits[i].doc);
                out.append(i + 1).append(". ").append(doc.get("path")).append("  ").append(doc.get("title"))
                        .append("  ").append(Float.floatToIntBits(hits[i].score)).append('\n');
            }
        }
    }

    /** Order-independent digest contribution of query q's result text (FNV-1a, then mixed with q). */
    static long mixResult(int q, CharSequence s, int from) {
        long h = 0xcbf29ce484222325L;
        for (int i = from; i < s.length(); i++) {
            h ^= s.charAt(i);
            h *= 0x100000001b3L;
        }
        return Corpus.mix(h, q);
    }

    static void deleteTree(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> { try { Files.delete(p); } catch (IOException e) { } });
        } catch (IOException e) {
            // best effort
        }
    }

    /**
     * Optional iteration callback with the interface of MMTk's probes' {@code probe.ProbeMux}
     * (static {@code init()}, {@code begin(String benchmark, boolean warmup)},
     * {@code end(boolean warmup)}, {@code cleanup()}), found by reflection; {@code init} and
     * {@code cleanup} are optional.
     */
    static final class Callback {
        final Method init, begin, end, cleanup;

        Callback(Method init, Method begin, Method end, Method cleanup) {
            this.init = init; this.begin = begin; this.end = end; this.cleanup = cleanup;
        }

        static Callback load(String cls) throws Exception {
            if (cls == null) return new Callback(null, null, null, null);
            Class<?> c = Class.forName(cls);
            return new Callback(optional(c, "init"), c.getMethod("begin", String.class, boolean.class),
                    c.getMethod("end", boolean.class), optional(c, "cleanup"));
        }

        static Method optional(Class<?> c, String name) {
            try { return c.getMethod(name); } catch (NoSuchMethodException e) { return null; }
        }

        void init() throws Exception { if (init != null) init.invoke(null); }
        void begin(String bm, boolean warmup) throws Exception { if (begin != null) begin.invoke(null, bm, warmup); }
        void end(boolean warmup) throws Exception { if (end != null) end.invoke(null, warmup); }
        void cleanup() throws Exception { if (cleanup != null) cleanup.invoke(null); }
    }
}
