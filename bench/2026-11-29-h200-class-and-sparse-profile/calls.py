"""Splits ncu's CSV (prof.py under ncu --csv) into prof.py's calls (each
made twice; the second is shown) and lists each call's kernels, in µs.

  python3 calls.py kernels.txt
"""

import csv
import sys


def main():
    lines = open(sys.argv[1]).read().splitlines()
    names = [l for l in lines if not l.startswith('"') and not l.startswith("==") and l.strip()]
    rows = list(csv.reader([l for l in lines if l.startswith('"')]))
    header, rows = rows[0], rows[1:]
    kernel, value = header.index("Kernel Name"), header.index("Metric Value")
    # prof.py's own helpers (cupy's !=, random images) run kernels too: a
    # call's kernels are those from its first ccl kernel on, split by calls.
    calls, current = [], None
    for row in rows:
        name = row[kernel].split("(")[0]
        us = float(row[value].replace(",", "")) / 1e3
        if name == "ccl_pack_bits" or name.startswith("flsl_pack_classes"):
            current = []
            calls.append(current)
        if current is not None and (name.startswith("ccl_") or name.startswith("flsl_") or name.startswith("tiles")):
            current.append((name, us))
    print(f"{len(calls)} calls for {len(names)} names: {names}")
    for i, call in enumerate(calls):
        if i % 2 == 1:
            label = names[i // 2] if i // 2 < len(names) else "?"
            print(f"\n{label}: {sum(u for _, u in call):.1f} us")
            for name, us in call:
                print(f"  {name} {us:.1f}")


if __name__ == "__main__":
    main()
