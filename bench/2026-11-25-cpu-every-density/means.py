#!/usr/bin/env python3
"""Mean throughput (Gpx/s) over densities 0, 10, ..., 100 % and over
10-90 % alone, per variant, task, connectivity and granularity, from a
`ccl sweep` CSV and a `time-peers` CSV of the same images:

    python3 means.py dev-2core/full-4096.csv dev-2core/full-peers-4096.csv
"""
import csv
import sys
from collections import defaultdict

rows = [r for path in sys.argv[1:] for r in csv.DictReader(open(path))]
gpx = defaultdict(dict)
for r in rows:
    key = (r["variant"], r["task"], r["connectivity"], r["granularity"])
    gpx[key][int(r["density"])] = float(r["gpx_per_s"])
variants = sorted({k[0] for k in gpx}, key=lambda v: (not v.startswith("cpu"), v))
print("| what | 4-conn labels | 8-conn labels | 4-conn stats | 8-conn stats |")
print("| --- | --- | --- | --- | --- |")
for variant in variants:
    for label, densities in (("", range(0, 101, 10)), (", 10–90 %", range(10, 91, 10))):
        cells = []
        for task in ("label", "analyze"):
            for c in ("4", "8"):
                means = []
                for g in ("1", "4", "16"):
                    by = gpx.get((variant, task, c, g), {})
                    values = [by[d] for d in densities if d in by]
                    means.append(f"{sum(values) / len(values):.2f}" if values else "–")
                cells.append(" / ".join(means))
        print(f"| `{variant}`{label} | " + " | ".join(cells) + " |")
