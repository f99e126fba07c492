"""What host memory allows a label array that is not page-locked (a numpy array), on the GPU
machine: page faults of a new array, cudaHostRegister / cudaHostUnregister of one (fresh and
already touched; whole, and in chunks on several threads), device-to-host copies into pageable,
registered and pinned memory, and copies from a pinned buffer into a pageable array on 4, 8 and
16 threads. 8 GiB per case; run with CuPy installed:

    python3 host_bounds.py > host-bounds.txt
"""
import time, threading, ctypes, numpy as np, cupy
rt = cupy.cuda.runtime
print(open('/sys/kernel/mm/transparent_hugepage/enabled').read().strip(), open('/sys/kernel/mm/transparent_hugepage/defrag').read().strip())
import os; print('cpus', os.cpu_count())
GiB = 1 << 30
S = 8 * GiB
def t(f):
    s = time.perf_counter(); r = f(); return time.perf_counter() - s
def threads(n, fn):
    ts = [threading.Thread(target=fn, args=(i,)) for i in range(n)]
    s = time.perf_counter()
    for x in ts: x.start()
    for x in ts: x.join()
    return time.perf_counter() - s
def rate(sec, b=S): return f"{b/sec/1e9:.1f} GB/s ({sec*1e3:.0f} ms)"
# d. fault rate with N threads
for n in (1, 8, 16):
    a = np.empty(S, np.uint8); ch = S // n
    sec = threads(n, lambda i: a[i*ch:(i+1)*ch].fill(1))
    print(f"fault+fill {n} threads: {rate(sec)}")
    sec = threads(n, lambda i: a[i*ch:(i+1)*ch].fill(2))
    print(f"  refill touched {n} threads: {rate(sec)}")
    del a
# a. register fresh whole
for flags in (0,):
    a = np.empty(S, np.uint8); p = a.ctypes.data
    sec = t(lambda: rt.hostRegister(p, S, flags)); print(f"register fresh whole: {rate(sec)}")
    sec = t(lambda: rt.hostUnregister(p)); print(f"unregister: {rate(sec)}")
    sec = t(lambda: rt.hostRegister(p, S, flags)); print(f"register touched whole: {rate(sec)}")
    sec = t(lambda: rt.hostUnregister(p)); print(f"unregister: {rate(sec)}")
    del a
for n in (4, 16):
    a = np.empty(S, np.uint8); p = a.ctypes.data; ch = S // n
    sec = threads(n, lambda i: rt.hostRegister(p + i*ch, ch, 0)); print(f"register fresh {n} chunks on {n} threads: {rate(sec)}")
    sec = threads(n, lambda i: rt.hostUnregister(p + i*ch)); print(f"  unregister {n} threads: {rate(sec)}")
    sec = threads(n, lambda i: rt.hostRegister(p + i*ch, ch, 0)); print(f"register touched {n} chunks on {n} threads: {rate(sec)}")
    sec = threads(n, lambda i: rt.hostUnregister(p + i*ch)); print(f"  unregister {n} threads: {rate(sec)}")
    del a
# e. DMA rates 512 MiB
B = 512 << 20
d = cupy.cuda.alloc(B)
def dma(dst):
    rt.memcpy(dst, d.ptr, B, rt.memcpyDeviceToHost); rt.deviceSynchronize()
a = np.empty(B, np.uint8); a.fill(0); p = a.ctypes.data
print("D2H pageable touched:", rate(min(t(lambda: dma(p)) for _ in range(3)), B))
rt.hostRegister(p, B, 0)
print("D2H registered:", rate(min(t(lambda: dma(p)) for _ in range(3)), B))
rt.hostUnregister(p)
pin = cupy.cuda.alloc_pinned_memory(B)
print("D2H pinned:", rate(min(t(lambda: dma(pin.ptr)) for _ in range(3)), B))
# f. copy pinned -> pageable touched, n threads, 8 GiB worth
src = np.frombuffer(pin, np.uint8, B)
for n in (4, 8, 16):
    dst = np.empty(S, np.uint8); dst.fill(0); ch = B // n
    def job(i):
        for k in range(S // B):
            np.copyto(dst[k*B + i*ch: k*B + (i+1)*ch], src[i*ch:(i+1)*ch])
    print(f"copy pinned->touched {n} threads:", rate(threads(n, job)))
    dst = np.empty(S, np.uint8)
    print(f"copy pinned->fresh {n} threads:", rate(threads(n, job)))
