//! NVRTC compilation of kernel modules to CUBIN.
//!
//! Kernel sources are CUDA C files kept beside the Rust that launches them;
//! each crate registers its modules as [`KernelSource`]s so that one test can
//! compile every module for several architectures without a GPU. Constants
//! that Rust and a module share are declared once, in Rust, and reach the
//! module as `#define`s ([`KernelSource::constants`]).

use std::ffi::{CStr, CString};

use ccl_core::{Error, Result};
use cudarc::nvrtc::{result as nvrtc, sys as nvrtc_sys};

/// The device header shared by all kernels, prepended to every module
/// (NVRTC has no standard headers to `#include` it from).
pub const DEVICE_HEADER: &str = include_str!("../ccl_device.cuh");

/// The constants of [`DEVICE_HEADER`], defined before it.
const HEADER_CONSTANTS: &[(&str, u32)] = &[(
    "CCL_ROOT_GROUP_WORDS",
    crate::backend::ROOT_GROUP_WORDS as u32,
)];

/// A kernel module: CUDA C source compiled at run time.
///
/// ```
/// use ccl_cuda::runtime::KernelSource;
/// const COPY: KernelSource = KernelSource {
///     name: "copy",
///     source: r#"extern "C" __global__ void copy(const u32* a, u32* b) { b[0] = a[0] + OFFSET; }"#,
///     constants: &[("OFFSET", 7)],
/// };
/// // Compiling needs NVRTC but no GPU:
/// if ccl_cuda::runtime::nvrtc_available() {
///     let cubin = ccl_cuda::runtime::compile_cubin(&COPY, (9, 0))?;
///     assert!(!cubin.is_empty());
/// }
/// # Ok::<(), ccl_core::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct KernelSource {
    /// Module name, unique in the process (the cache key).
    pub name: &'static str,
    /// CUDA C source, without the shared header.
    pub source: &'static str,
    /// `(NAME, value)` pairs the source sees as `#define NAME value`: the
    /// sizes that its launcher computes grids and buffers with.
    pub constants: &'static [(&'static str, u32)],
}

/// `#define` lines for `constants`.
fn defines(constants: &[(&str, u32)]) -> String {
    constants
        .iter()
        .map(|(name, value)| format!("#define {name} {value}u\n"))
        .collect()
}

inventory::collect!(KernelSource);

/// Every registered kernel module, sorted by name.
pub fn kernel_sources() -> Vec<&'static KernelSource> {
    let mut all: Vec<_> = inventory::iter::<KernelSource>.into_iter().collect();
    all.sort_by_key(|k| k.name);
    all
}

/// Whether the NVRTC library can be loaded.
pub fn nvrtc_available() -> bool {
    // SAFETY: only tries to open the shared library.
    unsafe { nvrtc_sys::is_culib_present() }
}

/// Compiles `module` (with [`DEVICE_HEADER`] before it) to CUBIN for compute
/// capability `arch` (e.g. `(9, 0)` for sm_90). Needs NVRTC, not a GPU.
pub fn compile_cubin(module: &KernelSource, arch: (u32, u32)) -> Result<Vec<u8>> {
    let failure = |message: String| Error::Nvrtc {
        module: module.name.to_string(),
        message,
    };
    if !nvrtc_available() {
        return Err(Error::NoCudaDevice(
            "NVRTC (libnvrtc.so.13) cannot be loaded: install the CUDA toolkit, or \
             `pip install nvidia-cuda-nvrtc` and add its lib folder to LD_LIBRARY_PATH"
                .into(),
        ));
    }
    // The module's constants come before the header too: the header's own
    // switches (CCL_COUNT_UPDATES) are module constants. `#line` keeps
    // NVRTC's messages pointing into the module's own file.
    let text = format!(
        "{header_constants}{constants}{DEVICE_HEADER}\n#line 1 \"{name}.cu\"\n{source}",
        header_constants = defines(HEADER_CONSTANTS),
        constants = defines(module.constants),
        name = module.name,
        source = module.source
    );
    let text = CString::new(text).map_err(|_| failure("source contains a NUL byte".into()))?;
    let file = CString::new(format!("{}.cu", module.name))
        .map_err(|_| failure("name contains a NUL byte".into()))?;
    let program =
        nvrtc::create_program(&text, Some(&file)).map_err(|e| failure(format!("{e:?}")))?;
    let options = [
        format!("--gpu-architecture=sm_{}{}", arch.0, arch.1),
        "--std=c++17".to_string(),
        "-lineinfo".to_string(),
    ];
    // SAFETY: `program` was created above and is destroyed exactly once below.
    let compiled = unsafe { nvrtc::compile_program(program, &options) };
    let result = match compiled {
        Ok(()) => cubin_of(program).map_err(|e| failure(format!("{e:?}"))),
        Err(e) => Err(failure(format!("{e:?}\n{}", log_of(program)))),
    };
    // SAFETY: created by create_program, not destroyed before.
    let _ = unsafe { nvrtc::destroy_program(program) };
    result
}

fn log_of(program: nvrtc_sys::nvrtcProgram) -> String {
    // SAFETY: `program` is a live program that has been compiled.
    match unsafe { nvrtc::get_program_log(program) } {
        Ok(log) => {
            // SAFETY: NVRTC returns a NUL-terminated string.
            let log = unsafe { CStr::from_ptr(log.as_ptr()) };
            log.to_string_lossy().trim().to_string()
        }
        Err(e) => format!("(no log: {e:?})"),
    }
}

fn cubin_of(program: nvrtc_sys::nvrtcProgram) -> std::result::Result<Vec<u8>, nvrtc::NvrtcError> {
    let mut size = 0usize;
    // SAFETY: `program` compiled successfully; the buffer has the size NVRTC reports.
    unsafe {
        nvrtc_sys::nvrtcGetCUBINSize(program, &mut size).result()?;
        let mut cubin = vec![0u8; size];
        nvrtc_sys::nvrtcGetCUBIN(program, cubin.as_mut_ptr().cast()).result()?;
        Ok(cubin)
    }
}
