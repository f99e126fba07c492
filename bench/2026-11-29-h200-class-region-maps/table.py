"""The README's table of regions.py's CSV: ms of the binary label and of
`ccl.label_classes`, their ratio, and the class map's runs over the binary
image's.

  python3 table.py c1/regions.csv
"""

import csv
import sys


def main():
    print("| input | conn | d % | g | binary `label` ms | `label_classes` ms | × binary | class runs / binary runs |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    rows = list(csv.reader(open(sys.argv[1])))
    order = {"8192^2": 0, "256x512^2": 1, "512^3": 2}
    for name, d, g, c, b, k, ratio, br, kr in sorted(rows, key=lambda r: (order[r[0]], int(r[3]), int(r[1]), int(r[2]))):
        mark = f"**{float(ratio):.2f}**" if float(ratio) > 1.5 else f"{float(ratio):.2f}"
        print(f"| {name.replace('^2', '²').replace('^3', '³')} | {c} | {d} | {g} | {float(b):.2f} | {float(k):.2f} | {mark} | {int(kr) / int(br):.3f} |")


if __name__ == "__main__":
    main()
