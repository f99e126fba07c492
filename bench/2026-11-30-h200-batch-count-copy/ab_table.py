"""profile.py's A/B (ab.csv: tag,round,cell,call,returned_ms,synchronized_ms):
per cell and wheel, one image's synchronized ms / the batch's in each round,
and the batch's synchronized and returned ms (median over rounds)."""

import csv
import statistics
import sys
from collections import defaultdict


def main():
    rows = defaultdict(dict)
    for tag, rnd, cell, call, returned, synced in csv.reader(open(sys.argv[1])):
        rows[(cell, tag, rnd)][call] = (float(returned), float(synced))
    cells = sorted({k[0] for k in rows}, key=lambda c: list(map(int, c.split(":")))[::-1])
    tags = sorted({k[1] for k in rows})
    print("| cell d:g:c | wheel | image / batch per round | batch ms | batch returned ms | image ms |")
    print("| --- | --- | --- | ---: | ---: | ---: |")
    for cell in cells:
        for tag in tags:
            rounds = sorted(k[2] for k in rows if k[0] == cell and k[1] == tag)
            got = [rows[(cell, tag, r)] for r in rounds]
            ratios = " / ".join(f"{g['image'][1] / g['batch'][1]:.3f}" for g in got)
            batch = statistics.median(g["batch"][1] for g in got)
            returned = statistics.median(g["batch"][0] for g in got)
            image = statistics.median(g["image"][1] for g in got)
            print(f"| {cell} | {tag} | {ratios} | {batch:.4f} | {returned:.4f} | {image:.4f} |")


if __name__ == "__main__":
    main()
