# A mostly dead heap whose survivors page accounting can reclaim around (scripts/test-policy.sh,
# "final GC of a mostly dead heap"; run with --final-gc).
# Every thread first keeps thread_keep objects of every size below (K in a row per size: its
# long-lived state, like per-thread data allocated when a thread starts), then allocates its
# share of `work` objects that all die at once. After the last iteration only the kept objects
# are reachable: threads x sizes (thread, size class) pairs, a few cells each.
name = mostly-dead
# Every mimalloc bin size from 16 B to 2 KiB (27 size classes: no cell is larger than its
# object), equal weights.
sizes = 16:1 24:1 32:1 40:1 48:1 56:1 64:1 80:1 96:1 112:1 128:1 160:1 192:1 224:1 256:1 320:1 384:1 448:1 512:1 640:1 768:1 896:1 1024:1 1280:1 1536:1 1792:1 2048:1
lifetimes = 0:1
refs_percent = 0
thread_keep = 4
# x0.1 with --size small: 200000 objects, about 90 MB.
work = 2_000_000
threads = 8
