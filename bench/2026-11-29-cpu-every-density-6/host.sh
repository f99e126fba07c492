#!/usr/bin/env bash
# The GPU machine's 16 host cores: run.sh with the ccl binary of this
# commit (.gpu/ccl.xz), OpenCV on 16 threads and cc3d 4.1.1 from the
# carried wheel. Carry [".gpu/ccl.xz", ".gpu/pyt"].
set -u
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.gpu/ccl.xz'), open('/tmp/ccl', 'wb'))" && chmod +x /tmp/ccl
rm -rf /tmp/site; python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/pyt/connected_components_3d-*.whl
B=bench/2026-11-29-cpu-every-density-6
SECONDS=0
PYTHONPATH=/tmp/site CCL_PEERS_PYTHON=python3 bench/2026-11-25-cpu-every-density/run.sh /tmp/ccl $OUT/h200-host-16core 16 > $OUT/host.log 2>&1
echo "run rc=$? ${SECONDS}s"; nproc; lscpu | grep "Model name"
python3 bench/2026-11-25-cpu-every-density/tables.py $OUT/h200-host-16core | grep -E "under|^###"
