"""ab.sh's ab.csv as a table: per size, density, g and connectivity, the
median ms of the old and new binary in each round, and new / old (mean of
the rounds).

  python3 table.py dev-2core/ab.csv
"""
import collections
import csv
import statistics
import sys

ms = collections.defaultdict(list)
with open(sys.argv[1]) as f:
    for row in csv.reader(f):
        # ab.sh's tag and round, then `ccl sweep`'s columns: algorithm,
        # backend, connectivity, task, width, height, granularity, density,
        # reps, median ms, ...
        tag, c, w, g, d = row[0], row[4], row[6], row[8], row[9]
        ms[(int(w), int(d), int(g), int(c), tag)].append(float(row[11]))
print("| size | d % | g | c | old ms | new ms | new / old |")
print("| --- | ---: | ---: | ---: | --- | --- | ---: |")
for w, d, g, c in sorted({k[:4] for k in ms}):
    old, new = ms[(w, d, g, c, "old")], ms[(w, d, g, c, "new")]
    ratio = statistics.mean(n / o for n, o in zip(new, old))
    print(f"| {w}² | {d} | {g} | {c} | {', '.join(f'{x:.3f}' for x in old)} | "
          f"{', '.join(f'{x:.3f}' for x in new)} | {ratio:.2f} |")
