"""The changed kernels on small inputs, against the CPU, for the sanitizers:
`ccl.label` of CuPy batches (the run kernel's first rows, the group root
count, the short-row pixel pass), volumes (6 and 26) and class-map batches,
at 10-70 %, against the same calls on numpy. Prints `ok: N of N agree`."""

import sys

import numpy as np


def blobs(rng, shape, density, g):
    coarse = tuple(-(-s // g) for s in shape)
    small = rng.random(coarse) < density
    for axis, s in enumerate(shape):
        small = np.repeat(small, g, axis=axis)
    return small[tuple(slice(0, s) for s in shape)].astype(np.uint8)


def main():
    import cupy

    import ccl

    rng = np.random.default_rng(7)
    checked = agree = 0

    def same(name, gpu, cpu):
        nonlocal checked, agree
        checked += 1
        gpu = [cupy.asnumpy(x) if hasattr(x, "__cuda_array_interface__") else np.asarray(x) for x in gpu]
        ok = all(np.array_equal(a, np.asarray(b)) for a, b in zip(gpu, cpu))
        agree += ok
        if not ok:
            print("FAILED", name, flush=True)

    for d in (0.1, 0.4, 0.7):
        for g in (1, 4):
            for h, w in ((64, 512), (33, 100), (17, 1000)):
                batch = blobs(rng, (6, h, w), d, g)
                for c in (4, 8):
                    same(f"batch {d} {g} {h}x{w} c{c}", ccl.label(cupy.asarray(batch), c, batch=True),
                         ccl.label(batch, c, batch=True, algorithm="cpu-rle"))
                classes = (batch * rng.integers(1, 4, batch.shape)).astype(np.uint8)
                same(f"classes {d} {g} {h}x{w}", ccl.label_classes(cupy.asarray(classes), 8, batch=True),
                     ccl.label_classes(classes, 8, batch=True))
            volume = blobs(rng, (40, 48, 200), d, g)
            for c in (6, 26):
                same(f"volume {d} {g} c{c}", ccl.label(cupy.asarray(volume), c), ccl.label(volume, c, algorithm="cpu-rle"))
    print(f"ok: {agree} of {checked} agree")
    return 0 if agree == checked else 1


if __name__ == "__main__":
    sys.exit(main())
