//! The one error type of the workspace.

use std::path::PathBuf;

use crate::{Connectivity, MAX_PIXELS, Task};

/// Everything that can go wrong in `ccl`, from bad input to a CUDA failure.
///
/// Every message is meant to be printed to a user as is: it says what was
/// wrong and, where there is a choice, which values would have been accepted.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Width, height, stride or buffer length do not describe a valid image.
    #[error("invalid image dimensions: {0}")]
    InvalidDimensions(String),

    /// An argument is out of its range (a density over 100, a zero
    /// granularity, an unknown pattern name).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),

    /// The image has too many pixels for 32-bit labels.
    #[error(
        "image too large: {width}x{height} has {pixels} pixels; labels are 32-bit, so at most {max} pixels are supported",
        max = MAX_PIXELS
    )]
    ImageTooLarge {
        /// Requested width.
        width: usize,
        /// Requested height.
        height: usize,
        /// `width * height`, saturated at `u128::MAX`.
        pixels: u128,
    },

    /// The volume has too many voxels for 32-bit labels.
    #[error(
        "volume too large: {width}x{height}x{depth} has {voxels} voxels; labels are 32-bit, so at most {max} voxels are supported",
        max = MAX_PIXELS
    )]
    VolumeTooLarge {
        /// Requested width.
        width: usize,
        /// Requested height.
        height: usize,
        /// Requested depth.
        depth: usize,
        /// `width * height * depth`, saturated at `u128::MAX`.
        voxels: u128,
    },

    /// The algorithm does not implement the requested connectivity.
    #[error("{algorithm} does not support {requested}-connectivity; it supports: {supported}")]
    UnsupportedConnectivity {
        /// Name of the algorithm.
        algorithm: String,
        /// Connectivity that was asked for.
        requested: Connectivity,
        /// The connectivities it does support, comma separated.
        supported: String,
    },

    /// The algorithm does not perform the requested task (labeling or analysis).
    #[error("{algorithm} cannot {task}; use an algorithm that does (`ccl list` shows them)")]
    UnsupportedTask {
        /// Name of the algorithm.
        algorithm: String,
        /// What was asked.
        task: Task,
    },

    /// No registered algorithm has this name.
    #[error("unknown algorithm `{name}`; known algorithms: {known}")]
    UnknownAlgorithm {
        /// The name that was asked for.
        name: String,
        /// Every registered name, comma separated.
        known: String,
    },

    /// The CUDA driver, NVRTC or a device is missing.
    #[error("no usable CUDA device: {0}")]
    NoCudaDevice(String),

    /// A CUDA driver call failed.
    #[error("CUDA error: {0}")]
    Cuda(String),

    /// NVRTC could not compile a kernel module.
    #[error("NVRTC failed to compile {module}: {message}")]
    Nvrtc {
        /// Name of the kernel module.
        module: String,
        /// NVRTC's error and compilation log.
        message: String,
    },

    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file involved.
        path: PathBuf,
        /// The underlying I/O error.
        source: std::io::Error,
    },

    /// A file could not be decoded or encoded as an image.
    #[error("{}: {message}", path.display())]
    Decode {
        /// The file involved.
        path: PathBuf,
        /// What the decoder said.
        message: String,
    },

    /// A requested feature or library is not available on this machine.
    #[error("{0}")]
    Unavailable(String),
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
