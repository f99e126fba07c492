"""One `ccl.label_classes` (or, with `binary`, `ccl.label` of the same
foreground) of an 8192^2 CuPy map of 4 classes inside a profiler window,
for `ncu --profile-from-start off`, after three calls:

  pc.py G D CONN [binary]
"""

import sys
from pathlib import Path

import cupy

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts" / "peers"))
from time_classes import class_map  # noqa: E402

import ccl  # noqa: E402

g, density, connectivity = (int(a) for a in sys.argv[1:4])
values = cupy.asarray(class_map((8192, 8192), density, g))
if len(sys.argv) > 4:
    binary = values != 0
    call = lambda: ccl.label(binary, connectivity)  # noqa: E731
else:
    call = lambda: ccl.label_classes(values, connectivity)  # noqa: E731
for _ in range(3):
    call()
cupy.cuda.Device().synchronize()
cupy.cuda.runtime.profilerStart()
call()
cupy.cuda.Device().synchronize()
cupy.cuda.runtime.profilerStop()
