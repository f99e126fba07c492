"""Summarizes a strip labeling's trace (`CCL_TRACE_STRIPS=FILE`, the CSV rows
`call,worker,strip,step,start_ms,end_ms` that `ccl-scale` appends per step of every strip): per
call, its wall time and its phases — the first pass (from the first step to the merge), the merge
between the passes (and its own steps, `merge-*`), the second pass (after the merge) or, for an analysis, the merge of the
features — and per phase and step the time the workers were busy in it, summed over the workers,
with the number of workers that took part.

    CCL_TRACE_STRIPS=trace.csv python3 scripts/scale/time_devices.py --reps 2 ...
    python3 scripts/scale/trace_summary.py trace.csv [--calls 3,4] [--timeline]

With --timeline, each call's steps follow its summary in order of their start (`worker strip
step start end`, ms), the border comparisons (many short tasks) folded into their first start
and last end.
"""

import argparse
import csv
from collections import defaultdict


def summarize(rows):
    """Lines of text for the rows of one call."""
    end = max(r["end"] for r in rows)
    merges = [r for r in rows if r["step"] == "merge"]
    merge_start = merges[0]["start"] if merges else end
    merge_end = merges[0]["end"] if merges else end
    features = [r for r in rows if r["step"] == "features"]
    phases = {"pass 1": [], "pass 2": []}
    merge_steps = [r for r in rows if r["step"].startswith("merge-")]
    for r in rows:
        if r["step"] in ("merge", "features") or r["step"].startswith("merge-"):
            continue
        phases["pass 1" if r["start"] < merge_start else "pass 2"].append(r)
    lines = [f"wall {end:.1f} ms, strips {len({r['strip'] for r in rows if r['strip'] != '-'})}, "
             f"workers {len({r['worker'] for r in rows if r['worker'] != '-'})}"]
    first = phases["pass 1"]
    if first:
        lines.append(f"  pass 1  {min(r['start'] for r in first):8.1f} .. {merge_start:8.1f} ms")
    if merges:
        lines.append(f"  merge   {merge_start:8.1f} .. {merge_end:8.1f} ms ({merge_end - merge_start:.1f})")
    if merge_steps:
        parts = ", ".join(f"{r['step'][len('merge-'):]} {r['end'] - r['start']:.1f}" for r in merge_steps)
        lines.append(f"    its steps (ms): {parts}")
    second = phases["pass 2"]
    if second:
        lines.append(f"  pass 2  {merge_end:8.1f} .. {max(r['end'] for r in second):8.1f} ms")
    for r in features:
        lines.append(f"  features {r['start']:7.1f} .. {r['end']:8.1f} ms ({r['end'] - r['start']:.1f})")
    for phase, steps in phases.items():
        busy = defaultdict(float)
        for r in steps:
            busy[r["step"]] += r["end"] - r["start"]
        if busy:
            workers = len({r["worker"] for r in steps})
            parts = ", ".join(f"{step} {ms:.1f}" for step, ms in busy.items())
            lines.append(f"  {phase} busy over {workers} workers (ms): {parts}")
    return lines


def timeline(rows):
    """Lines of text: the call's steps by start, the comparisons folded into one line."""
    lines = []
    for r in sorted(rows, key=lambda r: r["start"]):
        if r["step"] != "compare":
            lines.append(f"  {r['worker']:>2} {r['strip']:>4} {r['step']:<9} "
                         f"{r['start']:9.3f} {r['end']:9.3f}")
    compares = [r for r in rows if r["step"] == "compare"]
    if compares:
        lines.append(f"  comparisons: first start {min(r['start'] for r in compares):.3f}, "
                     f"last end {max(r['end'] for r in compares):.3f}")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trace", help="the CSV that CCL_TRACE_STRIPS named")
    parser.add_argument("--calls", help="the calls to show, comma-separated (default: all)")
    parser.add_argument("--timeline", action="store_true", help="also list each call's steps")
    args = parser.parse_args()
    calls = defaultdict(list)
    with open(args.trace, newline="") as f:
        for row in csv.DictReader(f, fieldnames=["call", "worker", "strip", "step", "start", "end"]):
            if row["call"] == "call":
                continue
            row["start"], row["end"] = float(row["start"]), float(row["end"])
            calls[int(row["call"])].append(row)
    wanted = {int(c) for c in args.calls.split(",")} if args.calls else set(calls)
    for call in sorted(wanted & set(calls)):
        print(f"call {call}: " + "\n".join(summarize(calls[call])))
        if args.timeline:
            print("\n".join(timeline(calls[call])))


if __name__ == "__main__":
    main()
