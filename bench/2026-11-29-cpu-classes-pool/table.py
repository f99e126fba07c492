"""The A/B table of ab.py's CSV lines (tag, density, g, connectivity, ccl
ms, cc3d ms): per cell the rounds of each wheel, the median cc3d time,
new / old and new / cc3d (medians), and their geometric means.

  python3 table.py ab.csv
"""

import collections
import csv
import math
import statistics
import sys


def main():
    cells = collections.defaultdict(lambda: collections.defaultdict(list))
    for tag, density, g, c, ours, theirs in csv.reader(open(sys.argv[1])):
        cells[(int(density), int(g), int(c))][tag].append(float(ours))
        cells[(int(density), int(g), int(c))]["cc3d"].append(float(theirs))
    print("| d % | g | c | old ms (rounds) | new ms (rounds) | cc3d ms (median) | new / old | new / cc3d |")
    print("| ---: | ---: | ---: | --- | --- | ---: | ---: | ---: |")
    logs_old, logs_cc3d = [], []
    for (density, g, c), times in sorted(cells.items()):
        old, new = statistics.median(times["old"]), statistics.median(times["new"])
        cc3d = statistics.median(times["cc3d"])
        logs_old.append(math.log(new / old))
        logs_cc3d.append(math.log(new / cc3d))
        rounds = lambda values: ", ".join(f"{v:.1f}" for v in values)  # noqa: E731
        print(f"| {density} | {g} | {c} | {rounds(times['old'])} | {rounds(times['new'])} | "
              f"{cc3d:.1f} | {new / old:.2f} | {new / cc3d:.2f} |")
    geo = lambda logs: math.exp(sum(logs) / len(logs))  # noqa: E731
    print(f"\ngeometric means: new / old {geo(logs_old):.2f}, new / cc3d {geo(logs_cc3d):.2f}")


if __name__ == "__main__":
    main()
