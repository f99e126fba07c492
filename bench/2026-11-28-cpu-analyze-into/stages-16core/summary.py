#!/usr/bin/env python3
"""Medians of trace16.txt: per cell and band setting, the call's median
(ms) and the medians of the band and join stages (first call left out)."""
import re
import statistics
import sys
from pathlib import Path

path = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("trace16.txt"))
cells, key = {}, None
for line in path.open():
    if line.startswith("###"):
        f = dict(kv.split("=", 1) for kv in line[4:].split())
        key = (f["side"], f["c"], f["g"], f["d"], f["mode"], f["cfg"])
        cells[key] = {"bands": [], "join": [], "call": None}
    elif line.startswith(("A ", "L ")):
        numbers = re.findall(r"[\d.]+", line)
        cells[key]["bands"].append(float(numbers[0]))
        cells[key]["join"].append(float(numbers[1]))
    elif line.startswith("d="):
        cells[key]["call"] = float(line.split("median ")[1].split()[0])
rows = {}
for k, v in cells.items():
    rows.setdefault(k[:5], {})[k[5]] = v
print("side c g d task | setting: call ms (bands, join[+write]) ...")
for k in sorted(rows):
    parts = []
    for cfg, v in sorted(rows[k].items()):
        b, j = statistics.median(v["bands"][1:]), statistics.median(v["join"][1:])
        parts.append(f"{cfg}: {v['call']:.2f} ({b:.2f}, {j:.2f})")
    print(" ".join(k).replace("LABEL", "label").replace("REUSE", "analyze"), "|", " | ".join(parts))
