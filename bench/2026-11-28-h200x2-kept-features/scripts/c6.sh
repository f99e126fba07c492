#!/usr/bin/env bash
# Call 6 (two H200): ccl-scale's tests after the StripJob refactor (host code of the GPU worker).
set -u
export INSTA_WORKSPACE_ROOT="$PWD" CCL_REQUIRE_GPU=1
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.gpx/cargo-nextest.xz'), open('/tmp/nextest', 'wb'))" && chmod +x /tmp/nextest
timeout 120 /tmp/nextest nextest run --archive-file .gpx/tests-scale.tar.zst --workspace-remap "$PWD" --no-fail-fast 2>&1 | grep -E "FAIL|panicked|Summary" | tee $OUT/tests.txt
