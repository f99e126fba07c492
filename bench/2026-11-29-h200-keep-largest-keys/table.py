"""ab.csv's table: per input, density and g, the median over rounds of
each call's median ms, for the old and new wheels, and each clean-up call
over the same wheel's `label`.

  python3 table.py ab.csv
"""

import csv
import statistics
import sys
from collections import defaultdict


def main():
    times = defaultdict(list)
    for tag, shape, d, g, call, ms in csv.reader(open(sys.argv[1])):
        times[(tag, shape, int(d), int(g), call)].append(float(ms))
    ms = {k: statistics.median(v) for k, v in times.items()}
    cells = sorted({k[1:4] for k in ms}, key=lambda c: (c[0] != "8192^2", c[1], c[2]))
    calls = ["label largest=1", "keep largest=1"]
    print("| input | d % | g | `label` ms old / new | " + " | ".join(
        f"`{c}` ms old / new (× label old / new)" for c in calls) + " |")
    print("| --- | ---: | ---: | ---: | " + " | ".join("---:" for _ in calls) + " |")
    for shape, d, g in cells:
        row = [shape, str(d), str(g)]
        label = {t: ms[(t, shape, d, g, "label")] for t in ("old", "new")}
        row.append(f"{label['old']:.3f} / {label['new']:.3f}")
        for call in calls:
            if ("new", shape, d, g, call) not in ms:
                row.append("–")
                continue
            old, new = ms[("old", shape, d, g, call)], ms[("new", shape, d, g, call)]
            row.append(f"{old:.3f} / {new:.3f} ({old / label['old']:.2f} / {new / label['new']:.2f})")
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
