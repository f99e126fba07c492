"""canonical-ab.sh's output as a table: per cell and build, each round's
median over the calls of the join's last pass (canonical) and the sweep's
median call (ms).

  python3 canonical-table.py canonical-ab.txt
"""
import re
import statistics as st
import sys
from collections import defaultdict

canonical = defaultdict(list)
call = defaultdict(list)
key = None
passes = []
for line in open(sys.argv[1]):
    line = line.strip()
    if line.startswith("=="):
        b, r, size, c, d = re.findall(r"== (\w+) round (\d+) size (\d+) c (\d+) d (\d+)", line)[0]
        key = (int(size), int(c), int(d), b)
        passes = []
    elif line.startswith("JSTAGES"):
        passes.append(float(line.split()[8]))
    elif line and key:
        canonical[key].append(st.median(passes))
        call[key].append(float(line))
print("| size | c | d % | canonical ms, before (rounds) | after | call ms, before | after |")
print("| ---: | ---: | ---: | --- | --- | --- | --- |")
for size, c, d in sorted({k[:3] for k in canonical}):
    fmt = lambda xs: " / ".join(f"{x:.3f}" for x in xs)
    print(f"| {size}² | {c} | {d} | {fmt(canonical[(size, c, d, 'old')])} | {fmt(canonical[(size, c, d, 'new')])} "
          f"| {fmt(call[(size, c, d, 'old')])} | {fmt(call[(size, c, d, 'new')])} |")
