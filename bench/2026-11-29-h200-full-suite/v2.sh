#!/usr/bin/env bash
# Call 2: the Python package's whole test suite on the GPU machine with this
# code's wheel and the CI's peers (pytest, cc3d 4.1.1, dask, dask-image) carried.
rm -rf /tmp/site
python3 -m pip install -q --no-index --no-deps --target /tmp/site .gpu/whl/*.whl .gpu/pyt/*.whl
SECONDS=0
PYTHONPATH=/tmp/site timeout 420 python3 -m pytest -q -p no:cacheprovider ccl-python/tests 2>&1 | tail -15 > $OUT/pytest.txt || true
tail -6 $OUT/pytest.txt; echo "pytest ${SECONDS}s"
# memcheck over `ccl verify` (call 1's all-variant memcheck with patterns ran
# past its 150 s): random images and volumes only, the FLSL family first.
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.gpu/ccl.xz'), open('.gpu/ccl', 'wb'))"; chmod +x .gpu/ccl
SECONDS=0
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 1 .gpu/ccl verify -a flsl-cd -a flsl -a flsl-otf -a auto -a tiles --random-only --cases 4 > $OUT/memcheck1.txt 2>&1
echo "memcheck flsl rc=$? ${SECONDS}s"; grep -E "ERROR SUMMARY|ok|FAIL" $OUT/memcheck1.txt | tail -8
SECONDS=0
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 1 .gpu/ccl verify -a playne -a ha4-64 -a ha8-64 -a buf -a bke -a ke4 -a ke8 -a kni -a le -a dlp -a naive-cca --random-only --cases 2 > $OUT/memcheck2.txt 2>&1
echo "memcheck others rc=$? ${SECONDS}s"; grep -E "ERROR SUMMARY|ok|FAIL" $OUT/memcheck2.txt | tail -14
