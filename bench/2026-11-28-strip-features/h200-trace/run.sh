#!/usr/bin/env bash
set -uo pipefail
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=index,name --format=csv,noheader; nproc
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .gpu/whl/ccl-*.whl || exit 1
export PYTHONPATH=/tmp/site
CCL_TRACE_STRIPS=/tmp/trace-a.csv timeout 400 python3 scripts/scale/time_devices.py --reps 2 --calls analyze --image-density 60 --input numpy --volume-connectivity 6 --out $OUT/analyze.csv 2>&1 | tee $OUT/analyze.log | grep -v "bandwidth\|generated" | sed 's/shape=.*connectivity=/c=/; s/density=[0-9]*, //; s/max_gpu_memory=default, //; s/components=[0-9]*, //; s/algorithm=default, //'
cp /tmp/trace-a.csv $OUT/
python3 scripts/scale/trace_summary.py /tmp/trace-a.csv > $OUT/summary.txt
grep "call\|pass 1 \|merge\|pass 2 \|busy" $OUT/summary.txt | head -80
for c in 3 11; do echo "== call $c"; awk -F, -v c=$c '$1==c && $3<4' /tmp/trace-a.csv | sort -t, -k5 -n; awk -F, -v c=$c '$1==c && $4=="features"' /tmp/trace-a.csv; done
