# Sums ncu's CSV per config of cm.py: each config's kernels begin at its
# packing kernel (flsl_pack_classes_*).  kernels.py NCU_CSV CONFIG...
import csv, sys
calls = []
for r in csv.reader(open(sys.argv[1])):
    if len(r) < 6 or "gpu__time_duration.sum" not in r:
        continue
    kernel, value = r[4].split("(")[0], float(r[-1].replace(",", "")) / 1000
    if kernel.startswith("flsl_pack_classes") or not calls:
        calls.append({})
    calls[-1][kernel] = calls[-1].get(kernel, 0) + value
for config, k in zip(sys.argv[2:], calls):
    runs = sum(v for n, v in k.items() if n.startswith("flsl_class_runs"))
    print(f"{config:16} class_runs {runs:7.1f}  all {sum(k.values()):7.1f} us")
