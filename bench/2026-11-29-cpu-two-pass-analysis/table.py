"""pairs.sh's CSV as a table: per cell, each side's medians (sorted) and
the ratio of their medians.

  python3 table.py pairs-2048.csv
"""
import csv
import statistics
import sys

cells = {}
for row in csv.DictReader(open(sys.argv[1])):
    key = (int(row["connectivity"]), int(row["density"]))
    cells.setdefault(key, {}).setdefault(row["binary"], []).append(float(row["call"]))
print("| c | d % | analysis ms, old (sorted) | new | new / old, medians |")
print("| ---: | ---: | --- | --- | ---: |")
for (c, d), sides in sorted(cells.items()):
    old, new = sorted(sides["old"]), sorted(sides["new"])
    f = lambda xs: " / ".join(f"{x:.2f}" for x in xs)
    print(f"| {c} | {d} | {f(old)} | {f(new)} | {statistics.median(new) / statistics.median(old):.2f} |")
