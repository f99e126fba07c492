"""ab.csv's table: per variant, connectivity, granularity and density, the
median over rounds of each binary's median ms, and new / old.

  python3 table.py ab.csv
"""

import csv
import statistics
import sys
from collections import defaultdict


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    ms = defaultdict(list)
    for r in rows:
        ms[(r["variant"], r["connectivity"], r["granularity"], int(r["density"]), r["binary"])].append(
            float(r["median_ms"]))
    cells = sorted({k[:4] for k in ms})
    print("| variant | c | g | d % | old ms | new ms | new / old |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for cell in cells:
        old, new = statistics.median(ms[cell + ("old",)]), statistics.median(ms[cell + ("new",)])
        print(f"| {' | '.join(map(str, cell))} | {old:.2f} | {new:.2f} | {new / old:.2f} |")


if __name__ == "__main__":
    main()
