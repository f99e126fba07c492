//! CUDA variants made by name on a caller's GPU and stream: the registry's
//! constructors use the default GPU and its default stream, while a caller
//! that brings its own device memory (a CuPy array, a PyTorch tensor) needs
//! the variant where that memory lies.

use std::sync::Arc;

use ccl_core::{Backend, Error, Result};
use cudarc::driver::CudaStream;

use super::variant::DynVariant;
use crate::runtime::Gpu;

/// How [`variant_on`] makes a registered CUDA variant; submitted by
/// [`register_variant!`](crate::register_variant) beside the registry entry.
pub struct DeviceRegistration {
    /// The registry name.
    pub name: &'static str,
    /// Makes the variant on `gpu`, all its work queued on `stream`; the
    /// variant's probe runs first.
    pub make: fn(Arc<Gpu>, Arc<CudaStream>) -> Result<Box<dyn DynVariant>>,
}

inventory::collect!(DeviceRegistration);

/// The CUDA variant called `name` (or an alias of it) on `gpu`, with all its
/// work on `stream`. An unknown name, or one of a CPU variant, is an error
/// that says so.
pub fn variant_on(
    name: &str,
    gpu: Arc<Gpu>,
    stream: Arc<CudaStream>,
) -> Result<Box<dyn DynVariant>> {
    let algorithm = ccl_core::find(name)?;
    if algorithm.backend != Backend::Cuda {
        return Err(Error::InvalidArgument(format!(
            "{} runs on the CPU, not on a GPU's memory; name a CUDA variant",
            algorithm.name
        )));
    }
    let registration = inventory::iter::<DeviceRegistration>
        .into_iter()
        .find(|r| r.name == algorithm.name)
        .ok_or_else(|| {
            Error::Unavailable(format!(
                "{} is not registered with register_variant!, so it cannot run on a caller's stream",
                algorithm.name
            ))
        })?;
    (registration.make)(gpu, stream)
}
