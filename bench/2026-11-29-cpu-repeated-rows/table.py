"""Write-stage medians of stages.sh's CSV, old against new, per cell:
each round's median, and the ratio of the least of each side's.

  python3 table.py st-2048.csv
"""
import csv
import sys

cells = {}
for row in csv.DictReader(open(sys.argv[1])):
    key = (int(row["connectivity"]), int(row["granularity"]), int(row["density"]))
    cells.setdefault(key, {}).setdefault(row["binary"], []).append(float(row["write"]))
print("| c | g | d % | old write ms (rounds) | new | least new / least old |")
print("| ---: | ---: | ---: | --- | --- | ---: |")
for (c, g, d), sides in sorted(cells.items()):
    old, new = sides["old"], sides["new"]
    print(f"| {c} | {g} | {d} | {' / '.join(f'{x:.3f}' for x in old)} | "
          f"{' / '.join(f'{x:.3f}' for x in new)} | {min(new) / min(old):.2f} |")
