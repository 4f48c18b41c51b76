# The paired ratios of immix-seg/command.txt 3. (time and GCs, geometric mean with an approximate
# 95% interval): python3 cross.py parts-immix-seg-72.csv
import csv,math,statistics as st,collections,sys
rows=list(csv.DictReader(open(sys.argv[1])))
by=collections.defaultdict(dict)
for r in rows:
    if r['rc']=='0': by[r['round']][(r['config'],r['heap_mib'])]=r
M='seg-Immix-mmtk_enable_allocation_fastpath-false'; S=M+'-ssexp_immix_seg-1'; O='ss32k-MarkSweep-mmtk_free_list_fastpath-false'
NAME={M:'Immix',S:'segregated',O:'ss32k'}
pairs=[((S,'64'),(M,'64')),((S,'72'),(M,'64')),((S,'72'),(M,'72')),((O,'64'),(M,'64')),((O,'72'),(M,'64')),((O,'64'),(S,'64')),((O,'72'),(S,'72')),((M,'72'),(M,'64'))]
for a,b in pairs:
    for col in ('last_iteration_ms','gcs'):
        rs=[float(v[a][col])/float(v[b][col]) for v in by.values() if a in v and b in v]
        l=[math.log(x) for x in rs]; m=st.mean(l); se=st.stdev(l)/math.sqrt(len(l))
        print(f"{NAME[a[0]]} @{a[1]} / {NAME[b[0]]} @{b[1]} {col}: n={len(rs)} median {st.median(rs):.3f} ({min(rs):.3f}-{max(rs):.3f}) gm {math.exp(m):.3f} ({math.exp(m-2*se):.3f}-{math.exp(m+2*se):.3f})")
