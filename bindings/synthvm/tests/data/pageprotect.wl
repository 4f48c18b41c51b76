# A light workload for PageProtect, which spends a page (and an mmap/mprotect) per object.
name = pageprotect-light
sizes = 16:20 24:20 32:20 64:10 128:10 512:5 2048:3 6000:2
lifetimes = 0:90 20:8 500:2
refs_percent = 30
work = 300_000
shared_kib = 64
