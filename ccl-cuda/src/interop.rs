//! Arrays that callers already hold on the device — CuPy arrays, PyTorch
//! tensors, any element type and strides — labeled canonically by a
//! [`backend`](crate::backend) variant, with OpenCV's statistics layout and
//! the feature columns written on the device ([`ArrayLabeler`]); and the
//! [`pool`] of such labelers, through which callers' device arrays and host
//! images are labeled on a GPU.

mod arrays;
pub mod pool;

pub use arrays::{ArrayLabeler, Counts, DeviceArray, Element};
