"""The README's class volume table from vab.py's CSV lines of two wheels
("new", "old"; means over the rounds): ms of the binary label and of
`ccl.label_classes` with the new wheel, its ratio, the old wheel's class
ms (and its ratio to its own binary label), and new / old.

  python3 table.py c5/vab.csv
"""

import csv
import statistics
import sys
from collections import defaultdict


def main():
    cells = defaultdict(lambda: defaultdict(list))
    for tag, _, density, g, c, binary, classes, _ in csv.reader(open(sys.argv[1])):
        cells[(int(c), int(density), int(g))][tag].append((float(binary), float(classes)))
    print("| conn | d % | g | binary `label` ms | `label_classes` ms | × binary | before ms (× binary) | × before |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for (c, density, g), tags in sorted(cells.items()):
        bn, kn = (statistics.mean(x[i] for x in tags["new"]) for i in (0, 1))
        bo, ko = (statistics.mean(x[i] for x in tags["old"]) for i in (0, 1))
        print(f"| {c} | {density} | {g} | {bn:.2f} | {kn:.2f} | {kn / bn:.2f} | {ko:.2f} ({ko / bo:.2f}) | {kn / ko:.2f} |")


if __name__ == "__main__":
    main()
