"""Code shared by the experiments' Python programs (experiments/exp.py for synthvm and the JVM
stand-ins' scripts under experiments/workloads/): the least-squares slope fit and the
minimum-heap search, in `heapsearch`. Only the Python standard library."""
