# synthvm custom workload description (key = value; '#' starts a comment).
name = example-mixed
# Object sizes in bytes (16-byte header included) with integer weights.
sizes = 16:30 24:25 32:15 40:8 48:8 64:6 96:3 128:2 256:1 1024:1
# Lifetimes, in allocations by the same thread, with weights. 0 = dies immediately.
lifetimes = 0:85 50:10 5000:4 200000:1
# Percentage of objects that get 1-4 reference fields to other live objects.
refs_percent = 25
# Total allocations over all threads (x0.1 with --size small, x10 with --size large).
work = 5_000_000
# Long-lived shared data built at boot (KiB), reachable from a global root.
shared_kib = 1024
# Default thread count when -t is not given.
threads = 4
