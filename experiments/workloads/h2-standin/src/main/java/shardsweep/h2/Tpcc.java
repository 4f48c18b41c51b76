package shardsweep.h2;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A TPC-C-like database and driver of our own, written from the TPC-C specification's outline
 * (schema of nine tables; new-order, payment, order-status, delivery and stock-level
 * transactions; NURand; the consistency conditions), scaled down. Differences from TPC-C, for a
 * result that depends on nothing but the seed: every transaction stays in its home warehouse
 * (no remote payments or remote supply warehouses), and each warehouse's transactions run in a
 * fixed sequence (drawn from a random stream of its own) on one connection at a time; times are
 * logical (a per-warehouse counter), not the clock. Customers per district, items and
 * warehouses are parameters ({@link Scale}).
 */
final class Tpcc {
    static final int DISTRICTS = 10;
    /** TPC-C's NURand constants C (fixed: a run-time choice in TPC-C). */
    static final int C_LAST = 157, C_ID = 259, C_ITEM = 7911;
    static final LocalDateTime EPOCH = LocalDateTime.of(2024, 1, 1, 0, 0);
    static final String[] SYLLABLES = {"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"};
    static final BigDecimal ONE = BigDecimal.ONE;

    /** Database and work parameters. */
    static final class Scale {
        final long seed;
        final int warehouses, items, customers, transactions;

        Scale(long seed, int warehouses, int items, int customers, int transactions) {
            this.seed = seed; this.warehouses = warehouses; this.items = items;
            this.customers = customers; this.transactions = transactions;
        }

        /** Distinct last names per district: about three customers share each. */
        int lastNames() { return Math.max(1, Math.min(1000, customers / 3)); }
    }

    static final String[] SCHEMA = {
        "CREATE TABLE warehouse (w_id INT PRIMARY KEY, w_name VARCHAR(10), w_street_1 VARCHAR(20), "
            + "w_street_2 VARCHAR(20), w_city VARCHAR(20), w_state CHAR(2), w_zip CHAR(9), "
            + "w_tax DECIMAL(4,4), w_ytd DECIMAL(12,2))",
        "CREATE TABLE district (d_id INT, d_w_id INT, d_name VARCHAR(10), d_street_1 VARCHAR(20), "
            + "d_street_2 VARCHAR(20), d_city VARCHAR(20), d_state CHAR(2), d_zip CHAR(9), "
            + "d_tax DECIMAL(4,4), d_ytd DECIMAL(12,2), d_next_o_id INT, PRIMARY KEY (d_w_id, d_id))",
        "CREATE TABLE customer (c_id INT, c_d_id INT, c_w_id INT, c_first VARCHAR(16), c_middle CHAR(2), "
            + "c_last VARCHAR(16), c_street_1 VARCHAR(20), c_street_2 VARCHAR(20), c_city VARCHAR(20), "
            + "c_state CHAR(2), c_zip CHAR(9), c_phone CHAR(16), c_since TIMESTAMP, c_credit CHAR(2), "
            + "c_credit_lim DECIMAL(12,2), c_discount DECIMAL(4,4), c_balance DECIMAL(12,2), "
            + "c_ytd_payment DECIMAL(12,2), c_payment_cnt INT, c_delivery_cnt INT, c_data VARCHAR(500), "
            + "PRIMARY KEY (c_w_id, c_d_id, c_id))",
        "CREATE INDEX customer_name ON customer (c_w_id, c_d_id, c_last, c_first)",
        "CREATE TABLE history (h_c_id INT, h_c_d_id INT, h_c_w_id INT, h_d_id INT, h_w_id INT, "
            + "h_date TIMESTAMP, h_amount DECIMAL(6,2), h_data VARCHAR(24))",
        "CREATE TABLE new_order (no_o_id INT, no_d_id INT, no_w_id INT, PRIMARY KEY (no_w_id, no_d_id, no_o_id))",
        "CREATE TABLE orders (o_id INT, o_d_id INT, o_w_id INT, o_c_id INT, o_entry_d TIMESTAMP, "
            + "o_carrier_id INT, o_ol_cnt INT, o_all_local INT, PRIMARY KEY (o_w_id, o_d_id, o_id))",
        "CREATE INDEX orders_customer ON orders (o_w_id, o_d_id, o_c_id, o_id)",
        "CREATE TABLE order_line (ol_o_id INT, ol_d_id INT, ol_w_id INT, ol_number INT, ol_i_id INT, "
            + "ol_supply_w_id INT, ol_delivery_d TIMESTAMP, ol_quantity INT, ol_amount DECIMAL(6,2), "
            + "ol_dist_info CHAR(24), PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number))",
        "CREATE TABLE item (i_id INT PRIMARY KEY, i_im_id INT, i_name VARCHAR(24), i_price DECIMAL(5,2), "
            + "i_data VARCHAR(50))",
        "CREATE TABLE stock (s_i_id INT, s_w_id INT, s_quantity INT, s_dist_01 CHAR(24), s_dist_02 CHAR(24), "
            + "s_dist_03 CHAR(24), s_dist_04 CHAR(24), s_dist_05 CHAR(24), s_dist_06 CHAR(24), "
            + "s_dist_07 CHAR(24), s_dist_08 CHAR(24), s_dist_09 CHAR(24), s_dist_10 CHAR(24), "
            + "s_ytd INT, s_order_cnt INT, s_remote_cnt INT, s_data VARCHAR(50), PRIMARY KEY (s_w_id, s_i_id))",
    };

    // ------------------------------------------------------------------ random values
    static String alnum(SplittableRandom r, int min, int max) {
        int n = r.nextInt(min, max + 1);
        char[] c = new char[n];
        for (int i = 0; i < n; i++) {
            int x = r.nextInt(62);
            c[i] = (char) (x < 10 ? '0' + x : x < 36 ? 'a' + x - 10 : 'A' + x - 36);
        }
        return new String(c);
    }

    static String digits(SplittableRandom r, int n) {
        char[] c = new char[n];
        for (int i = 0; i < n; i++) c[i] = (char) ('0' + r.nextInt(10));
        return new String(c);
    }

    /** i_data / s_data: 26..50 characters, 10% with "ORIGINAL" somewhere. */
    static String data(SplittableRandom r) {
        String s = alnum(r, 26, 50);
        if (r.nextInt(10) == 0) {
            int at = r.nextInt(s.length() - 8);
            s = s.substring(0, at) + "ORIGINAL" + s.substring(at + 8);
        }
        return s;
    }

    static String lastName(int n) {
        return SYLLABLES[n / 100] + SYLLABLES[(n / 10) % 10] + SYLLABLES[n % 10];
    }

    static int nuRand(SplittableRandom r, int a, int c, int x, int y) {
        return (((r.nextInt(a + 1) | (x + r.nextInt(y - x + 1))) + c) % (y - x + 1)) + x;
    }

    static BigDecimal money(long cents) { return BigDecimal.valueOf(cents, 2); }

    static LocalDateTime at(long tick) { return EPOCH.plusSeconds(tick); }

    // ------------------------------------------------------------------ load
    static void createSchema(Connection c) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String ddl : SCHEMA) s.execute(ddl);
        }
        c.commit();
    }

    static void loadItems(Connection c, Scale sc) throws SQLException {
        SplittableRandom r = new SplittableRandom(Digest.mix(sc.seed ^ 0x17E3, 0));
        try (PreparedStatement p = c.prepareStatement("INSERT INTO item VALUES (?, ?, ?, ?, ?)")) {
            for (int i = 1; i <= sc.items; i++) {
                p.setInt(1, i);
                p.setInt(2, r.nextInt(1, 10_001));
                p.setString(3, alnum(r, 14, 24));
                p.setBigDecimal(4, money(r.nextInt(100, 10_001)));
                p.setString(5, data(r));
                p.addBatch();
                if (i % 500 == 0) p.executeBatch();
            }
            p.executeBatch();
        }
        c.commit();
    }

    /** Loads warehouse w (its row, stock, districts, customers, history, orders) in one transaction. */
    static void loadWarehouse(Connection c, Scale sc, int w) throws SQLException {
        SplittableRandom r = new SplittableRandom(Digest.mix(sc.seed ^ 0x10AD, w));
        try (PreparedStatement p = c.prepareStatement("INSERT INTO warehouse VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            p.setInt(1, w);
            p.setString(2, alnum(r, 6, 10));
            p.setString(3, alnum(r, 10, 20));
            p.setString(4, alnum(r, 10, 20));
            p.setString(5, alnum(r, 10, 20));
            p.setString(6, alnum(r, 2, 2));
            p.setString(7, digits(r, 4) + "11111");
            p.setBigDecimal(8, BigDecimal.valueOf(r.nextInt(0, 2001), 4));
            p.setBigDecimal(9, money(30_000_000L));
            p.executeUpdate();
        }
        try (PreparedStatement p = c.prepareStatement(
                "INSERT INTO stock VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, ?)")) {
            for (int i = 1; i <= sc.items; i++) {
                p.setInt(1, i);
                p.setInt(2, w);
                p.setInt(3, r.nextInt(10, 101));
                for (int d = 1; d <= DISTRICTS; d++) p.setString(3 + d, alnum(r, 24, 24));
                p.setString(14, data(r));
                p.addBatch();
                if (i % 500 == 0) p.executeBatch();
            }
            p.executeBatch();
        }
        LocalDateTime since = at(-1);
        try (PreparedStatement dp = c.prepareStatement("INSERT INTO district VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
             PreparedStatement cp = c.prepareStatement("INSERT INTO customer VALUES "
                     + "(?, ?, ?, ?, 'OE', ?, ?, ?, ?, ?, ?, ?, ?, ?, 5000000.00, ?, -10.00, 10.00, 1, 0, ?)");
             PreparedStatement hp = c.prepareStatement("INSERT INTO history VALUES (?, ?, ?, ?, ?, ?, 10.00, ?)");
             PreparedStatement op = c.prepareStatement("INSERT INTO orders VALUES (?, ?, ?, ?, ?, ?, ?, 1)");
             PreparedStatement np = c.prepareStatement("INSERT INTO new_order VALUES (?, ?, ?)");
             PreparedStatement lp = c.prepareStatement("INSERT INTO order_line VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            int n = sc.customers;
            for (int d = 1; d <= DISTRICTS; d++) {
                dp.setInt(1, d);
                dp.setInt(2, w);
                dp.setString(3, alnum(r, 6, 10));
                dp.setString(4, alnum(r, 10, 20));
                dp.setString(5, alnum(r, 10, 20));
                dp.setString(6, alnum(r, 10, 20));
                dp.setString(7, alnum(r, 2, 2));
                dp.setString(8, digits(r, 4) + "11111");
                dp.setBigDecimal(9, BigDecimal.valueOf(r.nextInt(0, 2001), 4));
                dp.setBigDecimal(10, money(3_000_000L));
                dp.setInt(11, n + 1);
                dp.executeUpdate();
                for (int cid = 1; cid <= n; cid++) {
                    cp.setInt(1, cid);
                    cp.setInt(2, d);
                    cp.setInt(3, w);
                    cp.setString(4, alnum(r, 8, 16));
                    cp.setString(5, lastName((cid - 1) % sc.lastNames()));
                    cp.setString(6, alnum(r, 10, 20));
                    cp.setString(7, alnum(r, 10, 20));
                    cp.setString(8, alnum(r, 10, 20));
                    cp.setString(9, alnum(r, 2, 2));
                    cp.setString(10, digits(r, 4) + "11111");
                    cp.setString(11, digits(r, 16));
                    cp.setObject(12, since);
                    cp.setString(13, r.nextInt(10) == 0 ? "BC" : "GC");
                    cp.setBigDecimal(14, BigDecimal.valueOf(r.nextInt(0, 5001), 4));
                    cp.setString(15, alnum(r, 300, 500));
                    cp.addBatch();
                    hp.setInt(1, cid);
                    hp.setInt(2, d);
                    hp.setInt(3, w);
                    hp.setInt(4, d);
                    hp.setInt(5, w);
                    hp.setObject(6, since);
                    hp.setString(7, alnum(r, 12, 24));
                    hp.addBatch();
                }
                cp.executeBatch();
                hp.executeBatch();
                // One order per customer, in a random permutation of the customers; the last
                // 30% undelivered (in new_order, no carrier, no delivery date, amounts > 0).
                int[] perm = new int[n];
                for (int i = 0; i < n; i++) perm[i] = i + 1;
                for (int i = n - 1; i > 0; i--) {
                    int j = r.nextInt(i + 1);
                    int t = perm[i]; perm[i] = perm[j]; perm[j] = t;
                }
                int firstNew = n - (n * 3) / 10 + 1;
                for (int o = 1; o <= n; o++) {
                    boolean delivered = o < firstNew;
                    int lines = r.nextInt(5, 16);
                    op.setInt(1, o);
                    op.setInt(2, d);
                    op.setInt(3, w);
                    op.setInt(4, perm[o - 1]);
                    op.setObject(5, since);
                    if (delivered) op.setInt(6, r.nextInt(1, 11)); else op.setObject(6, null);
                    op.setInt(7, lines);
                    op.addBatch();
                    if (!delivered) {
                        np.setInt(1, o);
                        np.setInt(2, d);
                        np.setInt(3, w);
                        np.addBatch();
                    }
                    for (int l = 1; l <= lines; l++) {
                        lp.setInt(1, o);
                        lp.setInt(2, d);
                        lp.setInt(3, w);
                        lp.setInt(4, l);
                        lp.setInt(5, r.nextInt(1, sc.items + 1));
                        lp.setInt(6, w);
                        lp.setObject(7, delivered ? since : null);
                        lp.setInt(8, 5);
                        lp.setBigDecimal(9, delivered ? money(0) : money(r.nextInt(1, 1_000_000)));
                        lp.setString(10, alnum(r, 24, 24));
                        lp.addBatch();
                    }
                }
                op.executeBatch();
                np.executeBatch();
                lp.executeBatch();
            }
        }
        c.commit();
    }

    // ------------------------------------------------------------------ transactions
    /** One connection's prepared statements and the five transactions. */
    static final class Terminal implements AutoCloseable {
        final Connection c;
        final Scale sc;
        final List<PreparedStatement> all = new ArrayList<>();
        final PreparedStatement wTax, dForUpdate, dNext, cInfo, oInsert, noInsert, iGet, sUpdate, olInsert;
        final PreparedStatement[] sGet = new PreparedStatement[DISTRICTS + 1];
        final PreparedStatement wYtd, wGet, dYtd, dGet, cByName, cGet, cPay, cPayBc, hInsert;
        final PreparedStatement oLast, olOfOrder, noMin, noDelete, oCust, oCarrier, olDeliver, olSum, cDeliver;
        final PreparedStatement dNextOid, stockLevel;

        Terminal(Connection c, Scale sc) throws SQLException {
            this.c = c;
            this.sc = sc;
            wTax = p("SELECT w_tax FROM warehouse WHERE w_id = ?");
            dForUpdate = p("SELECT d_tax, d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ? FOR UPDATE");
            dNext = p("UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ? AND d_id = ?");
            cInfo = p("SELECT c_discount, c_last, c_credit FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?");
            oInsert = p("INSERT INTO orders VALUES (?, ?, ?, ?, ?, NULL, ?, 1)");
            noInsert = p("INSERT INTO new_order VALUES (?, ?, ?)");
            iGet = p("SELECT i_price, i_name, i_data FROM item WHERE i_id = ?");
            for (int d = 1; d <= DISTRICTS; d++) {
                sGet[d] = p(String.format("SELECT s_quantity, s_data, s_dist_%02d FROM stock WHERE s_w_id = ? AND s_i_id = ? FOR UPDATE", d));
            }
            sUpdate = p("UPDATE stock SET s_quantity = ?, s_ytd = s_ytd + ?, s_order_cnt = s_order_cnt + 1 "
                    + "WHERE s_w_id = ? AND s_i_id = ?");
            olInsert = p("INSERT INTO order_line VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)");
            wYtd = p("UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?");
            wGet = p("SELECT w_name, w_street_1, w_city, w_zip FROM warehouse WHERE w_id = ?");
            dYtd = p("UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?");
            dGet = p("SELECT d_name, d_street_1, d_city, d_zip FROM district WHERE d_w_id = ? AND d_id = ?");
            cByName = p("SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first, c_id");
            cGet = p("SELECT c_first, c_middle, c_last, c_credit, c_credit_lim, c_discount, c_balance, c_data "
                    + "FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ? FOR UPDATE");
            cPay = p("UPDATE customer SET c_balance = ?, c_ytd_payment = c_ytd_payment + ?, "
                    + "c_payment_cnt = c_payment_cnt + 1 WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?");
            cPayBc = p("UPDATE customer SET c_balance = ?, c_ytd_payment = c_ytd_payment + ?, "
                    + "c_payment_cnt = c_payment_cnt + 1, c_data = ? WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?");
            hInsert = p("INSERT INTO history VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
            oLast = p("SELECT o_id, o_entry_d, o_carrier_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ? "
                    + "ORDER BY o_id DESC LIMIT 1");
            olOfOrder = p("SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line "
                    + "WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ? ORDER BY ol_number");
            noMin = p("SELECT MIN(no_o_id) FROM new_order WHERE no_w_id = ? AND no_d_id = ?");
            noDelete = p("DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?");
            oCust = p("SELECT o_c_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?");
            oCarrier = p("UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?");
            olDeliver = p("UPDATE order_line SET ol_delivery_d = ? WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?");
            olSum = p("SELECT SUM(ol_amount) FROM order_line WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?");
            cDeliver = p("UPDATE customer SET c_balance = c_balance + ?, c_delivery_cnt = c_delivery_cnt + 1 "
                    + "WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?");
            dNextOid = p("SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?");
            stockLevel = p("SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock WHERE ol_w_id = ? AND ol_d_id = ? "
                    + "AND ol_o_id < ? AND ol_o_id >= ? AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?");
        }

        PreparedStatement p(String sql) throws SQLException {
            PreparedStatement s = c.prepareStatement(sql);
            all.add(s);
            return s;
        }

        static PreparedStatement set(PreparedStatement s, Object... args) throws SQLException {
            for (int i = 0; i < args.length; i++) s.setObject(i + 1, args[i]);
            return s;
        }

        /** Runs warehouse w's fixed sequence of transactions; returns the digest of their results. */
        long runWarehouse(int w) throws SQLException {
            SplittableRandom r = new SplittableRandom(Digest.mix(sc.seed ^ 0x7E57, w));
            Digest h = new Digest().add(w);
            for (int k = 0; k < sc.transactions; k++) {
                long tick = k + 1;
                int kind = r.nextInt(100);
                if (kind < 45) newOrder(r, w, tick, h);
                else if (kind < 88) payment(r, w, tick, h);
                else if (kind < 92) orderStatus(r, w, h);
                else if (kind < 96) delivery(r, w, tick, h);
                else stockLevel(r, w, h);
            }
            return h.h;
        }

        void newOrder(SplittableRandom r, int w, long tick, Digest h) throws SQLException {
            int d = r.nextInt(1, DISTRICTS + 1);
            int cid = nuRand(r, 1023, C_ID, 1, sc.customers);
            int lines = r.nextInt(5, 16);
            boolean rollback = r.nextInt(100) == 0; // TPC-C: 1% name an unused item and roll back
            int[] item = new int[lines], qty = new int[lines];
            for (int i = 0; i < lines; i++) {
                item[i] = rollback && i == lines - 1 ? sc.items + 1 : nuRand(r, 8191, C_ITEM, 1, sc.items);
                qty[i] = r.nextInt(1, 11);
            }
            BigDecimal wtax, dtax, discount;
            int oid;
            try (ResultSet rs = set(wTax, w).executeQuery()) { rs.next(); wtax = rs.getBigDecimal(1); }
            try (ResultSet rs = set(dForUpdate, w, d).executeQuery()) {
                rs.next();
                dtax = rs.getBigDecimal(1);
                oid = rs.getInt(2);
            }
            set(dNext, w, d).executeUpdate();
            h.add('N').add(d).add(oid).add(cid);
            try (ResultSet rs = set(cInfo, w, d, cid).executeQuery()) {
                rs.next();
                discount = rs.getBigDecimal(1);
                h.add(rs.getString(2)).add(rs.getString(3));
            }
            set(oInsert, oid, d, w, cid, at(tick), lines).executeUpdate();
            set(noInsert, oid, d, w).executeUpdate();
            BigDecimal sum = BigDecimal.ZERO;
            for (int i = 0; i < lines; i++) {
                BigDecimal price;
                String name, idata;
                try (ResultSet rs = set(iGet, item[i]).executeQuery()) {
                    if (!rs.next()) { // the unused item: roll the whole order back
                        c.rollback();
                        h.add("rollback");
                        return;
                    }
                    price = rs.getBigDecimal(1);
                    name = rs.getString(2);
                    idata = rs.getString(3);
                }
                int q;
                String sdata, dist;
                try (ResultSet rs = set(sGet[d], w, item[i]).executeQuery()) {
                    rs.next();
                    q = rs.getInt(1);
                    sdata = rs.getString(2);
                    dist = rs.getString(3);
                }
                int nq = q >= qty[i] + 10 ? q - qty[i] : q - qty[i] + 91;
                set(sUpdate, nq, qty[i], w, item[i]).executeUpdate();
                BigDecimal amount = price.multiply(BigDecimal.valueOf(qty[i])).setScale(2, RoundingMode.HALF_UP);
                set(olInsert, oid, d, w, i + 1, item[i], w, qty[i], amount, dist).executeUpdate();
                sum = sum.add(amount);
                boolean brand = idata.contains("ORIGINAL") && sdata.contains("ORIGINAL");
                h.add(name).add(nq).add(brand ? 'B' : 'G').add(amount);
            }
            BigDecimal total = sum.multiply(ONE.subtract(discount)).multiply(ONE.add(wtax).add(dtax))
                    .setScale(2, RoundingMode.HALF_UP);
            h.add(total);
            c.commit();
        }

        /** A customer by last name (60%: the middle one of those sorted by first name) or by id. */
        int customer(SplittableRandom r, int w, int d, Digest h) throws SQLException {
            if (r.nextInt(100) < 60) {
                String last = lastName(nuRand(r, 255, C_LAST, 0, sc.lastNames() - 1));
                List<Integer> ids = new ArrayList<>();
                try (ResultSet rs = set(cByName, w, d, last).executeQuery()) {
                    while (rs.next()) ids.add(rs.getInt(1));
                }
                h.add(last).add(ids.size());
                return ids.get((ids.size() - 1) / 2);
            }
            return nuRand(r, 1023, C_ID, 1, sc.customers);
        }

        void payment(SplittableRandom r, int w, long tick, Digest h) throws SQLException {
            int d = r.nextInt(1, DISTRICTS + 1);
            BigDecimal amount = money(r.nextInt(100, 500_001));
            h.add('P').add(d).add(amount);
            set(wYtd, amount, w).executeUpdate();
            String wname, dname;
            try (ResultSet rs = set(wGet, w).executeQuery()) { rs.next(); wname = rs.getString(1); h.add(rs.getString(3)); }
            set(dYtd, amount, w, d).executeUpdate();
            try (ResultSet rs = set(dGet, w, d).executeQuery()) { rs.next(); dname = rs.getString(1); h.add(rs.getString(3)); }
            int cid = customer(r, w, d, h);
            String credit, cdata;
            BigDecimal balance;
            try (ResultSet rs = set(cGet, w, d, cid).executeQuery()) {
                rs.next();
                h.add(rs.getString(1)).add(rs.getString(3));
                credit = rs.getString(4);
                balance = rs.getBigDecimal(7).subtract(amount);
                cdata = rs.getString(8);
            }
            if ("BC".equals(credit)) {
                String more = cid + " " + d + " " + w + " " + d + " " + w + " " + amount.toPlainString() + " | ";
                cdata = (more + cdata);
                if (cdata.length() > 500) cdata = cdata.substring(0, 500);
                set(cPayBc, balance, amount, cdata, w, d, cid).executeUpdate();
                h.add(cdata.substring(0, 200));
            } else {
                set(cPay, balance, amount, w, d, cid).executeUpdate();
            }
            set(hInsert, cid, d, w, d, w, at(tick), amount, wname + "    " + dname).executeUpdate();
            h.add(cid).add(credit).add(balance);
            c.commit();
        }

        void orderStatus(SplittableRandom r, int w, Digest h) throws SQLException {
            int d = r.nextInt(1, DISTRICTS + 1);
            h.add('O').add(d);
            int cid = customer(r, w, d, h);
            try (ResultSet rs = set(cGet, w, d, cid).executeQuery()) {
                rs.next();
                h.add(cid).add(rs.getString(1)).add(rs.getString(3)).add(rs.getBigDecimal(7));
            }
            int oid;
            try (ResultSet rs = set(oLast, w, d, cid).executeQuery()) {
                rs.next();
                oid = rs.getInt(1);
                h.add(oid).add(rs.getObject(2, LocalDateTime.class).toString()).add(rs.getInt(3));
            }
            try (ResultSet rs = set(olOfOrder, w, d, oid).executeQuery()) {
                while (rs.next()) {
                    LocalDateTime del = rs.getObject(5, LocalDateTime.class);
                    h.add(rs.getInt(1)).add(rs.getInt(2)).add(rs.getInt(3)).add(rs.getBigDecimal(4))
                            .add(del == null ? "-" : del.toString());
                }
            }
            c.commit();
        }

        void delivery(SplittableRandom r, int w, long tick, Digest h) throws SQLException {
            int carrier = r.nextInt(1, 11);
            h.add('D').add(carrier);
            for (int d = 1; d <= DISTRICTS; d++) {
                int oid;
                try (ResultSet rs = set(noMin, w, d).executeQuery()) {
                    rs.next();
                    oid = rs.getInt(1);
                    if (rs.wasNull()) { h.add(-d); continue; } // nothing to deliver in d
                }
                set(noDelete, w, d, oid).executeUpdate();
                int cid;
                try (ResultSet rs = set(oCust, w, d, oid).executeQuery()) { rs.next(); cid = rs.getInt(1); }
                set(oCarrier, carrier, w, d, oid).executeUpdate();
                set(olDeliver, at(tick), w, d, oid).executeUpdate();
                BigDecimal sum;
                try (ResultSet rs = set(olSum, w, d, oid).executeQuery()) { rs.next(); sum = rs.getBigDecimal(1); }
                set(cDeliver, sum, w, d, cid).executeUpdate();
                h.add(oid).add(cid).add(sum);
            }
            c.commit();
        }

        void stockLevel(SplittableRandom r, int w, Digest h) throws SQLException {
            int d = r.nextInt(1, DISTRICTS + 1);
            int threshold = r.nextInt(10, 21);
            int next;
            try (ResultSet rs = set(dNextOid, w, d).executeQuery()) { rs.next(); next = rs.getInt(1); }
            try (ResultSet rs = set(stockLevel, w, d, next, next - 20, w, threshold).executeQuery()) {
                rs.next();
                h.add('S').add(d).add(threshold).add(next).add(rs.getInt(1));
            }
            c.commit();
        }

        @Override
        public void close() throws SQLException {
            for (PreparedStatement s : all) s.close();
        }
    }

    // ------------------------------------------------------------------ end of run
    /**
     * TPC-C's consistency conditions 1-4 (clause 3.3.2) over the whole database, and a digest of
     * the final state (per warehouse and district, in key order). Returns the digest; a broken
     * condition throws.
     */
    static long checkAndDigest(Connection c, Scale sc) throws SQLException {
        Digest h = new Digest();
        List<String> broken = new ArrayList<>();
        try (Statement s = c.createStatement()) {
            // 1: W_YTD = sum(D_YTD)
            try (ResultSet rs = s.executeQuery("SELECT w.w_id, w.w_ytd, SUM(d.d_ytd) FROM warehouse w JOIN district d "
                    + "ON d.d_w_id = w.w_id GROUP BY w.w_id, w.w_ytd ORDER BY w.w_id")) {
                int n = 0;
                while (rs.next()) {
                    n++;
                    if (rs.getBigDecimal(2).compareTo(rs.getBigDecimal(3)) != 0) {
                        broken.add("1: warehouse " + rs.getInt(1) + " w_ytd " + rs.getBigDecimal(2) + " != sum(d_ytd) " + rs.getBigDecimal(3));
                    }
                    h.add(rs.getInt(1)).add(rs.getBigDecimal(2));
                }
                if (n != sc.warehouses) broken.add("warehouses: " + n + " != " + sc.warehouses);
            }
            // 2: D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID); 3: count(NO) = max(NO) - min(NO) + 1;
            // 4: sum(O_OL_CNT) = count(order lines).
            try (ResultSet rs = s.executeQuery("SELECT d.d_w_id, d.d_id, d.d_next_o_id, d.d_ytd, "
                    + "(SELECT MAX(o_id) FROM orders WHERE o_w_id = d.d_w_id AND o_d_id = d.d_id), "
                    + "(SELECT MAX(no_o_id) FROM new_order WHERE no_w_id = d.d_w_id AND no_d_id = d.d_id), "
                    + "(SELECT MIN(no_o_id) FROM new_order WHERE no_w_id = d.d_w_id AND no_d_id = d.d_id), "
                    + "(SELECT COUNT(*) FROM new_order WHERE no_w_id = d.d_w_id AND no_d_id = d.d_id), "
                    + "(SELECT SUM(o_ol_cnt) FROM orders WHERE o_w_id = d.d_w_id AND o_d_id = d.d_id), "
                    + "(SELECT COUNT(*) FROM order_line WHERE ol_w_id = d.d_w_id AND ol_d_id = d.d_id) "
                    + "FROM district d ORDER BY d.d_w_id, d.d_id")) {
                while (rs.next()) {
                    String at = "warehouse " + rs.getInt(1) + " district " + rs.getInt(2) + ": ";
                    int next = rs.getInt(3), maxO = rs.getInt(5);
                    int maxNo = rs.getInt(6);
                    boolean noneNew = rs.wasNull();
                    int minNo = rs.getInt(7);
                    long countNo = rs.getLong(8), olCnt = rs.getLong(9), lines = rs.getLong(10);
                    if (next - 1 != maxO) broken.add("2: " + at + "d_next_o_id - 1 = " + (next - 1) + " != max(o_id) " + maxO);
                    if (!noneNew && maxNo != maxO) broken.add("2: " + at + "max(no_o_id) " + maxNo + " != max(o_id) " + maxO);
                    if (!noneNew && countNo != maxNo - minNo + 1) broken.add("3: " + at + "count(new_order) " + countNo
                            + " != " + (maxNo - minNo + 1));
                    if (olCnt != lines) broken.add("4: " + at + "sum(o_ol_cnt) " + olCnt + " != order lines " + lines);
                    h.add(next).add(rs.getBigDecimal(4)).add(countNo).add(lines);
                }
            }
            try (ResultSet rs = s.executeQuery("SELECT c_w_id, SUM(c_balance), SUM(c_ytd_payment), SUM(c_payment_cnt), "
                    + "SUM(c_delivery_cnt) FROM customer GROUP BY c_w_id ORDER BY c_w_id")) {
                while (rs.next()) h.add(rs.getInt(1)).add(rs.getBigDecimal(2)).add(rs.getBigDecimal(3)).add(rs.getLong(4)).add(rs.getLong(5));
            }
            try (ResultSet rs = s.executeQuery("SELECT s_w_id, SUM(s_quantity), SUM(s_ytd), SUM(s_order_cnt) FROM stock "
                    + "GROUP BY s_w_id ORDER BY s_w_id")) {
                while (rs.next()) h.add(rs.getInt(1)).add(rs.getLong(2)).add(rs.getLong(3)).add(rs.getLong(4));
            }
            try (ResultSet rs = s.executeQuery("SELECT COUNT(*), SUM(h_amount) FROM history")) {
                rs.next();
                h.add(rs.getLong(1)).add(rs.getBigDecimal(2));
            }
        }
        c.commit();
        if (!broken.isEmpty()) {
            throw new IllegalStateException("TPC-C consistency condition " + broken.get(0)
                    + (broken.size() > 1 ? " (and " + (broken.size() - 1) + " more)" : ""));
        }
        return h.h;
    }
}
