//! Device discovery that never panics, and the process-wide GPU handle.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use ccl_core::{Error, Result};
use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaStream, DriverError};
use cudarc::nvrtc::Ptx;

use crate::{KernelSource, compile_cubin, nvrtc_available};

/// The GPU every CUDA variant of the process shares: device 0, one stream,
/// and the kernel modules compiled so far (each compiled once per process,
/// so timings never include compilation).
pub struct Gpu {
    context: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    name: String,
    arch: (u32, u32),
    modules: Mutex<HashMap<&'static str, Arc<CudaModule>>>,
}

/// The shared GPU, or [`Error::NoCudaDevice`] saying what is missing: the
/// driver library, NVRTC, or a device.
///
/// The first call opens device 0; its outcome is kept for the process.
pub fn gpu() -> Result<Arc<Gpu>> {
    static GPU: OnceLock<std::result::Result<Arc<Gpu>, String>> = OnceLock::new();
    GPU.get_or_init(|| Gpu::open().map(Arc::new))
        .clone()
        .map_err(Error::NoCudaDevice)
}

/// `Ok` when CUDA variants can run here, else why not.
pub fn probe() -> Result<()> {
    gpu().map(|_| ())
}

/// Maps a driver error to [`Error::Cuda`], keeping the driver's code.
pub fn cuda_error(error: DriverError) -> Error {
    Error::Cuda(error.to_string())
}

impl Gpu {
    fn open() -> std::result::Result<Gpu, String> {
        // SAFETY: only tries to open the shared library.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err("the CUDA driver library (libcuda.so) is not installed".into());
        }
        if !nvrtc_available() {
            return Err(
                "the NVRTC library (libnvrtc.so.13) cannot be loaded, so kernels cannot \
                        be compiled; install the CUDA toolkit or `pip install nvidia-cuda-nvrtc` \
                        and add its lib folder to LD_LIBRARY_PATH"
                    .into(),
            );
        }
        cudarc::driver::result::init().map_err(|e| format!("cuInit failed: {e}"))?;
        let count =
            CudaContext::device_count().map_err(|e| format!("cannot count devices: {e}"))?;
        if count < 1 {
            return Err("the CUDA driver reports no device".into());
        }
        let context = CudaContext::new(0).map_err(|e| format!("cannot open device 0: {e}"))?;
        // One stream orders all work, so cudarc's per-buffer event tracking
        // would only add events (and time) to every launch.
        // SAFETY: no buffer of this context exists yet, and ccl uses one stream.
        unsafe { context.disable_event_tracking() };
        let (major, minor) = context
            .compute_capability()
            .map_err(|e| format!("cannot read the compute capability: {e}"))?;
        let name = context.name().unwrap_or_else(|_| "unknown device".into());
        let stream = context.default_stream();
        Ok(Gpu {
            context,
            stream,
            name,
            arch: (major as u32, minor as u32),
            modules: Mutex::new(HashMap::new()),
        })
    }

    /// The stream all ccl work is queued on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The CUDA context of device 0.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.context
    }

    /// The device's name, e.g. "NVIDIA H100 80GB HBM3".
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Compute capability, e.g. `(9, 0)`.
    pub fn arch(&self) -> (u32, u32) {
        self.arch
    }

    /// `module` compiled for this device, from the process cache.
    pub fn module(&self, module: &KernelSource) -> Result<Arc<CudaModule>> {
        let mut modules = self
            .modules
            .lock()
            .map_err(|_| Error::Cuda("the module cache was poisoned by a panic".into()))?;
        if let Some(loaded) = modules.get(module.name) {
            return Ok(loaded.clone());
        }
        let cubin = compile_cubin(module, self.arch)?;
        let loaded = self
            .context
            .load_module(Ptx::from_binary(cubin))
            .map_err(cuda_error)?;
        modules.insert(module.name, loaded.clone());
        Ok(loaded)
    }

    /// The kernel `function` of `module`.
    pub fn function(&self, module: &KernelSource, function: &str) -> Result<CudaFunction> {
        self.module(module)?
            .load_function(function)
            .map_err(|e| Error::Cuda(format!("{}::{function}: {e}", module.name)))
    }

    /// Waits for all queued work, reporting any asynchronous kernel error.
    pub fn synchronize(&self) -> Result<()> {
        self.stream.synchronize().map_err(cuda_error)
    }
}
