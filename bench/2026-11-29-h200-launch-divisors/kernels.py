"""ncu's kernel times (gpu__time_duration.sum, --csv) of two wheels side by
side: the calls of each file split where a labeling begins
(`ccl_pack_bits`), and every kernel of every call listed with the old and
new µs (calls in the same order in both files).

  python3 kernels.py ncu-batch-old.txt ncu-batch-new.txt
"""

import csv
import sys


def calls(path):
    lines = [line for line in open(path) if line.startswith('"')]
    rows = list(csv.reader(lines))
    header, rows = rows[0], rows[1:]
    name, value = header.index("Kernel Name"), header.index("Metric Value")
    out = []
    for row in rows:
        kernel = row[name].split("(")[0]
        if kernel == "ccl_pack_bits" or not out:
            out.append([])
        out[-1].append((kernel, float(row[value].replace(",", "")) / 1e3))
    return out


def main():
    old, new = calls(sys.argv[1]), calls(sys.argv[2])
    assert len(old) == len(new), (len(old), len(new))
    print("| call | kernel | old µs | new µs | new / old |")
    print("| ---: | --- | ---: | ---: | ---: |")
    for i, (a, b) in enumerate(zip(old, new)):
        for (k, x), (k2, y) in zip(a, b):
            assert k == k2, (k, k2)
            print(f"| {i} | {k} | {x:.1f} | {y:.1f} | {y / x:.2f} |")
        total_a, total_b = sum(x for _, x in a), sum(y for _, y in b)
        print(f"| {i} | all | {total_a:.1f} | {total_b:.1f} | {total_b / total_a:.2f} |")


if __name__ == "__main__":
    main()
