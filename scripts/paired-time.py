#!/usr/bin/env python3
"""Times two whole commands in turn, A B A B ..., and prints each one's wall seconds, CPU seconds
(user + system) and peak RSS as min, median and max, and the ratio A/B pair by pair (pairing keeps
the ratio meaningful when a shared machine's speed drifts). Quote the median; min and max show the
spread.

    scripts/paired-time.py [-n RUNS] [--warmup N] [--timeout SECONDS] --vs 'COMMAND_B' -- COMMAND_A [ARG ...]

COMMAND_B is one string split as a shell splits words (no shell runs it: write `env VAR=x cmd` for
a variable). Each run's output is discarded; its exit status is counted (a run that fails is
reported, and its pair left out of the ratios). Times and peak memory are the kernel's accounting
of the reaped child (wait4): the peak is the largest single process's, not a sum, and cannot read
below this script's own RSS (the child is a copy of it until it execs; the floor is printed). The experiments
quote this script's rows with the command that produced them.
"""
import argparse
import os
import resource
import shlex
import statistics
import subprocess
import sys
import time


def run_once(argv, timeout):
    """(wall s, cpu s, peak RSS MiB, exit status) of one run; status 124 if `timeout` killed it."""
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    deadline = t0 + timeout
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            os.killpg(p.pid, 9)
            pid, status, ru = os.wait4(p.pid, 0)
            return time.monotonic() - t0, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024, 124
        time.sleep(0.005)
    wall = time.monotonic() - t0
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024, os.waitstatus_to_exitcode(status)


def spread(xs, fmt="{:.3f}"):
    if not xs:
        return "-"
    return f"{fmt.format(statistics.median(xs))} ({fmt.format(min(xs))}–{fmt.format(max(xs))})"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", "--runs", type=int, default=5, help="pairs counted (default 5)")
    ap.add_argument("--warmup", type=int, default=1, help="pairs run first and not counted (default 1)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per run (default 600)")
    ap.add_argument("--vs", required=True, help="COMMAND_B, one string")
    ap.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND_A [ARG ...]")
    a = ap.parse_args(argv)
    cmd_a = a.command[1:] if a.command[:1] == ["--"] else a.command
    cmd_b = shlex.split(a.vs)
    if not cmd_a or not cmd_b or a.runs < 1 or a.warmup < 0:
        ap.print_usage(sys.stderr)
        return 2
    rows = {"A": [], "B": []}
    for i in range(a.warmup + a.runs):
        pair = {k: run_once(c, a.timeout) for k, c in (("A", cmd_a), ("B", cmd_b))}
        if i >= a.warmup:
            for k in rows:
                rows[k].append(pair[k])
    print(f"A: {shlex.join(cmd_a)}\nB: {shlex.join(cmd_b)}")
    floor = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{a.runs} pairs after {a.warmup} warm-up pair(s), A then B; median (min–max); peak RSS floor {floor:.1f} MiB")
    print("| command | runs passed | wall s | cpu s | peak RSS MiB |")
    print("|---|---:|---:|---:|---:|")
    for k in rows:
        ok = [r for r in rows[k] if r[3] == 0]
        print(f"| {k} | {len(ok)} of {len(rows[k])} | {spread([r[0] for r in ok])} | {spread([r[1] for r in ok])} "
              f"| {spread([r[2] for r in ok], '{:.1f}')} |")
    pairs = [(x, y) for x, y in zip(rows["A"], rows["B"]) if x[3] == 0 and y[3] == 0]
    print(f"A/B paired ({len(pairs)} pairs): wall {spread([x[0] / y[0] for x, y in pairs])}, "
          f"cpu {spread([x[1] / y[1] for x, y in pairs])}, peak RSS {spread([x[2] / y[2] for x, y in pairs])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
