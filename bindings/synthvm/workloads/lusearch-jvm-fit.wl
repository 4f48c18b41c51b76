# lusearch-jvm-fit: synthvm's model of the lusearch stand-in as MMTk OpenJDK runs it (issue 20
# part 4), fitted so that the minimum heap of stock MarkSweep, shardsweep 64K page, 4K and
# MarkCompact grows with threads as on the JVM. Run it under --compressed-layout, the JVM's
# address-space layout (experiments/configs/minheap-jvm-fit.yaml; results and the fit's
# quality: experiments/results/minheap-jvm-fit/).
# What each part stands for, and where its figures come from:
# * sizes: the object sizes a JVM query thread allocates, per mimalloc size class (JFR, every
#   object: src/workloads/jvm_sizes.rs), with objects under 1 KiB weighted down 10x: between
#   GCs the JVM's mutators charge 97% of their new pages for cells of 1 KiB and more
#   (bindings/openjdk/RESULTS.md, the footprint report by class); the JIT's escape analysis
#   removes many small allocations that JFR on a G1 run without TLABs still counted.
# * lifetimes / large_lifetimes: small objects die at once or live ~6000 allocations (a
#   query's structures); buffers and arrays (>= 1 KiB) die at once but 5% (on the JVM the
#   64K build's live bytes in the space grow only ~0.03 MiB per thread: the footprint report).
# * thread_keep with thread_keep_sizes: each thread's long-lived state, one object in each of a
#   few size classes and three arrays of 16-64 KiB (large-object space, except under stock
#   MarkSweep, which keeps objects up to 64 KiB in its blocks). Fitted, not measured: the
#   sizes were chosen among a few variants for the slopes (experiments/README.md, "A fast loop
#   that shows the JVM's pathology"); without it, and with 20% of the arrays living 2000
#   allocations, no build's slope came within 25% of the JVM's (stock 0.68x, 4K 1.85x).
# * boot_garbage_kib with boot_keep_every: the index read at start, kept among the garbage of
#   reading it (the JVM's first GC sees ~6 MiB of dead small objects).
# * thread_open_*: each query thread opens its reader and searcher: small objects, a few of
#   them kept for the iteration among many that die (what pins sparsely used small-class blocks
#   per thread on the JVM).
name = lusearch-jvm-fit
sizes = 16:10178 24:56437 32:27013 40:9368 48:4717 56:12632 64:3796 80:10482 96:421 112:824 128:552 160:1270 192:1016 224:388 256:63 320:246 384:62 448:51 512:24 640:544 768:58 896:53 1024:7393 1280:901 1536:1411 1792:868 2048:1364 2560:2267 3072:2382 3584:2575 4096:3003 5120:6644 6144:3839 7168:2270 8192:1789 10240:992 12288:44 14336:36 16384:87 20480:33 24576:8 28672:10 32768:173 65536:17 194560:35
lifetimes = 0:85 6000:15
large_from = 1024
large_lifetimes = 0:95 2000:5
thread_keep = 1
thread_keep_sizes = 16:1 48:1 96:1 160:1 256:1 448:1 768:1 2048:1 16384:1 32768:1 65536:1
refs_percent = 10
work = 1_000_000
boot_garbage_kib = 8192
boot_garbage_sizes = 24:10 32:5 56:3 16:2 40:2 80:2 48:1 64:1 1024:1
boot_keep_every = 3
thread_open_kib = 2048
thread_open_sizes = 24:10 32:5 56:3 16:2 40:2 80:2 48:1 64:1
thread_open_keep_every = 1000
