package shardsweep.xalan;

import java.io.InputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.io.StringWriter;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import javax.xml.transform.Templates;
import javax.xml.transform.Transformer;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.stream.StreamResult;
import javax.xml.transform.stream.StreamSource;

/**
 * xalan-standin: a stand-in of our own for DaCapo's xalan (which cannot be downloaded here),
 * over the JDK's own XSLT processor ({@code javax.xml.transform}, XSLTC; no dependency). Like
 * xalan, {@code -t} threads each transform many small XML documents with stylesheets compiled
 * once ({@link Templates}, shared) through a {@link Transformer} of their own per stylesheet. The
 * work is a fixed list of items (document i, generated from the seed, and stylesheet i mod 4:
 * sorting, Muenchian grouping, recursive templates, string functions); threads take batches of
 * items from a shared counter, so the total work is fixed whatever the thread count.
 *
 * <p>Harness (DaCapo-like, as lusearch-standin): {@code -n} iterations, the last timed; the digest
 * (per item, FNV-1a of the output mixed with the item number, summed: independent of which
 * thread ran which item) must equal the first iteration's and, for the built-in sizes with the
 * default seed, the recorded one. Prints {@code ===== xalan-standin <size> PASSED in N msec =====}
 * or {@code ... FAILED ...} (exit 1). An OutOfMemoryError prints it and a FAILED line and exits
 * with status 3. A usage error is one line, exit 2.
 */
public final class Main {
    static final String NAME = "xalan-standin";
    static final String[] STYLESHEETS = {"sort", "group", "recurse", "strings"};

    /** Built-in sizes: work items, mean books per document, batch. */
    enum Size {
        SMALL(    240, 20, 8),
        DEFAULT(2_000, 30, 16),
        LARGE( 10_000, 40, 32);

        final int items, meanBooks, batch;

        Size(int items, int meanBooks, int batch) {
            this.items = items; this.meanBooks = meanBooks; this.batch = batch;
        }
    }

    /** Digests recorded for the built-in sizes with the default seed. */
    static String expectedDigest(Size size) {
        switch (size) {
            case SMALL: return "2e44b8ab5ac69f93";
            case DEFAULT: return "4691b615c791b396";
            case LARGE: return "71f190324573091a";
            default: return "";
        }
    }

    static final long DEFAULT_SEED = 20261125L;

    int threads = Runtime.getRuntime().availableProcessors();
    int iterations = 1;
    Size size = Size.DEFAULT;
    long seed = DEFAULT_SEED;
    Integer items, meanBooks, batch;
    Integer print;
    String expect;
    String callbackClass;
    boolean verbose = false;

    public static void main(String[] args) {
        Main m = new Main();
        int status;
        try {
            m.parse(args);
            status = m.run();
        } catch (UsageError e) {
            System.err.println(NAME + ": " + e.getMessage() + " (--help lists the options)");
            status = 2;
        } catch (Throwable e) {
            if (isOom(e)) {
                System.err.println(NAME + ": java.lang.OutOfMemoryError: " + oomMessage(e));
                System.out.printf(Locale.ROOT, "===== %s %s FAILED (out of memory) =====%n", NAME, m.sizeName());
                status = 3;
            } else {
                e.printStackTrace();
                System.out.printf(Locale.ROOT, "===== %s %s FAILED (%s) =====%n", NAME, m.sizeName(), e);
                status = 1;
            }
        }
        System.out.flush();
        System.exit(status);
    }

    static final class UsageError extends Exception {
        UsageError(String m) { super(m); }
    }

    static void usage(PrintStream out) {
        out.println("usage: java -jar xalan-standin.jar [options] [xalan]");
        out.println("       java -cp xalan-standin.jar:<probes.jar> Harness -c probe.ProbeMux [options] [xalan]");
        out.println("  -t, --threads N     transformer threads (default: available processors)");
        out.println("  -n, --iterations N  iterations; the last is timed (default 1)");
        out.println("  -s, --size S        small | default | large");
        out.println("  --seed N --items N --books N --batch N   override the size (work items, mean books per document)");
        out.println("  --expect HEX        fail unless the digest is HEX");
        out.println("  --print I           print work item I's document and its output, and exit");
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
                    String s = strArg(args, ++i, a);
                    try { size = Size.valueOf(s.toUpperCase(Locale.ROOT)); } catch (IllegalArgumentException e) {
                        throw new UsageError("unknown size " + s + " (small, default, large)");
                    }
                    break;
                case "--seed":
                    String v = strArg(args, ++i, a);
                    try { seed = Long.parseLong(v); } catch (NumberFormatException e) {
                        throw new UsageError(a + ": not a number: " + v);
                    }
                    break;
                case "--items": items = intArg(args, ++i, a); break;
                case "--books": meanBooks = intArg(args, ++i, a); break;
                case "--batch": batch = intArg(args, ++i, a); break;
                case "--print": print = intArg(args, ++i, a); break;
                case "--expect": expect = strArg(args, ++i, a); break;
                case "-c": case "--callback": callbackClass = strArg(args, ++i, a); break;
                case "-v": case "--verbose": verbose = true; break;
                case "-h": case "--help": usage(System.out); System.exit(0); break;
                case "xalan": case "xalan-standin": break; // the benchmark name, as on DaCapo's command line
                default: throw new UsageError("unknown option " + a);
            }
        }
        if (threads < 1 || iterations < 1) throw new UsageError("-t and -n must be >= 1");
        if (nItems() < 0 || nBooks() < 1 || nBatch() < 1) throw new UsageError("--books and --batch must be >= 1, --items >= 0");
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

    int nItems() { return items != null ? items : size.items; }
    int nBooks() { return meanBooks != null ? meanBooks : size.meanBooks; }
    int nBatch() { return batch != null ? batch : size.batch; }
    boolean builtinParameters() { return seed == DEFAULT_SEED && items == null && meanBooks == null && batch == null; }
    String sizeName() { return size.name().toLowerCase(Locale.ROOT); }

    /** The stylesheets, compiled once by the JDK's built-in XSLT processor (XSLTC). */
    static Templates[] compile() throws Exception {
        TransformerFactory f = TransformerFactory.newDefaultInstance();
        Templates[] t = new Templates[STYLESHEETS.length];
        for (int i = 0; i < t.length; i++) {
            String res = STYLESHEETS[i] + ".xsl";
            try (InputStream in = Main.class.getResourceAsStream(res)) {
                if (in == null) throw new IllegalStateException("stylesheet " + res + " missing from the jar");
                t[i] = f.newTemplates(new StreamSource(in, res));
            }
        }
        return t;
    }

    int run() throws Exception {
        Templates[] templates = compile();
        if (print != null) {
            String doc = Documents.document(seed, print, nBooks());
            StringWriter out = new StringWriter();
            templates[print % templates.length].newTransformer().transform(new StreamSource(new StringReader(doc)), new StreamResult(out));
            System.out.print(doc);
            System.out.printf(Locale.ROOT, "----- %s.xsl output (item %d, digest contribution %016x) -----%n%s%n",
                    STYLESHEETS[print % templates.length], print, mixResult(print, out.getBuffer()), out);
            return 0;
        }
        Callback cb = Callback.load(callbackClass);
        cb.init();
        String first = null;
        boolean ok = true;
        System.out.printf(Locale.ROOT, "===== %s %s starting (%d threads, %d documents of ~%d books in batches of %d, "
                + "%d stylesheets) =====%n", NAME, sizeName(), threads, nItems(), nBooks(), nBatch(), templates.length);
        for (int it = 1; it <= iterations; it++) {
            boolean warmup = it < iterations;
            cb.begin("xalan", warmup);
            long t0 = System.nanoTime();
            String digest = runIteration(templates);
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
        return 0;
    }

    String runIteration(Templates[] templates) throws Exception {
        int n = nItems(), b = nBatch();
        int nBatches = (n + b - 1) / b;
        AtomicInteger next = new AtomicInteger();
        AtomicLong digest = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread th = new Thread(() -> {
                try {
                    Transformer[] mine = new Transformer[templates.length]; // one per stylesheet, this thread's
                    for (int i = 0; i < mine.length; i++) mine[i] = templates[i].newTransformer();
                    long local = 0;
                    for (int k; (k = next.getAndIncrement()) < nBatches && failure.get() == null; ) {
                        for (int item = k * b; item < Math.min(n, (k + 1) * b); item++) {
                            String doc = Documents.document(seed, item, nBooks());
                            Transformer tr = mine[item % mine.length];
                            StringWriter out = new StringWriter(doc.length());
                            tr.transform(new StreamSource(new StringReader(doc)), new StreamResult(out));
                            tr.reset();
                            local += mixResult(item, out.getBuffer());
                        }
                    }
                    digest.addAndGet(local);
                } catch (Throwable e) {
                    failure.accumulateAndGet(e, (old, neu) -> old == null || (!isOom(old) && isOom(neu)) ? neu : old);
                }
            }, NAME + "-worker-" + t);
            workers.add(th);
            th.start();
        }
        for (Thread th : workers) th.join();
        Throwable f = failure.get();
        if (f instanceof Exception) throw (Exception) f;
        if (f instanceof Error) throw (Error) f;
        if (f != null) throw new RuntimeException(f);
        return String.format(Locale.ROOT, "%016x", digest.get());
    }

    /** Order-independent digest contribution of item i's output (FNV-1a, then mixed with i). */
    static long mixResult(int item, CharSequence s) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < s.length(); i++) {
            h ^= s.charAt(i);
            h *= 0x100000001b3L;
        }
        return Documents.mix(h, item);
    }

    /** Whether `t` is, or was caused by, an OutOfMemoryError (XSLTC may wrap it). */
    static boolean isOom(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof OutOfMemoryError) return true;
            for (Throwable s : c.getSuppressed()) if (isOom(s)) return true;
        }
        return false;
    }

    static String oomMessage(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof OutOfMemoryError) return c.getMessage();
        }
        return String.valueOf(t.getMessage());
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
