"""synthvm's experiments (the code behind experiments/exp.py), one module per concept:

    config          paths, the YAML config, heap and duration formats
    binaries        the synthvm binaries a study runs (sha256, snapshots, the report's table)
    runner          one synthvm run, classified, and the CSV store that makes studies resumable
    minheap         the minimum-heap study (the search itself: experiments/studylib/heapsearch.py)
    timestudy       the time-over-heap-size study
    reporting       what every report says (git revision, machine), medians
    report_minheap  the minimum-heap report, plots and console summary
    report_time     the time study's report and plots
    pristine        the stock-copy vs pristine-crate verdict
    cli             the command line (experiments/exp.py runs it)
"""
