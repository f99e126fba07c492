#!/usr/bin/env bash
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=index,name --format=csv,noheader
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .gpu/whl/ccl-*.whl || exit 1
export PYTHONPATH=/tmp/site
.gpu/run-tests -E 'package(ccl-scale)' 2>&1 | tail -n 1
python3 -m pytest -q -p no:cacheprovider ccl-python/tests/test_strips.py 2>&1 | tail -n 1
short() { grep -v "whole\|bandwidth\|devices:\|generated" | sed 's/shape=.*connectivity=/c=/; s/density=[0-9]*, //; s/call=label, //; s/max_gpu_memory=default, //; s/first_call_ms=[0-9.]*, //; s/components=[0-9]*, //'; }
for input in pinned numpy; do
  CCL_TRACE_STRIPS=/tmp/trace-$input.csv python3 scripts/scale/time_devices.py --reps 5 --calls label --input $input --out $OUT/devices-$input.csv 2>&1 | tee $OUT/devices-$input.log | short
  python3 scripts/scale/trace_summary.py /tmp/trace-$input.csv > $OUT/summary-$input.txt
  python3 - $input <<'PY' > $OUT/timeline-$input.txt
import csv, sys
rows = list(csv.reader(open(f"/tmp/trace-{sys.argv[1]}.csv")))
for call in ("9", "21", "33"):
    print("call", call)
    for r in sorted((r for r in rows if r[0] == call), key=lambda r: float(r[4])):
        if r[3] != "compare":
            print(" ", r[1], r[2], r[3], r[4], r[5])
    comps = [r for r in rows if r[0] == call and r[3] == "compare"]
    if comps:
        print("  compare first start", min(float(r[4]) for r in comps), "last end", max(float(r[5]) for r in comps))
PY
done
for f in $OUT/summary-*.txt; do echo "== $f"; grep -A4 "^call \(9\|21\|33\|3\|15\|27\):" $f | grep "call\|pass 1 \|merge\|pass 2 \|busy"; done
