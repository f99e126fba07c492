"""Per-call time of labeling a small host image from Python: `ccl.label`
(cpu-rle) of 32^2, 64^2, 128^2 and 256^2 uint8 images at 50 % (NumPy's
default_rng(0)), beside `cv2.connectedComponents`, `scipy.ndimage.label`
and `cc3d.connected_components` (8-connectivity). Each: the median of 5
rounds of N calls, µs a call. One line: TAG size:ccl[/cv2/scipy/cc3d] ...

  python3 small.py TAG [--peers]
"""

import sys
import time

import numpy as np


def per_call_us(call, n):
    call()
    rounds = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(n):
            call()
        rounds.append((time.perf_counter() - start) / n * 1e6)
    return sorted(rounds)[2]


def main():
    import ccl

    peers = "--peers" in sys.argv
    if peers:
        import cc3d
        import cv2
        import scipy.ndimage as ndimage
    rng = np.random.default_rng(0)
    cells = []
    for side in (32, 64, 128, 256):
        image = (rng.random((side, side)) < 0.5).astype(np.uint8)
        n = 4000 if side <= 64 else 1000
        times = [per_call_us(lambda: ccl.label(image), n)]
        if peers:
            times += [
                per_call_us(lambda: cv2.connectedComponents(image, connectivity=8), n),
                per_call_us(lambda: ndimage.label(image, np.ones((3, 3))), n),
                per_call_us(lambda: cc3d.connected_components(image, connectivity=8), n),
            ]
        cells.append(f"{side}:" + "/".join(f"{t:.1f}" for t in times))
    print(sys.argv[1], *cells, flush=True)


if __name__ == "__main__":
    main()
