"""Sums ncu's kernel times (`ab.py --reps 1` under `ncu -k
regex:"band_unions|class_runs|classes_local" --metrics
gpu__time_duration.sum --csv`) per call of ab.py's cells, in order: a
binary call launches one flsl_band_unions; a class call either FLSL's runs
(flsl_class_runs_*, then flsl_class_band_unions_*) or the tiles
(ccl_classes_local_*). Each cell is called twice (warm-up, then the timed
call); the second call's band unions are reported, in us.

  python3 kernels.py ncu-old.txt ncu-new.txt
"""

import csv
import sys


def cells(path):
    lines = open(path).read().splitlines()
    order = [l.split(",")[1:5] for l in lines if l.count(",") == 5 and not l.startswith('"')]
    rows = list(csv.reader([l for l in lines if l.startswith('"')]))
    header, rows = rows[0], rows[1:]
    name, value = header.index("Kernel Name"), header.index("Metric Value")
    kernels = [(r[name], float(r[value].replace(",", "")) / 1e3) for r in rows if "number_class_runs" not in r[name]]
    out, k = {}, 0
    for kind, g, d, c in order:
        calls = []
        for _ in range(2):
            if kind == "classes":
                first = kernels[k][0]
                if "classes_local" in first:
                    calls.append(("tiles", None))
                    k += 1
                else:
                    assert "class_runs" in first, first
                    calls.append(("runs", kernels[k + 1][1]))
                    k += 2
            else:
                assert "band_unions" in kernels[k][0], kernels[k]
                calls.append(("", kernels[k][1]))
                k += 1
        out[(kind, g, d, c)] = calls[1]
    assert k == len(kernels), (k, len(kernels))
    return out


def main():
    old, new = cells(sys.argv[1]), cells(sys.argv[2])
    print("| call | g | d % | c | old us | new us | new / old |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for key in old:
        (path, a), (_, b) = old[key], new[key]
        kind = key[0] + (f" ({path})" if path else "")
        if a is None:
            print(f"| {kind} | {key[1]} | {key[2]} | {key[3]} | - | - | - |")
        else:
            print(f"| {kind} | {key[1]} | {key[2]} | {key[3]} | {a:.1f} | {b:.1f} | {b / a:.2f} |")


if __name__ == "__main__":
    main()
