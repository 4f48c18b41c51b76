//! Per-operation latency, as RT-mimalloc (seed 001) measures it: every `malloc` and every `free`
//! timed on its own (TSC, `lfence`-ordered), reported as p50 / p99 / p99.9 / max per operation,
//! for shardsweep's bounded mode (without and with RT-mimalloc-pag's profile: `bounded-pag`,
//! every size class up to 4 KiB with 8 blocks built whole at initialisation), its default
//! mode, mimalloc and the system allocator, on 1 and
//! on more threads (each thread hands half of its objects to the next thread, which frees them:
//! cross-thread frees).
//!
//! Each (allocator, threads) cell runs in a child process of its own (bounded mode is per
//! process), one after the other. Each thread keeps a ring of `WINDOW` live objects (sizes as
//! `size_of_draw`: mostly 8–128 bytes, some up to 1 KiB, rare 4 KiB); each step allocates one
//! object and frees the oldest (or, every other step on more than one thread, one that the
//! previous thread handed over). Untimed warm-up: one pass over the ring per thread.
//!
//! Beside the allocators, `timer` times an empty region with the same loop: its max is what the
//! machine (interrupts, preemption) adds to any operation. Context switches of the measuring
//! threads (`getrusage(RUSAGE_THREAD)`: involuntary = preempted) are reported per cell.
//!
//! Run: `cargo run --release -p shardsweep-bench --bin rtlatency -- [ops] [threads,...] [--fifo]`
//! (`ops` = timed allocations per cell, split over its threads, as many frees; default 10^6;
//! `--fifo`: measure under SCHED_FIFO priority 10, so that ordinary processes do not preempt
//! the measuring threads: what a real-time deployment does; interrupts still do).

use shardsweep_bench::size_of_draw;
use std::alloc::{GlobalAlloc, Layout};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

const WINDOW: usize = 1000;
/// Steps of one period: a thread works `PERIOD` steps, then sleeps `SLEEP_US` (untimed), as a
/// periodic real-time job does (RT-mimalloc's synthetic workload is periodic too). This also
/// keeps a SCHED_FIFO run (`--fifo`) below the kernel's real-time throttling (95 % of a second).
const PERIOD: usize = 4096;
const SLEEP_US: u64 = 200;
/// Exact histogram range (ns); slower operations are kept one by one.
const EXACT_NS: usize = 1 << 16;
const CONTENDERS: [&str; 6] = [
    "bounded",
    "bounded-pag",
    "default",
    "mimalloc",
    "system",
    "timer",
];

/// Nanoseconds per TSC tick, measured against the monotonic clock.
fn tsc_ns_per_tick() -> f64 {
    let t0 = std::time::Instant::now();
    let c0 = tsc();
    std::thread::sleep(std::time::Duration::from_millis(200));
    let c1 = tsc();
    t0.elapsed().as_nanos() as f64 / (c1 - c0) as f64
}

#[inline(always)]
fn tsc() -> u64 {
    // SAFETY: lfence and rdtsc have no preconditions on x86_64 (every x86_64 CPU has both).
    unsafe {
        core::arch::x86_64::_mm_lfence();
        let t = core::arch::x86_64::_rdtsc();
        core::arch::x86_64::_mm_lfence();
        t
    }
}

/// Latencies in ticks: exact counts below `EXACT_NS` ticks, the rest listed.
struct Hist {
    exact: Vec<u64>,
    slow: Vec<u64>,
    n: u64,
}

impl Hist {
    fn new() -> Hist {
        let mut h = Hist {
            exact: vec![0; EXACT_NS],
            slow: Vec::with_capacity(1 << 16),
            n: 0,
        };
        // Touch every page now, so that the page faults counted during the timed loop are the
        // allocator's, not the histogram's (calloc'ed memory faults in on first write).
        for i in (0..EXACT_NS).step_by(512) {
            // SAFETY: in bounds; a volatile write of the value already there.
            unsafe { std::ptr::write_volatile(&mut h.exact[i], 0) };
        }
        h.slow.extend(std::iter::repeat_n(0, 1 << 16));
        h.slow.clear();
        h
    }
    #[inline(always)]
    fn add(&mut self, t: u64) {
        self.n += 1;
        if (t as usize) < EXACT_NS {
            self.exact[t as usize] += 1;
        } else {
            self.slow.push(t);
        }
    }
    fn merge(&mut self, o: &Hist) {
        for (a, b) in self.exact.iter_mut().zip(&o.exact) {
            *a += b;
        }
        self.slow.extend_from_slice(&o.slow);
        self.n += o.n;
    }
    /// The value at quantile `q` (ticks).
    fn quantile(&mut self, q: f64) -> u64 {
        let rank = ((self.n as f64 * q) as u64).min(self.n - 1);
        let mut seen = 0;
        for (t, &c) in self.exact.iter().enumerate() {
            seen += c;
            if seen > rank {
                return t as u64;
            }
        }
        self.slow.sort_unstable();
        self.slow[(rank - seen) as usize]
    }
    fn max(&self) -> u64 {
        self.slow
            .iter()
            .copied()
            .max()
            .unwrap_or_else(|| self.exact.iter().rposition(|&c| c > 0).unwrap_or(0) as u64)
    }
    /// Operations slower than `t` ticks.
    fn above(&self, t: u64) -> u64 {
        let e: u64 = self.exact.iter().skip(t as usize + 1).sum();
        e + self.slow.iter().filter(|&&s| s > t).count() as u64
    }
}

/// A single-producer single-consumer ring of pointers (the hand-over between two threads),
/// preallocated by the system allocator: never touches the allocator under test.
struct Spsc {
    slots: Vec<AtomicUsize>,
    head: AtomicUsize,
    tail: AtomicUsize,
}

impl Spsc {
    fn new(n: usize) -> Spsc {
        Spsc {
            slots: (0..n).map(|_| AtomicUsize::new(0)).collect(),
            head: AtomicUsize::new(0),
            tail: AtomicUsize::new(0),
        }
    }
    fn push(&self, v: usize) -> bool {
        // Relaxed: only the producer writes `tail`.
        let t = self.tail.load(Ordering::Relaxed);
        // Acquire: the consumer's Release of `head` frees the slot.
        if t - self.head.load(Ordering::Acquire) == self.slots.len() {
            return false;
        }
        self.slots[t % self.slots.len()].store(v, Ordering::Relaxed);
        // Release: the slot's value (and the object's contents) before the consumer's Acquire.
        self.tail.store(t + 1, Ordering::Release);
        true
    }
    fn pop(&self) -> Option<usize> {
        // Relaxed: only the consumer writes `head`.
        let h = self.head.load(Ordering::Relaxed);
        // Acquire: pairs with the producer's Release of `tail`.
        if h == self.tail.load(Ordering::Acquire) {
            return None;
        }
        let v = self.slots[h % self.slots.len()].load(Ordering::Relaxed);
        // Release: we are done with the slot.
        self.head.store(h + 1, Ordering::Release);
        Some(v)
    }
}

fn alloc_of(name: &str) -> &'static (dyn GlobalAlloc + Sync) {
    static SS: shardsweep::ShardSweepAlloc = shardsweep::ShardSweepAlloc;
    static MI: mimalloc::MiMalloc = mimalloc::MiMalloc;
    static SYS: std::alloc::System = std::alloc::System;
    match name {
        "bounded" | "bounded-pag" | "default" => &SS,
        "mimalloc" => &MI,
        _ => &SYS,
    }
}

/// The machine's steal time (jiffies, 10 ms: time the hypervisor ran something else on our
/// virtual CPUs), from /proc/stat.
fn steal_jiffies() -> i64 {
    std::fs::read_to_string("/proc/stat")
        .ok()
        .and_then(|s| {
            s.lines()
                .next()
                .and_then(|l| l.split_whitespace().nth(8)?.parse().ok())
        })
        .unwrap_or(0)
}

/// This thread's voluntary and involuntary context switches and minor page faults.
fn ctx_switches() -> (i64, i64, i64) {
    // SAFETY: `ru` is a valid, writable rusage.
    unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_THREAD, &mut ru);
        (ru.ru_nvcsw, ru.ru_nivcsw, ru.ru_minflt)
    }
}

/// One measuring thread: returns (malloc latencies, free latencies, voluntary and involuntary
/// context switches during the timed loop).
fn thread_loop(
    name: &'static str,
    t: usize,
    ops: usize,
    multi: bool,
    out_q: Arc<Spsc>,
    in_q: Arc<Spsc>,
) -> (Hist, Hist, i64, i64, i64) {
    let a = alloc_of(name);
    let timer_only = name == "timer";
    let mut hm = Hist::new();
    let mut hf = Hist::new();
    let mut seed = 0xABCDEFu64 ^ (t as u64 * 0x9E37_79B9);
    let mut ring: Vec<(usize, usize)> = Vec::with_capacity(WINDOW);
    ring.extend(std::iter::repeat_n((0, 0), WINDOW));
    ring.clear();
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        size_of_draw(seed)
    };
    let mut cs0 = (0, 0, 0);
    let warm = WINDOW * 2;
    for k in 0..warm + ops {
        if k == warm {
            cs0 = ctx_switches();
        }
        if k % PERIOD == PERIOD - 1 {
            std::thread::sleep(std::time::Duration::from_micros(SLEEP_US));
        }
        let timed = k >= warm;
        let size = next();
        let l = Layout::from_size_align(size, 8).unwrap();
        let p = if timer_only {
            let t0 = tsc();
            let t1 = tsc();
            if timed {
                hm.add(t1 - t0);
            }
            0usize
        } else {
            let t0 = tsc();
            // SAFETY: non-zero size.
            let p = unsafe { a.alloc(l) };
            let t1 = tsc();
            if timed {
                hm.add(t1 - t0);
            }
            assert!(!p.is_null(), "{name}: allocation of {size} bytes failed");
            // SAFETY: at least one byte.
            unsafe { *p = 1 };
            p as usize
        };
        // Where the new object goes: on more threads, every other step to the next thread
        // (which frees it: a cross-thread free); otherwise into the ring, whose oldest object
        // is freed (a local free).
        let handed = multi && k % 2 == 0 && out_q.push(p | (size << 48));
        let mut victims = [0usize; 2];
        let mut nv = 0;
        if !handed {
            if ring.len() < WINDOW {
                ring.push((p, size));
            } else {
                let (q, qs) = std::mem::replace(&mut ring[k % WINDOW], (p, size));
                victims[nv] = q | (qs << 48);
                nv += 1;
            }
        }
        if multi && k % 2 == 1 {
            if let Some(v) = in_q.pop() {
                victims[nv] = v;
                nv += 1;
            }
        }
        for &v in &victims[..nv] {
            let (q, qs) = (v & ((1 << 48) - 1), v >> 48);
            if timer_only {
                let t0 = tsc();
                let t1 = tsc();
                if timed {
                    hf.add(t1 - t0);
                }
            } else {
                let ql = Layout::from_size_align(qs, 8).unwrap();
                let t0 = tsc();
                // SAFETY: allocated by `a` with `ql`, freed once.
                unsafe { a.dealloc(q as *mut u8, ql) };
                let t1 = tsc();
                if timed {
                    hf.add(t1 - t0);
                }
            }
        }
    }
    let cs1 = ctx_switches();
    for (q, qs) in ring {
        if !timer_only {
            // SAFETY: allocated by `a` with this layout, freed once.
            unsafe { a.dealloc(q as *mut u8, Layout::from_size_align(qs, 8).unwrap()) };
        }
    }
    (hm, hf, cs1.0 - cs0.0, cs1.1 - cs0.1, cs1.2 - cs0.2)
}

fn child(name: &'static str, threads: usize, ops: usize) {
    if name == "bounded" {
        shardsweep::Standalone::init_bounded(shardsweep::BoundedSettings::mib(256, 16))
            .expect("bounded init");
    }
    if name == "bounded-pag" {
        // RT-mimalloc-pag's profile: 8 blocks built whole for every size class the size draw
        // can hit (up to 4 KiB), ~19 MiB of the declared 256.
        let profile: Vec<(usize, usize)> = (1..shardsweep::BIN_COUNT)
            .map(shardsweep::bin_bytes)
            .filter(|&b| b <= 4096)
            .map(|b| (b, 8))
            .collect();
        let settings = shardsweep::BoundedSettings::mib(256, 16).with_profile(profile.leak());
        shardsweep::Standalone::init_bounded(settings).expect("bounded init");
    }
    let qs: Vec<Arc<Spsc>> = (0..threads)
        .map(|_| Arc::new(Spsc::new(4 * WINDOW)))
        .collect();
    let start = Arc::new(std::sync::Barrier::new(threads));
    let hs: Vec<_> = (0..threads)
        .map(|t| {
            let out_q = qs[(t + 1) % threads].clone();
            let in_q = qs[t].clone();
            let start = start.clone();
            std::thread::spawn(move || {
                start.wait();
                thread_loop(name, t, ops / threads, threads > 1, out_q, in_q)
            })
        })
        .collect();
    let mut hm = Hist::new();
    let mut hf = Hist::new();
    let (mut vcs, mut ics, mut flt) = (0, 0, 0);
    let steal0 = steal_jiffies();
    let mut leftovers = Vec::new();
    for h in hs {
        let (m, f, v, i, pf) = h.join().unwrap();
        flt += pf;
        hm.merge(&m);
        hf.merge(&f);
        vcs += v;
        ics += i;
    }
    let steal = steal_jiffies() - steal0;
    println!("STEAL {steal} {flt}");
    // Objects still in the hand-over rings.
    for q in &qs {
        while let Some(v) = q.pop() {
            leftovers.push(v);
        }
    }
    if name != "timer" {
        let a = alloc_of(name);
        for v in leftovers {
            let (q, qs) = (v & ((1 << 48) - 1), v >> 48);
            // SAFETY: allocated by `a` with this layout, freed once.
            unsafe { a.dealloc(q as *mut u8, Layout::from_size_align(qs, 8).unwrap()) };
        }
    }
    let k = tsc_ns_per_tick();
    let ticks_5us = (5000.0 / k) as u64;
    for (op, h) in [("malloc", &mut hm), ("free", &mut hf)] {
        let ns = |t: u64| (t as f64 * k).round() as u64;
        let (p50, p99, p999, max) = (
            h.quantile(0.5),
            h.quantile(0.99),
            h.quantile(0.999),
            h.max(),
        );
        let p9999 = h.quantile(0.9999);
        println!(
            "ROW {name} {threads} {op} {} {} {} {} {} {} {} {} {} {}",
            h.n,
            ns(p50),
            ns(p99),
            ns(p999),
            ns(max),
            ns(p9999),
            h.above(p999 * 10),
            vcs,
            ics,
            h.above(ticks_5us)
        );
    }
}

fn main() {
    let mut args: Vec<String> = std::env::args().collect();
    let fifo = args.iter().any(|a| a == "--fifo");
    args.retain(|a| a != "--fifo");
    if args.len() == 5 && args[1] == "--child" {
        let name = CONTENDERS
            .iter()
            .find(|&&c| c == args[2])
            .expect("contender");
        child(name, args[3].parse().unwrap(), args[4].parse().unwrap());
        return;
    }
    let ops: usize = args
        .get(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let threads: Vec<usize> = args
        .get(2)
        .map(|s| s.split(',').map(|t| t.parse().unwrap()).collect())
        .unwrap_or_else(|| vec![1, 2, 4]);
    let exe = std::env::current_exe().unwrap();
    let mut sched = "SCHED_OTHER";
    if fifo {
        let p = libc::sched_param { sched_priority: 10 };
        // SAFETY: sets this process's policy (children inherit it); `p` is a valid sched_param.
        if unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) } == 0 {
            sched = "SCHED_FIFO 10";
        } else {
            eprintln!(
                "rtlatency: SCHED_FIFO refused (needs CAP_SYS_NICE): measuring under SCHED_OTHER"
            );
        }
    }
    println!(
        "per-operation latency, ns (TSC); {ops} timed allocations per cell (and as many frees), \
         split over its threads; >10×p99.9 = operations slower than ten times the p99.9; \
         csw = context switches of the measuring threads during the timed loop (voluntary = \
         the periodic sleeps, involuntary = preempted); page faults = their minor faults then; \
         steal = the machine's steal time then (jiffies of 10 ms); scheduling {sched}; {PERIOD} steps per \
         period, then {SLEEP_US} µs asleep"
    );
    println!();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "load average before the run: {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!();
    println!("| allocator | threads | op | p50 | p99 | p99.9 | p99.99 | max | max / p99.9 | >10×p99.9 | >5 µs | csw vol / invol | page faults | steal (10 ms) |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for &t in &threads {
        for c in CONTENDERS {
            let out = Command::new(&exe)
                .args(["--child", c, &t.to_string(), &ops.to_string()])
                .env_remove("SHARDSWEEP_BOUNDED")
                .output()
                .expect("run child");
            if !out.status.success() {
                eprintln!("{c} {t}: {}", String::from_utf8_lossy(&out.stderr));
                std::process::exit(1);
            }
            let text = String::from_utf8_lossy(&out.stdout);
            let stolen: Vec<&str> = text
                .lines()
                .find_map(|l| l.strip_prefix("STEAL "))
                .unwrap_or("? ?")
                .split_whitespace()
                .collect();
            let (steal, faults) = (stolen[0], stolen[1]);
            for line in text.lines() {
                let f: Vec<&str> = line.split_whitespace().collect();
                if f.first() != Some(&"ROW") {
                    continue;
                }
                let (p999, max): (f64, f64) = (f[7].parse().unwrap(), f[8].parse().unwrap());
                println!(
                    "| {} | {} | {} | {} | {} | {} | {} | {} | {:.0} | {} | {} | {} / {} | {} | {} |",
                    f[1],
                    f[2],
                    f[3],
                    f[5],
                    f[6],
                    f[7],
                    f[9],
                    f[8],
                    max / p999.max(1.0),
                    f[10],
                    f[13],
                    f[11],
                    f[12],
                    faults,
                    steal
                );
            }
        }
    }
}
