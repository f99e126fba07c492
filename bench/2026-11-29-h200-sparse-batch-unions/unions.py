# Sums ncu's CSV (gpu__time_duration.sum, one row a kernel, in launch
# order) per config of bm.py (bench/2026-11-29-h200-flat-bands): the
# unions (flat, or band unions + band joins) and all kernels, in µs.
#   unions.py NCU_CSV CONFIG...
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 5 and "gpu__time_duration.sum" in r]
calls = []
for r in rows:
    kernel = r[4].split("(")[0]
    value = float(r[-1].replace(",", "")) / 1000
    if kernel == "ccl_pack_bits" or not calls:
        calls.append({})
    calls[-1][kernel] = calls[-1].get(kernel, 0) + value
for config, k in zip(sys.argv[2:], calls):
    unions = sum(v for name, v in k.items() if "unions" in name or "joins" in name)
    print(f"{config:16} unions {unions:7.1f}  all {sum(k.values()):7.1f} us")
