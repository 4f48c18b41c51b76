package shardsweep.h2;

import java.io.PrintStream;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * h2-standin: a stand-in of our own for DaCapo's h2 (which cannot be downloaded here): TPC-C-like
 * transactions ({@link Tpcc}) against an in-memory H2 database ({@code jdbc:h2:mem:}), one JDBC
 * connection per thread. The work is a fixed set of warehouses, each with a fixed sequence of
 * transactions drawn from its own random stream; {@code -t} threads take whole warehouses from
 * a shared counter (as lusearch-standin's threads take batches of queries), so the total work
 * and every warehouse's results are the same whatever the thread count.
 *
 * <p>Harness (DaCapo-like, as lusearch-standin): each iteration loads a fresh database (not
 * timed, as DaCapo's h2 resets its database before each iteration), then runs the transactions
 * (timed), then checks TPC-C's consistency conditions and digests the final state. The digest
 * (per-warehouse result digests in warehouse order, then the final state) must equal the first
 * iteration's and, for the built-in sizes with the default seed, the recorded one. Prints
 * {@code ===== h2-standin <size> PASSED in N msec =====} or {@code ... FAILED ...} (exit 1). An
 * OutOfMemoryError anywhere (H2 reports one as SQL error 90108, "Out of memory") prints it and
 * a FAILED line and exits with status 3. A usage error is one line, exit 2.
 */
public final class Main {
    static final String NAME = "h2-standin";

    /** Built-in sizes. */
    enum Size {
        //       warehouses items customers/district transactions/warehouse
        SMALL(     4,    100, 10, 150),
        DEFAULT(  48,    100, 10, 80),
        LARGE(    96,  1_000, 30, 400);

        final int warehouses, items, customers, transactions;

        Size(int warehouses, int items, int customers, int transactions) {
            this.warehouses = warehouses; this.items = items; this.customers = customers; this.transactions = transactions;
        }
    }

    /** Digests recorded for the built-in sizes with the default seed. */
    static String expectedDigest(Size size) {
        switch (size) {
            case SMALL: return "ad6e569a3aab2653";
            case DEFAULT: return "acaa3fe81ce36315";
            case LARGE: return "1f1ff46a30832810";
            default: return "";
        }
    }

    static final long DEFAULT_SEED = 20261125L;

    int threads = Runtime.getRuntime().availableProcessors();
    int iterations = 1;
    Size size = Size.DEFAULT;
    long seed = DEFAULT_SEED;
    Integer warehouses, items, customers, transactions;
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
        out.println("usage: java -jar h2-standin.jar [options] [h2]");
        out.println("       java -cp h2-standin.jar:<probes.jar> Harness -c probe.ProbeMux [options] [h2]");
        out.println("  -t, --threads N     terminal threads, one JDBC connection each (default: available processors)");
        out.println("  -n, --iterations N  iterations; the last is timed (default 1)");
        out.println("  -s, --size S        small | default | large");
        out.println("  --seed N --warehouses N --items N --customers N --transactions N   override the size");
        out.println("                      (customers per district, transactions per warehouse)");
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
                    String s = strArg(args, ++i, a);
                    try { size = Size.valueOf(s.toUpperCase(Locale.ROOT)); } catch (IllegalArgumentException e) {
                        throw new UsageError("unknown size " + s + " (small, default, large)");
                    }
                    break;
                case "--seed": seed = longArg(args, ++i, a); break;
                case "--warehouses": warehouses = intArg(args, ++i, a); break;
                case "--items": items = intArg(args, ++i, a); break;
                case "--customers": customers = intArg(args, ++i, a); break;
                case "--transactions": transactions = intArg(args, ++i, a); break;
                case "--expect": expect = strArg(args, ++i, a); break;
                case "-c": case "--callback": callbackClass = strArg(args, ++i, a); break;
                case "-v": case "--verbose": verbose = true; break;
                case "-h": case "--help": usage(System.out); System.exit(0); break;
                case "h2": case "h2-standin": break; // the benchmark name, as on DaCapo's command line
                default: throw new UsageError("unknown option " + a);
            }
        }
        if (threads < 1 || iterations < 1) throw new UsageError("-t and -n must be >= 1");
        Tpcc.Scale sc = scale();
        if (sc.warehouses < 1 || sc.items < 1 || sc.customers < 1 || sc.transactions < 0) {
            throw new UsageError("--warehouses, --items, --customers must be >= 1, --transactions >= 0");
        }
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

    static long longArg(String[] args, int i, String opt) throws UsageError {
        String v = strArg(args, i, opt);
        try { return Long.parseLong(v); } catch (NumberFormatException e) {
            throw new UsageError(opt + ": not a number: " + v);
        }
    }

    Tpcc.Scale scale() {
        return new Tpcc.Scale(seed, warehouses != null ? warehouses : size.warehouses, items != null ? items : size.items,
                customers != null ? customers : size.customers, transactions != null ? transactions : size.transactions);
    }

    boolean builtinParameters() {
        return seed == DEFAULT_SEED && warehouses == null && items == null && customers == null && transactions == null;
    }

    String sizeName() { return size.name().toLowerCase(Locale.ROOT); }

    int run() throws Exception {
        Tpcc.Scale sc = scale();
        Callback cb = Callback.load(callbackClass);
        cb.init();
        String first = null;
        boolean ok = true;
        System.out.printf(Locale.ROOT, "===== %s %s starting (%d threads, %d warehouses x %d transactions, %d items, "
                        + "%d customers per district) =====%n",
                NAME, sizeName(), threads, sc.warehouses, sc.transactions, sc.items, sc.customers);
        for (int it = 1; it <= iterations; it++) {
            boolean warmup = it < iterations;
            String url = "jdbc:h2:mem:" + NAME + "-" + it + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=600000";
            try (Connection admin = DriverManager.getConnection(url, "sa", "")) {
                admin.setAutoCommit(false);
                long t0 = System.nanoTime();
                load(url, admin, sc);
                if (verbose) {
                    System.out.printf(Locale.ROOT, "%s: database loaded in %d ms%n", NAME, (System.nanoTime() - t0) / 1_000_000);
                }
                cb.begin("h2", warmup);
                t0 = System.nanoTime();
                long[] perWarehouse = runTransactions(url, sc);
                long ms = (System.nanoTime() - t0) / 1_000_000;
                cb.end(warmup);
                if (!warmup) cb.cleanup();
                // Per-warehouse digests in warehouse order (whichever thread ran each), then
                // the final state; TPC-C's consistency conditions are checked on the way.
                Digest d = new Digest();
                for (long x : perWarehouse) d.add(x);
                d.add(Tpcc.checkAndDigest(admin, sc));
                String digest = String.format(Locale.ROOT, "%016x", d.h);
                try (Statement s = admin.createStatement()) {
                    s.execute("SHUTDOWN"); // drop this iteration's database
                }
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
            }
            if (!ok) return 1;
        }
        return 0;
    }

    /** The schema and items on the admin connection, then the warehouses in parallel (untimed). */
    void load(String url, Connection admin, Tpcc.Scale sc) throws Exception {
        Tpcc.createSchema(admin);
        Tpcc.loadItems(admin, sc);
        parallel(url, sc, (c, w) -> { Tpcc.loadWarehouse(c, sc, w); return 0L; });
    }

    /** The timed part: every warehouse's transactions, one terminal (connection, statements) per thread. */
    long[] runTransactions(String url, Tpcc.Scale sc) throws Exception {
        return parallel(url, sc, null, true);
    }

    interface WarehouseJob {
        long run(Connection c, int warehouse) throws SQLException;
    }

    long[] parallel(String url, Tpcc.Scale sc, WarehouseJob job) throws Exception {
        return parallel(url, sc, job, false);
    }

    /**
     * Runs `job` for warehouses 1..W on `threads` threads, each with its own connection, each
     * taking the next warehouse from a shared counter; result[w - 1] = job's result for w.
     * With `perThreadJob`, each thread gets its own copy of the job's state (a new Terminal).
     */
    long[] parallel(String url, Tpcc.Scale sc, WarehouseJob job, boolean perThreadJob) throws Exception {
        long[] result = new long[sc.warehouses];
        AtomicInteger next = new AtomicInteger(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread th = new Thread(() -> {
                try (Connection c = DriverManager.getConnection(url, "sa", "")) {
                    c.setAutoCommit(false);
                    Tpcc.Terminal terminal = null;
                    try {
                        for (int w; (w = next.getAndIncrement()) <= sc.warehouses && failure.get() == null; ) {
                            if (perThreadJob) {
                                if (terminal == null) terminal = new Tpcc.Terminal(c, sc);
                                result[w - 1] = terminal.runWarehouse(w);
                            } else {
                                result[w - 1] = job.run(c, w);
                            }
                        }
                    } finally {
                        if (terminal != null) terminal.close();
                    }
                } catch (Throwable e) {
                    // An OutOfMemoryError wins over any other failure (after one, H2 may close
                    // the database under the other threads).
                    failure.accumulateAndGet(e, (old, neu) -> old == null || (!isOom(old) && isOom(neu)) ? neu : old);
                }
            }, NAME + "-terminal-" + t);
            workers.add(th);
            th.start();
        }
        for (Thread th : workers) th.join();
        Throwable f = failure.get();
        if (f instanceof Exception) throw (Exception) f;
        if (f instanceof Error) throw (Error) f;
        if (f != null) throw new RuntimeException(f);
        return result;
    }

    /** H2's error code for an OutOfMemoryError it caught (ErrorCode.OUT_OF_MEMORY). */
    static final int H2_OUT_OF_MEMORY = 90108;

    /** Whether `t` is, or was caused by, an OutOfMemoryError (also as H2's SQL error 90108). */
    static boolean isOom(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof OutOfMemoryError) return true;
            if (c instanceof SQLException && ((SQLException) c).getErrorCode() == H2_OUT_OF_MEMORY) return true;
            for (Throwable s : c.getSuppressed()) if (isOom(s)) return true;
        }
        return false;
    }

    static String oomMessage(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof OutOfMemoryError) return c.getMessage();
        }
        return String.valueOf(t.getMessage()).split("\n")[0];
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
