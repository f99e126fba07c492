# The random masks of chkbatch.py and chkroots.py: cells of g pixels a side
# on with probability d %, cut to `shape` (any number of axes).
import numpy as np
def rnd(shape, d, g, seed):
    r = np.random.RandomState(seed)
    cells = r.random_sample(tuple(-(-s // g) for s in shape)) < d / 100
    for axis in range(len(shape)):
        cells = cells.repeat(g, axis)
    return np.ascontiguousarray(cells[tuple(slice(0, s) for s in shape)]).astype(np.uint8)
