//! NPP's C interface, opened at run time: the types of `nppdefs.h` and the
//! two functions of `libnppif` that `npp-uf` calls, as
//! declared by NPP 13.2's headers (`nppcore.h`,
//! `nppi_filtering_functions.h`). NPP 11.1 to 13 share this ABI.
//!
//! Nothing is linked at build time, so the workspace builds and every test
//! runs on machines without CUDA; a missing library is a clear error.

use std::ffi::{c_int, c_uint, c_void};
use std::mem::{offset_of, size_of};
use std::path::PathBuf;
use std::sync::OnceLock;

use ccl_core::{Error, Result};
use libloading::Library;

/// `NppiSize`: `{ int width; int height; }`, passed by value.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NppiSize {
    pub(crate) width: c_int,
    pub(crate) height: c_int,
}

/// `NppiNorm`, a C enum (an `int` in the ABI); LabelMarkersUF reads it as
/// the connectivity.
pub(crate) type NppiNorm = c_int;
/// `nppiNormInf`: 8-connectivity ("maximum" norm: diagonals are at distance 1).
pub(crate) const NPPI_NORM_INF: NppiNorm = 0;
/// `nppiNormL1`: 4-connectivity ("sum" norm: diagonals are at distance 2).
pub(crate) const NPPI_NORM_L1: NppiNorm = 1;

/// `NppStatus`, a C enum (an `int`): negative is an error, 0 success,
/// positive a warning.
pub(crate) type NppStatus = c_int;

/// `NppStreamContext`: the stream and device properties that every `_Ctx`
/// function takes by value. NPP's docs fill it from runtime calls;
/// `pipeline::stream_context` reads the same values as driver attributes.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub(crate) struct NppStreamContext {
    /// `cudaStream_t hStream`: a `CUstream` (the same handle type).
    pub(crate) stream: *mut c_void,
    /// `int nCudaDeviceId`.
    pub(crate) device_id: c_int,
    /// `int nMultiProcessorCount`.
    pub(crate) multiprocessor_count: c_int,
    /// `int nMaxThreadsPerMultiProcessor`.
    pub(crate) max_threads_per_multiprocessor: c_int,
    /// `int nMaxThreadsPerBlock`.
    pub(crate) max_threads_per_block: c_int,
    /// `size_t nSharedMemPerBlock`.
    pub(crate) shared_mem_per_block: usize,
    /// `int nCudaDevAttrComputeCapabilityMajor`.
    pub(crate) compute_capability_major: c_int,
    /// `int nCudaDevAttrComputeCapabilityMinor`.
    pub(crate) compute_capability_minor: c_int,
    /// `unsigned int nStreamFlags` (from `cuStreamGetFlags`).
    pub(crate) stream_flags: c_uint,
    /// `union { NppWorkspace hWorkspace; Npp32u nReserved0; }` (NPP 13.2;
    /// plain `nReserved0` before): 0 = no workspace.
    pub(crate) reserved: u32,
}

// The layout of the C struct on 64-bit targets: a mismatch here would pass
// garbage to NPP, so it fails the build instead.
const _: () = {
    assert!(size_of::<NppStreamContext>() == 48);
    assert!(offset_of!(NppStreamContext, device_id) == 8);
    assert!(offset_of!(NppStreamContext, shared_mem_per_block) == 24);
    assert!(offset_of!(NppStreamContext, compute_capability_major) == 32);
    assert!(offset_of!(NppStreamContext, stream_flags) == 40);
    assert!(offset_of!(NppStreamContext, reserved) == 44);
    assert!(size_of::<NppiSize>() == 8);
};

// SAFETY: `stream` is an opaque CUDA handle, valid on any thread of the
// process; nothing is ever read through it on the host.
unsafe impl Send for NppStreamContext {}

/// `NppStatus nppiLabelMarkersUFGetBufferSize_32u_C1R(NppiSize oSizeROI,
/// int* hpBufferSize)` (libnppif): a host function, no GPU work.
type GetBufferSize = unsafe extern "C" fn(NppiSize, *mut c_int) -> NppStatus;
/// `NppStatus nppiLabelMarkersUF_8u32u_C1R_Ctx(Npp8u* pSrc, int nSrcStep,
/// Npp32u* pDst, int nDstStep, NppiSize oSizeROI, NppiNorm eNorm,
/// Npp8u* pBuffer, NppStreamContext nppStreamCtx)` (libnppif).
type LabelMarkersUf = unsafe extern "C" fn(
    *mut u8,
    c_int,
    *mut u32,
    c_int,
    NppiSize,
    NppiNorm,
    *mut u8,
    NppStreamContext,
) -> NppStatus;

/// The opened NPP libraries and the functions `npp-uf` calls.
pub(crate) struct Npp {
    get_buffer_size: GetBufferSize,
    label_markers_uf: LabelMarkersUf,
    // The function pointers above point into these: kept open for the
    // life of the process (the handle is a static).
    _nppc: Library,
    _nppif: Library,
}

/// The process-wide NPP handle, or [`Error::Unavailable`] naming the library
/// or function that is missing and where it was looked for. The first call
/// opens the libraries; its outcome is kept for the process.
pub(crate) fn npp() -> Result<&'static Npp> {
    static NPP: OnceLock<std::result::Result<Npp, String>> = OnceLock::new();
    NPP.get_or_init(Npp::open)
        .as_ref()
        .map_err(|reason| Error::Unavailable(reason.clone()))
}

impl Npp {
    fn open() -> std::result::Result<Npp, String> {
        // libnppif needs libnppc (its DT_NEEDED): opening libnppc first by
        // the same search lets libnppif's dependency resolve to it even
        // where the folder is not on the loader path.
        let nppc = open_library(&["libnppc.so.13", "libnppc.so"])?;
        let nppif = open_library(&["libnppif.so.13", "libnppif.so"])?;
        // SAFETY: the types are those of NPP's headers (module docs); the
        // pointers are copied out while the libraries stay open for good.
        unsafe {
            let get_buffer_size: GetBufferSize = *nppif
                .get(c"nppiLabelMarkersUFGetBufferSize_32u_C1R")
                .map_err(|e| {
                    missing_symbol("libnppif", "nppiLabelMarkersUFGetBufferSize_32u_C1R", e)
                })?;
            let label_markers_uf: LabelMarkersUf = *nppif
                .get(c"nppiLabelMarkersUF_8u32u_C1R_Ctx")
                .map_err(|e| missing_symbol("libnppif", "nppiLabelMarkersUF_8u32u_C1R_Ctx", e))?;
            Ok(Npp {
                get_buffer_size,
                label_markers_uf,
                _nppc: nppc,
                _nppif: nppif,
            })
        }
    }

    /// The scratch bytes LabelMarkersUF needs for a `size` ROI.
    pub(crate) fn buffer_size(&self, size: NppiSize) -> Result<usize> {
        let mut bytes: c_int = -1;
        // SAFETY: a host function writing one int.
        let status = unsafe { (self.get_buffer_size)(size, &mut bytes) };
        check("nppiLabelMarkersUFGetBufferSize_32u_C1R", status)?;
        // NPP builds the labels in this buffer before copying them out (its
        // docs), so it holds at least 4 bytes per pixel. NPP computes the
        // size in `int` and, in 13.2, returns a wrapped value without an
        // error when that overflows: callers keep images small enough
        // (pipeline::MAX_PIXELS); this catches any other formula's wrap.
        let pixels = size.width.max(0) as usize * size.height.max(0) as usize;
        usize::try_from(bytes)
            .ok()
            .filter(|&b| b > 0 && b / 4 >= pixels)
            .ok_or_else(|| {
                Error::Cuda(format!(
                    "nppiLabelMarkersUFGetBufferSize_32u_C1R returned {bytes} bytes for a {}x{} image",
                    size.width, size.height
                ))
            })
    }

    /// Queues `nppiLabelMarkersUF_8u32u_C1R_Ctx` on `context.stream`.
    ///
    /// # Safety
    /// `src` holds `size.height` rows of `src_step` bytes, `dst` is a
    /// `cudaMalloc`-style allocation of `size.width * size.height` labels
    /// with `dst_step == 4 * size.width` (NPP requires exactly that pitch),
    /// `buffer` holds [`buffer_size`](Self::buffer_size) bytes, and all
    /// three stay allocated until the stream has run the call.
    #[allow(clippy::too_many_arguments)] // mirrors the C signature
    pub(crate) unsafe fn label_markers_uf(
        &self,
        src: *mut u8,
        src_step: c_int,
        dst: *mut u32,
        dst_step: c_int,
        size: NppiSize,
        norm: NppiNorm,
        buffer: *mut u8,
        context: NppStreamContext,
    ) -> Result<()> {
        // SAFETY: the caller's contract above.
        let status = unsafe {
            (self.label_markers_uf)(src, src_step, dst, dst_step, size, norm, buffer, context)
        };
        check("nppiLabelMarkersUF_8u32u_C1R_Ctx", status)
    }
}

/// The first of `names` that opens, tried as plain names (the loader path),
/// then in `/usr/local/cuda/lib64` and `$CUDA_HOME/lib64`.
fn open_library(names: &[&str]) -> std::result::Result<Library, String> {
    let mut folders = vec![PathBuf::from("/usr/local/cuda/lib64")];
    if let Some(home) = std::env::var_os("CUDA_HOME").filter(|h| !h.is_empty()) {
        folders.push(PathBuf::from(home).join("lib64"));
    }
    let candidates = names
        .iter()
        .map(PathBuf::from)
        .chain(folders.iter().flat_map(|f| names.iter().map(|n| f.join(n))));
    for candidate in candidates {
        // SAFETY: opening NPP runs its initialisers, which only set up the
        // library; a file of that name that is not NPP is the user's setup.
        if let Ok(library) = unsafe { Library::new(&candidate) } {
            return Ok(library);
        }
    }
    Err(format!(
        "NVIDIA NPP ({}) is not installed here or not on LD_LIBRARY_PATH",
        names[0]
    ))
}

fn missing_symbol(library: &str, symbol: &str, error: libloading::Error) -> String {
    format!(
        "{library} has no {symbol} (NPP 11.1 or later is needed): {}",
        describe(&error)
    )
}

/// The loader's own message (`dlerror`), which libloading keeps as the
/// error's source behind a generic "dlopen failed".
fn describe(error: &libloading::Error) -> String {
    std::error::Error::source(error).map_or_else(|| error.to_string(), |s| s.to_string())
}

/// `Ok` for success and for warnings that leave a complete result, else
/// [`Error::Cuda`] naming `function` and the status.
///
/// Warnings are ignored except those that say nothing was computed (no
/// operation, ROI or quadrangle outside the image): for LabelMarkersUF they
/// would leave the labels unwritten, so they are errors here. The others
/// report a slower path (`NPP_MISALIGNED_DST_ROI_WARNING`) or concern other
/// functions.
pub(crate) fn check(function: &str, status: NppStatus) -> Result<()> {
    let nothing_done = matches!(status, 1 | 29 | 30);
    if status < 0 || nothing_done {
        return Err(Error::Cuda(format!(
            "{function} returned {} ({status})",
            status_name(status)
        )));
    }
    Ok(())
}

/// The name of an `NppStatus` code, as in `nppdefs.h` (NPP 13.2).
pub(crate) fn status_name(status: NppStatus) -> &'static str {
    match status {
        -9998 => "NPP_LIBRARY_VERSION_MISMATCH_ERROR",
        -1032 => "NPP_INVALID_HOST_POINTER_ERROR",
        -1031 => "NPP_INVALID_DEVICE_POINTER_ERROR",
        -1030 => "NPP_LUT_PALETTE_BITSIZE_ERROR",
        -1028 => "NPP_ZC_MODE_NOT_SUPPORTED_ERROR",
        -1027 => "NPP_NOT_SUFFICIENT_COMPUTE_CAPABILITY",
        -1024 => "NPP_TEXTURE_BIND_ERROR",
        -1020 => "NPP_WRONG_INTERSECTION_ROI_ERROR",
        -1006 => "NPP_HAAR_CLASSIFIER_PIXEL_MATCH_ERROR",
        -1005 => "NPP_MEMFREE_ERROR",
        -1004 => "NPP_MEMSET_ERROR",
        -1003 => "NPP_MEMCPY_ERROR",
        -1002 => "NPP_ALIGNMENT_ERROR",
        -1000 => "NPP_CUDA_KERNEL_EXECUTION_ERROR",
        -215 => "NPP_STREAM_CTX_ERROR",
        -213 => "NPP_ROUND_MODE_NOT_SUPPORTED_ERROR",
        -210 => "NPP_QUALITY_INDEX_ERROR",
        -201 => "NPP_RESIZE_NO_OPERATION_ERROR",
        -109 => "NPP_OVERFLOW_ERROR",
        -108 => "NPP_NOT_EVEN_STEP_ERROR",
        -107 => "NPP_HISTOGRAM_NUMBER_OF_LEVELS_ERROR",
        -106 => "NPP_LUT_NUMBER_OF_LEVELS_ERROR",
        -62 => "NPP_ZERO_MASK_VALUE_ERROR",
        -61 => "NPP_CORRUPTED_DATA_ERROR",
        -60 => "NPP_CHANNEL_ORDER_ERROR",
        -59 => "NPP_DATA_TYPE_ERROR",
        -58 => "NPP_QUADRANGLE_ERROR",
        -57 => "NPP_RECTANGLE_ERROR",
        -56 => "NPP_COEFFICIENT_ERROR",
        -53 => "NPP_NUMBER_OF_CHANNELS_ERROR",
        -52 => "NPP_COI_ERROR",
        -51 => "NPP_DIVISOR_ERROR",
        -47 => "NPP_CHANNEL_ERROR",
        -37 => "NPP_STRIDE_ERROR",
        -34 => "NPP_ANCHOR_ERROR",
        -33 => "NPP_MASK_SIZE_ERROR",
        -24 => "NPP_RESIZE_FACTOR_ERROR",
        -23 => "NPP_INTERPOLATION_ERROR",
        -22 => "NPP_MIRROR_FLIP_ERROR",
        -21 => "NPP_MOMENT_00_ZERO_ERROR",
        -20 => "NPP_THRESHOLD_NEGATIVE_LEVEL_ERROR",
        -19 => "NPP_THRESHOLD_ERROR",
        -18 => "NPP_FFT_FLAG_ERROR",
        -17 => "NPP_FFT_ORDER_ERROR",
        -16 => "NPP_STEP_ERROR",
        -14 => "NPP_NOT_SUPPORTED_MODE_ERROR",
        -13 => "NPP_CONTEXT_MATCH_ERROR",
        -12 => "NPP_SCALE_RANGE_ERROR",
        -11 => "NPP_OUT_OFF_RANGE_ERROR",
        -10 => "NPP_DIVIDE_BY_ZERO_ERROR",
        -9 => "NPP_MEMORY_ALLOCATION_ERR",
        -8 => "NPP_NULL_POINTER_ERROR",
        -7 => "NPP_RANGE_ERROR",
        -6 => "NPP_SIZE_ERROR",
        -5 => "NPP_BAD_ARGUMENT_ERROR",
        -4 => "NPP_NO_MEMORY_ERROR",
        -3 => "NPP_NOT_IMPLEMENTED_ERROR",
        -2 => "NPP_ERROR",
        -1 => "NPP_ERROR_RESERVED",
        0 => "NPP_NO_ERROR",
        1 => "NPP_NO_OPERATION_WARNING",
        6 => "NPP_DIVIDE_BY_ZERO_WARNING",
        28 => "NPP_AFFINE_QUAD_INCORRECT_WARNING",
        29 => "NPP_WRONG_INTERSECTION_ROI_WARNING",
        30 => "NPP_WRONG_INTERSECTION_QUAD_WARNING",
        35 => "NPP_DOUBLE_SIZE_WARNING",
        10000 => "NPP_MISALIGNED_DST_ROI_WARNING",
        s if s < 0 => "an unknown NPP error",
        _ => "an unknown NPP warning",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_and_no_op_warnings_fail_other_warnings_pass() {
        assert!(check("f", 0).is_ok());
        assert!(check("f", 10000).is_ok(), "misaligned ROI only costs speed");
        let error = check("nppiX", -6).unwrap_err().to_string();
        assert!(
            error.contains("nppiX") && error.contains("NPP_SIZE_ERROR (-6)"),
            "{error}"
        );
        assert!(check("f", 1).is_err(), "no operation: nothing was labeled");
        assert!(
            check("f", -12345)
                .unwrap_err()
                .to_string()
                .contains("unknown NPP error")
        );
    }

    #[test]
    fn missing_libraries_are_a_clear_error_and_present_ones_answer() {
        match npp() {
            Err(e) => {
                let message = e.to_string();
                assert!(message.contains("libnpp"), "{message}");
            }
            // Where NPP is installed (no GPU needed): the host-side size
            // query goes through the declared ABI.
            Ok(npp) => {
                let size = NppiSize {
                    width: 8,
                    height: 8,
                };
                assert!(npp.buffer_size(size).is_ok());
                let empty = npp.buffer_size(NppiSize {
                    width: 0,
                    height: 3,
                });
                assert!(
                    empty.unwrap_err().to_string().contains("NPP_SIZE_ERROR"),
                    "NPP refuses empty ROIs, which ccl never passes it"
                );
            }
        }
    }
}
