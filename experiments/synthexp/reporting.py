"""What every report says about where and how it was made."""
import os
import platform
import statistics
import subprocess

from .config import ROOT


def git_rev():
    try:
        rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True).stdout.strip()
        return rev or "unknown"
    except OSError:
        return "unknown"


def machine_line():
    return (f"{platform.node() or 'host'}: {os.cpu_count()} CPUs, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}")


def med(v):
    return statistics.median(v) if v else None
