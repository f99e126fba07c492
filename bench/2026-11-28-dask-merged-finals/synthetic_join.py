# Synthetic join input of the size of 2048^3 in 512^3 chunks: 64 chunks,
# 144 faces, 20 M face labels, 11 M pairs (random pairs: far more merged
# labels than a real volume's). Times the parts of ccl.dask's join task
# (ccl.dask._joined's steps) with the installed ccl: before 65231b9 the
# native join returned three arrays and _Plan searched the merged labels'
# numbers; from it, four.
import time, numpy as np
from ccl import dask as cd
rng = np.random.default_rng(0)
chunks = 64
per = 20_000_000 // chunks
counts = np.full(chunks, 3 * per, np.int64)
face_labels = [np.sort(rng.choice(3 * per, per, replace=False).astype(np.uint32) + 1) for _ in range(chunks)]
faces = []
for f in range(144):
    a, b = rng.integers(0, chunks, 2)
    n = 11_000_000 // 144
    ka = (np.uint64(a) << np.uint64(32)) | (rng.integers(1, per + 1, n).astype(np.uint64))
    kb = (np.uint64(b) << np.uint64(32)) | (rng.integers(1, per + 1, n).astype(np.uint64))
    faces.append((ka, kb))
for rep in range(3):
    t0 = time.perf_counter()
    empty = [np.zeros(0, np.uint64)]
    keys_a = np.concatenate([f[0] for f in faces] + empty)
    keys_b = np.concatenate([f[1] for f in faces] + empty)
    t1 = time.perf_counter()
    sizes = np.array([len(f) for f in face_labels], np.int64)
    local = np.concatenate([np.asarray(f, np.uint32) for f in face_labels] + [np.zeros(0, np.uint32)])
    t2 = time.perf_counter()
    at = [a.__array_interface__["data"][0] for a in (counts, sizes, local, keys_a, keys_b)]
    joined = cd._ccl.join_chunk_faces(at[0], at[1], len(counts), at[2], at[3], at[4], len(keys_a))
    arrays = [np.asarray(a).view(np.int64) for a in joined]
    t3 = time.perf_counter()
    if len(arrays) == 3:
        paired, finals, merged = arrays
        plan = cd._Plan(counts, paired, finals, merged, None, False)
    else:
        paired, finals, merged, merged_finals = arrays
        plan = cd._Plan(counts, paired, finals, merged, merged_finals, None, False)
    t4 = time.perf_counter()
    assert (plan.merged_finals == finals[np.searchsorted(paired, merged)]).all()
    print(f"keys concat {1e3*(t1-t0):.0f} ms, faces concat {1e3*(t2-t1):.0f}, native join {1e3*(t3-t2):.0f}, plan {1e3*(t4-t3):.0f}; paired {len(paired)} merged {len(merged)}")
