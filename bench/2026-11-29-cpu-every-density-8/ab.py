"""6cabfae's cpu-rle against this commit's on the same host, from
call1.sh's ab-16core.csv (two rounds, each build's sweep in its own
process): per task, size, connectivity, granularity and density, the new
build's median over the old's, each round, and the least of both rounds'
times of each build.

  python3 ab.py ab-16core.csv > ab-16core.md
"""
import csv
import sys
from collections import defaultdict

rows = list(csv.DictReader(open(sys.argv[1])))
times = defaultdict(list)
for r in rows:
    key = (r["task"], int(r["side"]), int(r["connectivity"]), int(r["granularity"]), int(r["density"]))
    times[key, r["build"]].append(float(r["median_ms"]))
keys = sorted({k for k, _ in times})
print("| task | side | conn. | g | d % | 6cabfae ms | fb213f5 ms | new / old (least of 2 rounds) |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for task in ("label", "analyze"):
    ratios = []
    for k in keys:
        if k[0] != task:
            continue
        old, new = min(times[k, "ccl-6cabfae"]), min(times[k, "ccl"])
        ratios.append(new / old)
        print(f"| {task} | {k[1]} | {k[2]} | {k[3]} | {k[4]} | {old:.2f} | {new:.2f} | {new / old:.2f} |")
    ratios.sort()
    print(f"\n{task}: new / old {ratios[0]:.2f}-{ratios[-1]:.2f}, median {ratios[len(ratios) // 2]:.2f}\n", file=sys.stderr)
