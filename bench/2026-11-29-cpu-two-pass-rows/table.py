"""bands.sh's CSV as a table: per cell, the band stage's and the call's
medians of each round, old and new, and the ratio of the middle rounds.

  python3 table.py bands-1t.csv
"""
import csv
import sys

cells = {}
for row in csv.DictReader(open(sys.argv[1])):
    key = (int(row["connectivity"]), int(row["density"]))
    cells.setdefault(key, {}).setdefault(row["binary"], []).append((float(row["bands"]), float(row["call"])))
print("| c | d % | bands ms, old (rounds, sorted) | new | ratio of medians | call ms, old | new | ratio |")
print("| ---: | ---: | --- | --- | ---: | --- | --- | ---: |")
for (c, d), sides in sorted(cells.items()):
    ob, nb = sorted(x[0] for x in sides["old"]), sorted(x[0] for x in sides["new"])
    oc, nc = sorted(x[1] for x in sides["old"]), sorted(x[1] for x in sides["new"])
    mid = len(ob) // 2
    f = lambda xs: " / ".join(f"{x:.2f}" for x in xs)
    print(f"| {c} | {d} | {f(ob)} | {f(nb)} | {nb[mid] / ob[mid]:.2f} | {f(oc)} | {f(nc)} | {nc[mid] / oc[mid]:.2f} |")
