"""crossover.sh's CSV as a table: per side and g, the pool's and one
thread's mean over d = 10-90 % of their medians, round by round, and the
ratio of the rounds' medians.

  python3 crossover.py crossover-separate.csv
"""
import csv
import statistics
import sys
from collections import defaultdict

means = defaultdict(list)
for row in csv.DictReader(open(sys.argv[1])):
    means[(int(row["side"]), int(row["granularity"]), row["round"], row["variant"])].append(float(row["median_ms"]))
sides = sorted({k[0] for k in means})
rounds = sorted({k[2] for k in means})
print("| side | g | pool ms (rounds) | one thread ms (rounds) | pool / one thread, medians |")
print("| ---: | ---: | --- | --- | ---: |")
for side in sides:
    for g in (1, 4):
        pool = [statistics.mean(means[(side, g, r, "cpu-rle")]) for r in rounds]
        one = [statistics.mean(means[(side, g, r, "cpu-rle-1t")]) for r in rounds]
        f = lambda xs: " / ".join(f"{x:.3f}" for x in xs)
        print(f"| {side} | {g} | {f(pool)} | {f(one)} | {statistics.median(pool) / statistics.median(one):.2f} |")
