//! The registry entry of `npp-uf`.

use ccl_core::{Algorithm, Backend, Labeler, Result, TimedRun};
use ccl_cuda::inventory;

use crate::NppUf;
use crate::npp::{CONNECTIVITIES, NAME};

/// `Ok` where NPP's libraries open and a GPU can be used; otherwise the
/// error says which library, driver or device is missing. Cheap after the
/// first call (both outcomes are kept for the process).
fn probe() -> Result<()> {
    crate::library::npp()?;
    ccl_cuda::probe()
}

inventory::submit! {
    Algorithm {
        name: NAME,
        backend: Backend::Cuda,
        connectivities: CONNECTIVITIES,
        summary: "NVIDIA NPP's nppiLabelMarkersUF_8u32u (union-find after Chen et al.), the \
                  library peer, loaded at run time; labels only; its splits repaired",
        // Low: a peer to compare with, never the CLI's default.
        priority: 5,
        probe,
        labeler: Some(|| Ok(Box::new(NppUf::new()?) as Box<dyn Labeler>)),
        analyzer: None,
        timed: || Ok(Box::new(NppUf::new()?) as Box<dyn TimedRun>),
    }
}
