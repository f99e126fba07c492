"""host-ab.sh's CSV as a table: per side and g, each binary's pool time
(mean of the medians over d = 10-90 %) against its one-thread time, round
by round, with their ratio.

  python3 table.py host-ab.csv
"""
import csv
import sys
from collections import defaultdict

means = defaultdict(list)
for row in csv.DictReader(open(sys.argv[1])):
    key = (row["binary"], int(row["side"]), int(row["granularity"]), row["round"], row["variant"])
    means[key].append(float(row["median_ms"]))
binaries = sorted({k[0] for k in means})
sides = sorted({k[1] for k in means})
grains = sorted({k[2] for k in means})
rounds = sorted({k[3] for k in means})
print("| side | g | " + " | ".join(f"{b}: pool / one thread, ms (ratio), by round" for b in binaries) + " |")
print("| ---: | ---: |" + " --- |" * len(binaries))
for side in sides:
    for g in grains:
        cells = []
        for binary in binaries:
            parts = []
            for r in rounds:
                pool = sum(means[(binary, side, g, r, "cpu-rle")]) / 5
                one = sum(means[(binary, side, g, r, "cpu-rle-1t")]) / 5
                parts.append(f"{pool:.3f} / {one:.3f} ({pool / one:.2f})")
            cells.append("; ".join(parts))
        print(f"| {side} | {g} | " + " | ".join(cells) + " |")
