"""Tables of w1's (and later calls') keep-ab.csv and regions.csv: per cell,
the old and new wheels' ratios to their own label, each round, and the mean.

  python3 table.py w1
"""
import collections
import statistics
import sys
from pathlib import Path

folder = Path(sys.argv[1])
keep = collections.defaultdict(list)  # (input, d, g, call, tag) -> ms per round
keep_csv = folder / "keep-ab.csv"
for line in (keep_csv.read_text().splitlines() if keep_csv.exists() else []):
    parts = line.split(",")
    if len(parts) != 6 or parts[0] == "tag":
        continue
    tag, shape, d, g, call, ms = parts
    keep[(shape, int(d), int(g), call, tag)].append(float(ms))
tags = sorted({k[4] for k in keep})
if tags:
    print("| input | d % | g | call | " + " | ".join(f"{t}: × label (rounds)" for t in tags) + " |")
    print("| --- | ---: | ---: | --- |" + " --- |" * len(tags))
for shape, d, g in sorted({k[:3] for k in keep}):
    for call in ("label largest=1", "keep largest=1"):
        if (shape, d, g, call, tags[0]) not in keep:
            continue
        texts = []
        for t in tags:
            ratios = [a / b for a, b in zip(keep[(shape, d, g, call, t)], keep[(shape, d, g, "label", t)])]
            label = statistics.mean(keep[(shape, d, g, "label", t)])
            texts.append(", ".join(f"{r:.2f}" for r in ratios) + f" (label {label:.3f} ms)")
        print(f"| {shape} | {d} | {g} | {call} | " + " | ".join(texts) + " |")
print()
regions = collections.defaultdict(list)
for line in (folder / "regions.csv").read_text().splitlines():
    parts = line.split(",")
    if len(parts) != 10:
        continue
    tag, shape, d, g, c, b, k, ratio = parts[:8]
    regions[(shape, int(d), int(g), int(c), tag)].append((float(b), float(k)))
tags = sorted({k[4] for k in regions})
print("| input | d % | g | c | " + " | ".join(f"{t}: classes ms (× binary), rounds" for t in tags) + " |")
print("| --- | ---: | ---: | ---: |" + " --- |" * len(tags))
for shape, d, g, c in sorted({k[:4] for k in regions}):
    texts = []
    for t in tags:
        texts.append(", ".join(f"{k:.3f} ({k / b:.2f})" for b, k in regions[(shape, d, g, c, t)]))
    print(f"| {shape} | {d} | {g} | {c} | " + " | ".join(texts) + " |")
