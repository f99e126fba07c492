#!/usr/bin/env bash
# Call 8 (two H200), code of the final commit: ccl-scale's tests; issue 28's table
# (numpy: label and analyze; pinned: label; 1 GPU against 2); a trace of the volume's merge.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1 INSTA_WORKSPACE_ROOT="$PWD"
R=$OUT
{ nvidia-smi --query-gpu=index,name,memory.total,driver_version --format=csv; nproc; } > $R/machine.txt
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.gpx/cargo-nextest.xz'), open('/tmp/nextest', 'wb'))" && chmod +x /tmp/nextest
CCL_REQUIRE_GPU=1 timeout 100 /tmp/nextest nextest run --archive-file .gpx/tests-scale.tar.zst --workspace-remap "$PWD" --no-fail-fast 2>&1 | grep -E "FAIL|panicked|Summary" | tee $R/tests.txt
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .gpx/new/ccl-*.whl .gpx/dask/*.whl || exit 1
export PYTHONPATH=/tmp/site
short() { grep -v "bandwidth\|devices:\|generated" | sed 's/shape=.*connectivity=/c=/; s/density=[0-9]*, //; s/max_gpu_memory=default, //; s/components=[0-9]*, //; s/algorithm=default, //'; }
timeout 250 python3 scripts/scale/time_devices.py --reps 4 --calls label,analyze --input numpy --out $R/devices-numpy.csv > $R/devices-numpy.log 2>&1; short < $R/devices-numpy.log | grep -v whole
timeout 150 python3 scripts/scale/time_devices.py --reps 4 --calls label --input pinned --out $R/devices-pinned.csv > $R/devices-pinned.log 2>&1; short < $R/devices-pinned.log | grep -v whole
