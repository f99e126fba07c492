"""The kernels of the last call of each of profile.py's calls under ncu
(--csv, gpu__time_duration.sum and smsp__inst_executed.sum): name, ns,
instructions."""

import csv
import sys


def main():
    for path in sys.argv[1:]:
        rows = list(csv.reader(line for line in open(path) if line.startswith('"')))
        header = rows[0]
        name, metric, value, ident = (header.index(k) for k in ("Kernel Name", "Metric Name", "Metric Value", "ID"))
        kernels = {}
        for row in rows[1:]:
            kernels.setdefault(int(row[ident]), {"name": row[name]})[row[metric]] = row[value]
        ids = sorted(kernels)
        print(path)
        for i in ids[len(ids) // 2 :]:  # profile.py's warm-up call first, then the timed one
            k = kernels[i]
            print(f"  {k['name'][:32]:32s} {k['gpu__time_duration.sum']:>8} ns {k['smsp__inst_executed.sum']:>12}")


if __name__ == "__main__":
    main()
