#!/usr/bin/env bash
# Call 1: the whole gpu-pack suite (GPU tests required), then compute-sanitizer
# memcheck and racecheck over `ccl verify` of the CUDA variants. Carry [".gpu"]
# (gpu-pack's archive recompressed with `zstd -19 --long=27`, ccl as ccl.xz).
python3 -c "import lzma, shutil; shutil.copyfileobj(lzma.open('.gpu/ccl.xz'), open('.gpu/ccl', 'wb'))"
chmod +x .gpu/ccl
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
timeout 300 .gpu/run-tests > $OUT/tests.txt 2>&1; echo "run-tests rc=$? ${SECONDS}s"
grep -E "^\s+(FAIL|SIGSEGV|TIMEOUT)|Summary" $OUT/tests.txt | tail -20
cuda="-a flsl-cd -a flsl -a flsl-otf -a auto -a tiles -a playne -a ha4-64 -a ha8-64 -a buf -a bke -a ke4 -a ke8 -a kni -a le -a dlp -a naive-cca -a ha-cd -a ha-otf -a ha4-32 -a ha8-32"
SECONDS=0
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 1 .gpu/ccl verify $cuda --cases 6 --worst-side 256 > $OUT/memcheck.txt 2>&1
echo "memcheck rc=$? ${SECONDS}s"; grep -E "ERROR SUMMARY|ok|FAIL|mismatch" $OUT/memcheck.txt | tail -8
SECONDS=0
timeout 120 compute-sanitizer --tool racecheck --error-exitcode 1 .gpu/ccl verify -a flsl-cd -a flsl -a flsl-otf -a auto -a tiles --random-only --cases 4 > $OUT/racecheck.txt 2>&1
echo "racecheck rc=$? ${SECONDS}s"; grep -E "RACECHECK SUMMARY|ok|FAIL" $OUT/racecheck.txt | tail -8
