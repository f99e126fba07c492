"""Times batched labeling from Python on the GPU: a batch of N masks of
HxW labeled in one call of ccl (`ccl.label(batch, c, batch=True)`) beside
CV-CUDA's batched `label` (4-connectivity, one call), a Python loop of
single-image `ccl.label` calls over the same masks, a loop of
`cupyx.scipy.ndimage.label`, and one image of the same pixels
(sqrt(N*H*W) squared: 256 masks of 512x512 against one 8192x8192 image).

Images follow docs/benchmark.md's random images (one MT19937 draw per g*g
cell in raster order, foreground below density% of 2^32), made here with
NumPy's RandomState; mask i of a batch has seed i, the single image seed 0.
Each call is timed from just before it to the device being idle (counts
stay on the device where the library leaves them there; a loop of
single-image calls reads each count back, as its users get it); one
warm-up, then --reps runs, the median kept. Counts of all calls are
compared per mask (the single image's with ccl's own).

  scripts/peers/time-batch-peers --out batch-peers.csv
  scripts/peers/time-batch-peers --algorithm auto --out batch-peers-auto.csv

ccl runs its default variant, or --algorithm's in every ccl call.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np


def random_image(w, h, density, g, seed):
    cw, ch = -(-w // g), -(-h // g)
    u = np.random.RandomState(seed).randint(0, 2**32, size=ch * cw, dtype=np.uint32)
    cells = (u.astype(np.uint64) < density * 2**32 // 100).reshape(ch, cw)
    return np.ascontiguousarray(cells.repeat(g, 0).repeat(g, 1)[:h, :w].astype(np.uint8))


def median_ms(cupy, run, reps):
    result = run()
    cupy.cuda.Device().synchronize()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        result = run()
        cupy.cuda.Device().synchronize()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times), result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--images", type=int, default=256)
    parser.add_argument("--size", type=int, default=512, help="masks of SIZE x SIZE")
    parser.add_argument("--densities", default="10,30,45,60,75,90")
    parser.add_argument("--granularities", default="1,4,16")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--loop-reps", type=int, default=2)
    parser.add_argument("--algorithm", default=None,
                        help="the ccl variant of every ccl call (default: ccl's default)")
    parser.add_argument("--out", type=Path, default=Path("batch-peers.csv"))
    args = parser.parse_args()

    import cupy
    import cupyx.scipy.ndimage as ndimage

    import ccl

    try:
        import cvcuda
    except ImportError:
        cvcuda = None
        print("cvcuda not imported: no CV-CUDA rows", file=sys.stderr)

    n, size, algorithm = args.images, args.size, args.algorithm
    side = int(round((n * size * size) ** 0.5))
    pixels = n * size * size
    rows = ["call,connectivity,granularity,density,images,width,height,median_ms,gpx_per_s"]
    table = []
    for g in [int(x) for x in args.granularities.split(",")]:
        for d in [int(x) for x in args.densities.split(",")]:
            host = np.stack([random_image(size, size, d, g, i) for i in range(n)])
            batch = cupy.asarray(host)
            single = cupy.asarray(random_image(side, side, d, g, 0))
            for c in (4, 8):
                timings = {}
                ms, (_, counts) = median_ms(
                    cupy, lambda: ccl.label(batch, c, batch=True, algorithm=algorithm), args.reps)
                timings["ccl-batch"] = ms
                counts = cupy.asnumpy(counts).astype(np.int64)
                ms, (_, one) = median_ms(
                    cupy, lambda: ccl.label(single, c, algorithm=algorithm), args.reps)
                timings["ccl-one-image"] = ms
                ms, loop = median_ms(
                    cupy, lambda: [ccl.label(batch[i], c, algorithm=algorithm)[1] for i in range(n)],
                    args.loop_reps)
                timings["ccl-loop"] = ms
                assert list(loop) == list(counts), f"ccl loop counts differ at g={g} d={d} c={c}"
                structure = ndimage.generate_binary_structure(2, 1 if c == 4 else 2)
                ms, loop = median_ms(
                    cupy, lambda: [int(ndimage.label(batch[i], structure)[1]) for i in range(n)],
                    args.loop_reps)
                timings["cupyx-loop"] = ms
                assert list(loop) == list(counts), f"cupyx counts differ at g={g} d={d} c={c}"
                if cvcuda is not None and c == 4:
                    zeros = cupy.zeros(n, dtype=cupy.uint8)
                    background = cvcuda.as_tensor(zeros, "N")
                    stream = cvcuda.as_stream(cupy.cuda.get_current_stream())

                    def cv_label():
                        return cvcuda.label(
                            cvcuda.as_tensor(batch, "NHW"), connectivity=cvcuda.CONNECTIVITY_4_2D,
                            bg_label=background, stream=stream, assign_labels=cvcuda.LABEL.FAST,
                            count=True)

                    ms, (_, cv_counts, _) = median_ms(cupy, cv_label, args.reps)
                    timings["cvcuda-batch"] = ms
                    cv_counts = cupy.asnumpy(cupy.asarray(cv_counts.cuda())).astype(np.int64)
                    assert list(cv_counts.ravel()) == list(counts), \
                        f"CV-CUDA counts differ at g={g} d={d}"
                for call, ms in timings.items():
                    w, h, images = (side, side, 1) if call == "ccl-one-image" else (size, size, n)
                    rows.append(f"{call},{c},{g},{d},{images},{w},{h},{ms:.4f},"
                                f"{pixels / ms / 1e6:.2f}")
                table.append((c, g, d, timings))
                print(f"c={c} g={g} d={d}: " + ", ".join(
                    f"{k} {v:.3f} ms" for k, v in timings.items()), flush=True)
    args.out.write_text("\n".join(rows) + "\n")

    print(f"\n{n} masks of {size}x{size} ({pixels / 1e6:.1f} Mpx) beside one {side}x{side} image")
    print("| c | g | batch Gpx/s (mean) | batch / one image (min) | x CV-CUDA (min / mean) "
          "| x ccl loop (min) | x cupyx loop (min) |")
    print("| ---: | ---: | ---: | ---: | --- | ---: | ---: |")
    for c in (4, 8):
        for g in sorted({g for cc, g, _, _ in table if cc == c}):
            rows_ = [t for cc, gg, _, t in table if cc == c and gg == g]
            gpx = statistics.mean(pixels / t["ccl-batch"] / 1e6 for t in rows_)
            vs_one = min(t["ccl-one-image"] / t["ccl-batch"] for t in rows_)
            cv = [t["cvcuda-batch"] / t["ccl-batch"] for t in rows_ if "cvcuda-batch" in t]
            cv_text = f"{min(cv):.2f} / {statistics.mean(cv):.2f}" if cv else "-"
            loop = min(t["ccl-loop"] / t["ccl-batch"] for t in rows_)
            cupyx = min(t["cupyx-loop"] / t["ccl-batch"] for t in rows_)
            print(f"| {c} | {g} | {gpx:.1f} | {vs_one:.2f} | {cv_text} | {loop:.1f} | {cupyx:.1f} |")


if __name__ == "__main__":
    main()
