# lusearch-jvm-fit-los: synthvm's model of the lusearch stand-in as MMTk OpenJDK runs it (issue 20
# part 4), fitted to what the footprint report sees at each GC on the JVM, the large-object space
# included (bindings/openjdk/results/mmtk-0.33/large-objects: the 4K and 64K builds at 1, 24 and
# 48 threads). It is lusearch-jvm-fit.wl (the first fit, to the minimum heaps' slopes alone, kept
# for the results made with it) with four changes, each to match a measured figure:
# * sizes: as lusearch-jvm-fit (JFR's allocation sizes, objects under 1 KiB weighted down 10x).
# * large_lifetimes: 0.5% of the objects of 1 KiB and more live ~2000 allocations, the rest die
#   at once (lusearch-jvm-fit: 5%). On the JVM objects of 512 B-8 KiB hardly survive a GC (0.37
#   MiB of them at 48 threads, ~4 KiB per thread); with 5% the model kept 55 KiB per thread.
# * thread_keep_sizes: each thread's long-lived state is a few small objects, two of 12-14 KiB
#   and two of 64-65 KiB: on the JVM the large-object space's survivors grow 0.158 MiB per
#   thread, ~126 KiB of it in objects of 64 KiB and more, ~28 KiB in objects of 8-16 KiB
#   (lusearch-jvm-fit: 2, 16, 32 and 64 KiB).
# * boot_garbage_sizes / boot_keep_every: the index read at start is small objects kept among the
#   garbage of reading it, plus a few arrays of 128 KiB (~1 MiB kept: the JVM's large-object space
#   holds 1.1 MiB of objects of 64 KiB and more at 1 thread). lusearch-jvm-fit kept 1.4 MiB of
#   1 KiB objects instead, each on a page of its own in the 4K build (the JVM has ~30 KiB of them).
# * thread_open_kib: each query thread's opening is 4 MiB of small objects, every 1000th kept for
#   the iteration (lusearch-jvm-fit: 2 MiB): on the JVM the free cells in the space's abandoned
#   blocks grow 129 KiB per thread in the 64K build and 105 in the 4K one (the model: 94 and 86;
#   with 2 MiB 27 and 18, with 8 MiB 227 and 156).
# Run it under --compressed-layout, the JVM's address-space layout
# (experiments/configs/minheap-jvm-fit-los.yaml; results: experiments/results/minheap-jvm-fit-los/).
name = lusearch-jvm-fit-los
sizes = 16:10178 24:56437 32:27013 40:9368 48:4717 56:12632 64:3796 80:10482 96:421 112:824 128:552 160:1270 192:1016 224:388 256:63 320:246 384:62 448:51 512:24 640:544 768:58 896:53 1024:7393 1280:901 1536:1411 1792:868 2048:1364 2560:2267 3072:2382 3584:2575 4096:3003 5120:6644 6144:3839 7168:2270 8192:1789 10240:992 12288:44 14336:36 16384:87 20480:33 24576:8 28672:10 32768:173 65536:17 194560:35
lifetimes = 0:85 6000:15
large_from = 1024
large_lifetimes = 0:199 2000:1
thread_keep = 1
thread_keep_sizes = 16:1 48:1 96:1 160:1 256:1 448:1 768:1 12288:1 14336:1 65536:1 66560:1
refs_percent = 10
work = 1_000_000
boot_garbage_kib = 8192
boot_garbage_sizes = 24:10000 32:5000 56:3000 16:2000 40:2000 80:2000 48:1000 64:1000 131072:3
boot_keep_every = 3
thread_open_kib = 4096
thread_open_sizes = 24:10 32:5 56:3 16:2 40:2 80:2 48:1 64:1
thread_open_keep_every = 1000
