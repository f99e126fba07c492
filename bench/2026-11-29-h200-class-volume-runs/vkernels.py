"""Per-kernel times (us) of the second call of each vone.py cell, from
`ncu --metrics gpu__time_duration.sum --csv python3 vone.py CELLS` (a call
begins with the class packing kernel, flsl_pack_classes_*).

  python3 vkernels.py ncu.txt
"""

import csv
import sys
from collections import defaultdict


def main():
    lines = open(sys.argv[1]).read().splitlines()
    cells = [l.split(",")[1:] for l in lines if l.startswith("cell,")]
    rows = list(csv.reader([l for l in lines if l.startswith('"')]))
    header, rows = rows[0], rows[1:]
    name, value = header.index("Kernel Name"), header.index("Metric Value")
    calls, call = [], None
    for r in rows:
        kernel = r[name].split("(")[0]
        if kernel.startswith("flsl_pack_classes") or kernel.startswith("ccl_classes_local"):
            call = defaultdict(float)
            calls.append(call)
        if call is not None:
            call[kernel] += float(r[value].replace(",", "")) / 1e3
    assert len(calls) == 2 * len(cells), (len(calls), len(cells))
    for i, (d, g, c) in enumerate(cells):
        kernels = calls[2 * i + 1]
        total = sum(kernels.values())
        print(f"d={d} g={g} c={c}: {total:.0f} us")
        for k, us in sorted(kernels.items(), key=lambda kv: -kv[1]):
            print(f"  {k:<40} {us:8.1f}")


if __name__ == "__main__":
    main()
