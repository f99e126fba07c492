"""host-ab.sh's CSV as a table: per binary, side and g, the pool's mean of
medians over d = 10-90 % and one thread's, per round, and their ratio.

  python3 table.py host-ab.csv
"""
import csv
import sys
from collections import defaultdict

means = defaultdict(list)
for row in csv.DictReader(open(sys.argv[1])):
    key = (row["binary"], int(row["side"]), int(row["granularity"]), row["round"], row["variant"])
    means[key].append(float(row["median_ms"]))
sides = sorted({k[1] for k in means})
rounds = sorted({k[3] for k in means})
print("| side | g | bands ≥ 16 Ki: pool / one thread, ms (ratio), by round | bands ≥ 128 Ki |")
print("| ---: | ---: | --- | --- |")
for side in sides:
    for g in (1, 4):
        cells = []
        for binary in ("ccl", "ccl-bands"):
            parts = []
            for r in rounds:
                pool = sum(means[(binary, side, g, r, "cpu-rle")]) / 5
                one = sum(means[(binary, side, g, r, "cpu-rle-1t")]) / 5
                parts.append(f"{pool:.3f} / {one:.3f} ({pool / one:.2f})")
            cells.append("; ".join(parts))
        print(f"| {side} | {g} | {cells[0]} | {cells[1]} |")
