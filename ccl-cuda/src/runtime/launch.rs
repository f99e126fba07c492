//! Typed kernel handles: a kernel's name and argument types are declared
//! once, as a [`Kernel`] field of its crate's kernel table, and every launch
//! passes one tuple of that type.

use std::marker::PhantomData;

use ccl_core::{Error, Result};
use cudarc::driver::{
    CudaFunction, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr, LaunchArgs, LaunchConfig,
    PushKernelArg,
};

use super::compile::KernelSource;
use super::device::Gpu;

/// A device pointer to `T` as a kernel argument (`const T*` or `T*` in C).
///
/// Made from a buffer with [`DevPtr::of`] / [`DevPtr::of_mut`]; it does not
/// borrow the buffer, so the launch's `unsafe` contract covers its validity
/// (see [`Kernel::launch`]).
#[repr(transparent)]
pub struct DevPtr<T> {
    address: u64,
    _points_to: PhantomData<*const T>,
}

impl<T> Clone for DevPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for DevPtr<T> {}

// SAFETY: a device address, passed by value as a C pointer is.
unsafe impl<T> DeviceRepr for DevPtr<T> {}

impl<T> DevPtr<T> {
    /// The address of `buffer`, for a kernel that reads it.
    pub fn of(buffer: &impl DevicePtr<T>, stream: &CudaStream) -> Self {
        // The guard records nothing: event tracking is off (see `Gpu`).
        let (address, _guard) = buffer.device_ptr(stream);
        Self {
            address,
            _points_to: PhantomData,
        }
    }

    /// The address of `buffer`, for a kernel that writes it.
    pub fn of_mut(buffer: &mut impl DevicePtrMut<T>, stream: &CudaStream) -> Self {
        let (address, _guard) = buffer.device_ptr_mut(stream);
        Self {
            address,
            _points_to: PhantomData,
        }
    }

    /// A raw device address, such as one of memory a caller owns (a CuPy
    /// array's); the launch's contract covers what it points to.
    pub fn from_address(address: u64) -> Self {
        Self {
            address,
            _points_to: PhantomData,
        }
    }

    /// The null pointer, for a kernel's optional argument.
    pub fn null() -> Self {
        Self::from_address(0)
    }

    /// The raw device address.
    pub fn address(self) -> u64 {
        self.address
    }
}

/// The image argument most kernels take, `CclImage` in `ccl_device.cuh`:
/// `height` rows of `width` bytes, `pitch` bytes apart, nonzero =
/// foreground. Made by [`DeviceImage::args`](crate::runtime::DeviceImage::args).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ImageArgs {
    /// The first pixel.
    pub pixels: DevPtr<u8>,
    /// Bytes between row starts.
    pub pitch: i32,
    /// Columns.
    pub width: i32,
    /// Rows.
    pub height: i32,
}

// SAFETY: plain old data with C layout, matching CclImage.
unsafe impl DeviceRepr for ImageArgs {}

/// A tuple of kernel arguments, each passed by value.
pub trait KernelArgs {
    /// The size in bytes of each element, in order.
    fn sizes() -> Vec<usize>;

    /// Pushes every element onto `launch`, in order.
    fn push<'a>(&'a self, launch: &mut LaunchArgs<'a>);
}

macro_rules! kernel_args {
    ($($name:ident),+) => {
        impl<$($name: DeviceRepr),+> KernelArgs for ($($name,)+) {
            fn sizes() -> Vec<usize> {
                vec![$(std::mem::size_of::<$name>()),+]
            }

            fn push<'a>(&'a self, launch: &mut LaunchArgs<'a>) {
                #[allow(non_snake_case)]
                let ($($name,)+) = self;
                $(launch.arg($name);)+
            }
        }
    };
}

kernel_args!(A);
kernel_args!(A, B);
kernel_args!(A, B, C);
kernel_args!(A, B, C, D);
kernel_args!(A, B, C, D, E);
kernel_args!(A, B, C, D, E, F);
kernel_args!(A, B, C, D, E, F, G);
kernel_args!(A, B, C, D, E, F, G, H);

/// A loaded kernel whose C signature is the tuple `Args`.
pub struct Kernel<Args> {
    function: CudaFunction,
    name: String,
    _args: PhantomData<fn(Args)>,
}

impl<Args: KernelArgs> Kernel<Args> {
    /// The kernel `name` of `module`, compiled for `gpu` (once per process).
    ///
    /// The kernel's first parameters, as the compiled code declares them,
    /// must have the sizes of the elements of `Args`, in order: a launch
    /// with another argument list would hand the kernel (or the driver)
    /// memory that is not its arguments, so a mismatch is an error here.
    pub fn load(gpu: &Gpu, module: &KernelSource, name: &str) -> Result<Self> {
        let function = gpu
            .module(module)?
            .load_function(name)
            .map_err(|e| Error::Cuda(format!("{}::{name}: {e}", module.name)))?;
        let declared = Args::sizes();
        let compiled = parameter_sizes(&function, declared.len()).map_err(|e| {
            Error::Cuda(format!(
                "{}::{name}: its Rust declaration passes {declared:?} bytes, but {e}",
                module.name
            ))
        })?;
        if compiled != declared {
            return Err(Error::Cuda(format!(
                "{}::{name} takes parameters of {compiled:?} bytes; its Rust declaration \
                 passes {declared:?}",
                module.name
            )));
        }
        Ok(Self {
            function,
            name: name.to_string(),
            _args: PhantomData,
        })
    }

    /// Queues the kernel on `stream`.
    ///
    /// # Safety
    /// Every pointer in `args` must address device memory of the stream's
    /// device that stays allocated until the kernel ends, as large as the
    /// kernel indexes for `config` and the other arguments, and ready in
    /// `stream`'s order.
    pub unsafe fn launch(
        &self,
        stream: &CudaStream,
        config: LaunchConfig,
        args: Args,
    ) -> Result<()> {
        let mut launch = stream.launch_builder(&self.function);
        args.push(&mut launch);
        // SAFETY: the caller's contract above.
        unsafe { launch.launch(config) }
            .map(|_| ())
            .map_err(|e| Error::Cuda(format!("launching {}: {e}", self.name)))
    }
}

/// The sizes of `function`'s first `count` parameters, as its compiled
/// code declares them; an error where it has fewer. (The driver of CUDA
/// 13.0 has no call for the parameter count, and asking past the last
/// parameter is an API error that compute-sanitizer reports, so a kernel
/// with more parameters than `count` goes unnoticed.)
fn parameter_sizes(function: &CudaFunction, count: usize) -> Result<Vec<usize>> {
    use cudarc::driver::sys;
    (0..count)
        .map(|index| {
            let (mut offset, mut size) = (0usize, 0usize);
            // SAFETY: a live function handle; the driver writes two
            // integers, or answers CUDA_ERROR_INVALID_VALUE past the last
            // parameter.
            let status = unsafe {
                sys::cuFuncGetParamInfo(function.cu_function(), index, &mut offset, &mut size)
            };
            if status != sys::CUresult::CUDA_SUCCESS {
                return Err(Error::Cuda(format!(
                    "the kernel has no parameter {index} ({status:?})"
                )));
            }
            Ok(size)
        })
        .collect()
}

/// `ceil(n / per_block)` as a grid dimension, or an error if the grid would
/// exceed CUDA's limit of 2^31 - 1 blocks.
pub fn blocks(n: usize, per_block: usize) -> Result<u32> {
    let count = n.div_ceil(per_block.max(1));
    u32::try_from(count)
        .ok()
        .filter(|&c| c <= i32::MAX as u32)
        .ok_or_else(|| Error::Unavailable(format!("{count} blocks exceed CUDA's grid limit")))
}

/// A one-dimensional grid of `threads` threads in blocks of `per_block`.
pub fn linear_grid(threads: usize, per_block: u32) -> Result<LaunchConfig> {
    Ok(LaunchConfig {
        grid_dim: (blocks(threads, per_block as usize)?, 1, 1),
        block_dim: (per_block, 1, 1),
        shared_mem_bytes: 0,
    })
}

/// The most blocks a grid may have along y (and z).
const MAX_GRID_ROWS: usize = 65_535;

/// A two-dimensional grid over `columns` × `rows` items (pixels, 2×2
/// blocks), `block` = (x, y) threads per block, one item per thread. Grid
/// rows stop at CUDA's limit of 65535, so a kernel walks its rows with
/// `CCL_FOR_EACH_ROW` (`ccl_device.cuh`), whatever the image's height.
pub fn tile_grid(columns: usize, rows: usize, block: (u32, u32)) -> Result<LaunchConfig> {
    let grid_rows = rows
        .div_ceil(block.1.max(1) as usize)
        .clamp(1, MAX_GRID_ROWS);
    Ok(LaunchConfig {
        grid_dim: (blocks(columns, block.0 as usize)?, grid_rows as u32, 1),
        block_dim: (block.0, block.1, 1),
        shared_mem_bytes: 0,
    })
}

/// Blocks of 32 x `warps` threads, `items` warps in all: the grid of the
/// kernels that give each warp one item (a word, a span of a row).
pub fn warp_grid(items: usize, warps: u32) -> Result<LaunchConfig> {
    Ok(LaunchConfig {
        grid_dim: (blocks(items, warps as usize)?, 1, 1),
        block_dim: (32, warps, 1),
        shared_mem_bytes: 0,
    })
}
