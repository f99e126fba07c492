"""stages.sh's output as a table: per cell, the sweep's median and the
median over its calls of each stage (ms).

  python3 table.py stages.txt
"""
import re
import statistics as st
import sys

cells = []
for line in open(sys.argv[1]):
    line = line.strip()
    if line.startswith("=="):
        size, c, task, d = re.findall(r"size (\d+) c (\d+) task (\w+) d (\d+)", line)[0]
        cells.append({"cell": (int(size), int(c), task, int(d)), "S": [], "A": [], "J": [], "median": None})
    elif line.startswith("STAGES"):
        f = line.split()
        cells[-1]["S"].append((float(f[2]), float(f[4]), float(f[6])))
    elif line.startswith("ASTAGES"):
        f = line.split()
        cells[-1]["A"].append((float(f[2]), float(f[4])))
    elif line.startswith("JSTAGES"):
        f = line.split()
        cells[-1]["J"].append((float(f[2]), float(f[4])))
    elif line and cells:
        cells[-1]["median"] = float(line)
print("| size | c | task | d % | call ms | bands | join (borders, roots) | write |")
print("| ---: | ---: | --- | ---: | ---: | ---: | --- | ---: |")
for cell in cells:
    size, c, task, d = cell["cell"]
    rows = cell["S"] or cell["A"]
    med = lambda i, rs=rows: st.median(r[i] for r in rs)
    borders = st.median(j[0] for j in cell["J"])
    roots = st.median(j[1] for j in cell["J"])
    write = f"{med(2):.3f}" if cell["S"] else "-"
    print(f"| {size}² | {c} | {task} | {d} | {cell['median']:.3f} | {med(0):.3f} | {med(1):.3f} ({borders:.3f}, {roots:.3f}) | {write} |")
