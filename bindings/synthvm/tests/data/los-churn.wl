# Large objects dead after start-up, then small ones: the large-object space frees its chunks at
# the first GC, and under --compressed-layout (spaces share one chunk pool, as on the JVM with
# compressed oops) the MarkSweep space takes them over, resident and dirty. Used by the shardsweep
# policy check "chunks from the large-object space" (scripts/policy_checks.py).
name = los-churn
boot_garbage_kib = 12288
boot_garbage_sizes = 16384:1 32768:1
sizes = 32:900 64:80 1024:18 16384:2
lifetimes = 0:95 20000:5
refs_percent = 10
work = 2_000_000
threads = 4
