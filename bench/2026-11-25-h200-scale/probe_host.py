import time, threading, numpy as np, cupy
n = 8 << 30
src = np.ones(n, np.uint8); dst = np.ones(n, np.uint8)
def par_copy(threads):
    chunk = n // threads
    def work(i): np.copyto(dst[i*chunk:(i+1)*chunk], src[i*chunk:(i+1)*chunk])
    ts = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    t = time.perf_counter(); [x.start() for x in ts]; [x.join() for x in ts]
    return n / (time.perf_counter() - t) / 1e9
for th in (1, 4, 8, 16):
    print(f"host copy {th} threads: {par_copy(th):.1f} GB/s", flush=True)
rt = cupy.cuda.runtime
t = time.perf_counter(); rt.hostRegister(dst.ctypes.data, n, 0); reg = time.perf_counter() - t
print(f"hostRegister 8 GiB faulted: {reg*1e3:.0f} ms = {n/reg/1e9:.1f} GB/s", flush=True)
d = cupy.cuda.alloc(n)
for _ in range(2):
    t = time.perf_counter(); rt.memcpy(dst.ctypes.data, d.ptr, n, rt.memcpyDeviceToHost); rt.deviceSynchronize()
    print(f"D2H into registered: {n/(time.perf_counter()-t)/1e9:.1f} GB/s", flush=True)
t = time.perf_counter(); rt.hostUnregister(dst.ctypes.data); print(f"unregister {1e3*(time.perf_counter()-t):.0f} ms")
for _ in range(2):
    t = time.perf_counter(); rt.memcpy(dst.ctypes.data, d.ptr, n, rt.memcpyDeviceToHost); rt.deviceSynchronize()
    print(f"D2H into pageable: {n/(time.perf_counter()-t)/1e9:.1f} GB/s", flush=True)
