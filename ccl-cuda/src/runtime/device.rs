//! Device discovery that never panics, and one GPU handle per device ordinal.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use ccl_core::{Error, Result};
use cudarc::driver::{CudaContext, CudaModule, CudaStream, DriverError};
use cudarc::nvrtc::Ptx;

use super::compile::{KernelSource, compile_cubin, nvrtc_available};

/// One CUDA device: its context and the kernel modules compiled for it so
/// far (each compiled once per process and device, so timings never include
/// compilation). Work is queued on streams the caller chooses
/// ([`default_stream`](Self::default_stream), [`new_stream`](Self::new_stream)).
///
/// # Streams and ordering
///
/// Kernels receive raw device pointers, so cudarc's per-buffer event
/// tracking is switched off for the context: it would only add events to
/// cudarc's own copies and frees. Ordering follows one rule instead: a
/// pipeline is bound to one stream when it is made, and allocates, uses and
/// frees its buffers on that stream only; device buffers that a caller
/// passes to a device-resident call must be ready in that stream's order
/// (as with any CUDA library that takes a stream).
pub struct Gpu {
    ordinal: usize,
    context: Arc<CudaContext>,
    name: String,
    arch: (u32, u32),
    modules: Mutex<HashMap<&'static str, Arc<CudaModule>>>,
}

/// The handle of device `ordinal`, or [`Error::NoCudaDevice`] saying what is
/// missing: the driver library, NVRTC, or the device.
///
/// The first call for an ordinal opens it; its outcome is kept for the
/// process, so every later call returns the same handle (or the same error).
pub fn gpu(ordinal: usize) -> Result<Arc<Gpu>> {
    type Opened = std::result::Result<Arc<Gpu>, String>;
    static GPUS: OnceLock<Mutex<HashMap<usize, Opened>>> = OnceLock::new();
    let mut gpus = GPUS
        .get_or_init(Default::default)
        .lock()
        .map_err(|_| Error::Cuda("the device table was poisoned by a panic".into()))?;
    gpus.entry(ordinal)
        .or_insert_with(|| Gpu::open(ordinal).map(Arc::new))
        .clone()
        .map_err(Error::NoCudaDevice)
}

/// The device that variants made through the registry use: device 0 (of
/// those `CUDA_VISIBLE_DEVICES` leaves visible).
pub fn default_gpu() -> Result<Arc<Gpu>> {
    gpu(0)
}

/// `Ok` when CUDA variants can run here (on [`default_gpu`]), else why not.
pub fn probe() -> Result<()> {
    default_gpu().map(|_| ())
}

/// Maps a driver error to [`Error::Cuda`], keeping the driver's code.
pub fn cuda_error(error: DriverError) -> Error {
    Error::Cuda(error.to_string())
}

impl Gpu {
    fn open(ordinal: usize) -> std::result::Result<Gpu, String> {
        // SAFETY: only tries to open the shared library.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err("the CUDA driver library (libcuda.so) is not installed".into());
        }
        if !nvrtc_available() {
            return Err(
                "NVRTC (libnvrtc.so.13) cannot be loaded, so kernels cannot be compiled".into(),
            );
        }
        cudarc::driver::result::init().map_err(|e| format!("cuInit failed: {e}"))?;
        let count =
            CudaContext::device_count().map_err(|e| format!("cannot count devices: {e}"))?;
        if count < 1 {
            return Err("the CUDA driver reports no device".into());
        }
        if ordinal >= count as usize {
            return Err(format!(
                "there is no device {ordinal}: the driver reports {count}"
            ));
        }
        let context =
            CudaContext::new(ordinal).map_err(|e| format!("cannot open device {ordinal}: {e}"))?;
        // SAFETY: no buffer of this context exists yet; the ordering rule
        // that replaces tracking is in the type's documentation.
        unsafe { context.disable_event_tracking() };
        let (major, minor) = context
            .compute_capability()
            .map_err(|e| format!("cannot read the compute capability: {e}"))?;
        let name = context.name().unwrap_or_else(|_| "unknown device".into());
        Ok(Gpu {
            ordinal,
            context,
            name,
            arch: (major as u32, minor as u32),
            modules: Mutex::new(HashMap::new()),
        })
    }

    /// The device ordinal.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// The device's default (legacy NULL) stream.
    pub fn default_stream(&self) -> Arc<CudaStream> {
        self.context.default_stream()
    }

    /// A new stream of this device.
    pub fn new_stream(&self) -> Result<Arc<CudaStream>> {
        self.context.new_stream().map_err(cuda_error)
    }

    /// The CUDA context of the device.
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
        let cubin = cubin_for(module, self.arch)?;
        let loaded = self
            .context
            .load_module(Ptx::from_binary(cubin.as_ref().clone()))
            .map_err(cuda_error)?;
        modules.insert(module.name, loaded.clone());
        Ok(loaded)
    }
}

/// `module` compiled for `arch`, once per process: the GPUs of a
/// multi-GPU run share an architecture, and each loads the cubin the first
/// one compiled instead of running NVRTC again. Compiling one module does
/// not hold up another's.
fn cubin_for(module: &KernelSource, arch: (u32, u32)) -> Result<Arc<Vec<u8>>> {
    type Slot = Arc<Mutex<Option<Arc<Vec<u8>>>>>;
    static CUBINS: OnceLock<Mutex<HashMap<(&'static str, (u32, u32)), Slot>>> = OnceLock::new();
    fn poisoned<T>(_: std::sync::PoisonError<T>) -> Error {
        Error::Cuda("the cubin cache was poisoned by a panic".into())
    }
    let slot = CUBINS
        .get_or_init(Default::default)
        .lock()
        .map_err(poisoned)?
        .entry((module.name, arch))
        .or_default()
        .clone();
    let mut slot = slot.lock().map_err(poisoned)?;
    if let Some(cubin) = slot.as_ref() {
        return Ok(cubin.clone());
    }
    let cubin = Arc::new(compile_cubin(module, arch)?);
    *slot = Some(cubin.clone());
    Ok(cubin)
}
