#!/usr/bin/env python3
"""The tables of README.md from one machine's CSVs (a folder holding
crossover.csv, ccl-<side>.csv and peers-<side>.csv, as run.sh writes them):
cpu-rle against the best of OpenCV and cc3d density by density, and
cpu-rle against cpu-rle-1t by image size.

    python3 tables.py dev-2core
"""
import csv
import sys
from collections import defaultdict
from pathlib import Path

DENSITIES = ("10", "30", "50", "70", "90")
TARGETS = {"label": 2.0, "analyze": 10.0}


def read(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def comparison(folder, side, task):
    best = defaultdict(dict)
    for row in read(folder / f"peers-{side}.csv"):
        if row["task"] == task:
            key = (row["connectivity"], row["granularity"], row["density"])
            best[key][row["variant"]] = float(row["median_ms"])
    ours = {
        (r["connectivity"], r["granularity"], r["density"]): float(r["median_ms"])
        for r in read(folder / f"ccl-{side}.csv")
        if r["task"] == task
    }
    target = TARGETS[task]
    lines = [
        "| c | g | " + " | ".join(f"{d} %" for d in DENSITIES) + " |",
        "| --- | --- |" + " --- |" * len(DENSITIES),
    ]
    ratios = []
    for c in ("4", "8"):
        for g in ("1", "4", "16"):
            cells = []
            for d in DENSITIES:
                peer = min(best[(c, g, d)].values())
                ratio = peer / ours[(c, g, d)]
                ratios.append(ratio)
                cell = f"{ours[(c, g, d)]:.1f} / {peer:.1f} = {ratio:.2f}×"
                cells.append(f"**{cell}**" if ratio < target else cell)
            lines.append(f"| {c} | {g} | " + " | ".join(cells) + " |")
    under = sum(r < target for r in ratios)
    lines.append("")
    lines.append(
        f"{side}², {task}: {min(ratios):.2f}–{max(ratios):.2f}× the best peer, "
        f"under {target:g}× in {under} of {len(ratios)} (bold)."
    )
    return "\n".join(lines)


def crossover(folder):
    times = defaultdict(lambda: defaultdict(list))
    for row in csv.reader(open(folder / "crossover.csv")):
        variant, side, granularity, ms = row[0], int(row[4]), int(row[6]), float(row[9])
        times[(side, granularity)][variant].append(ms)
    lines = [
        "| side | g | cpu-rle | cpu-rle-1t | ratio |",
        "| ---: | ---: | ---: | ---: | ---: |",
    ]
    for (side, g), by in sorted(times.items()):
        many = sum(by["cpu-rle"]) / len(by["cpu-rle"])
        one = sum(by["cpu-rle-1t"]) / len(by["cpu-rle-1t"])
        lines.append(f"| {side} | {g} | {many:.3f} | {one:.3f} | {many / one:.2f} |")
    return "\n".join(lines)


def main():
    folder = Path(sys.argv[1])
    for side in (4096, 2048):
        for task in ("label", "analyze"):
            print(f"### {side}², {task}\n")
            print(comparison(folder, side, task))
            print()
    print("### threads, 8-connectivity labels, mean ms over d = 10-90 %\n")
    print(crossover(folder))


if __name__ == "__main__":
    main()
