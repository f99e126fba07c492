# Sums ncu's CSV (gpu__time_duration.sum, one row a kernel, in launch
# order) per config of bm.py: each config's kernels begin at ccl_pack_bits.
#   kernels.py NCU_CSV CONFIG...
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 5 and r[-3:-2] == ["gpu__time_duration.sum"] or (len(r) > 5 and "gpu__time_duration.sum" in r)]
names = []
for r in rows:
    kernel = r[4].split("(")[0]
    value = float(r[-1].replace(",", "")) / 1000
    if kernel == "ccl_pack_bits" or not names:
        names.append({})
    names[-1][kernel] = names[-1].get(kernel, 0) + value
for config, k in zip(sys.argv[2:], names):
    unions = k.get("flsl_band_unions", 0)
    joins = k.get("flsl_band_joins", 0)
    print(f"{config:24} band_unions {unions:7.1f}  band_joins {joins:6.1f}  all {sum(k.values()):7.1f} us")
