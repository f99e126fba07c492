//! The registry entry of `npp-uf`.

use ccl_core::{Connectivity, Result};
use ccl_cuda::backend::{CudaVariant, VariantInfo};

use crate::NppUf;

/// What the registry declares: both connectivities (`nppiNormL1` is 4,
/// `nppiNormInf` 8), labels only.
const NPP_UF: VariantInfo = VariantInfo {
    name: "npp-uf",
    connectivities: &[Connectivity::Four, Connectivity::Eight],
    analyzes: false,
};

/// `Ok` where NPP's libraries open and a GPU can be used; otherwise the
/// error says which library, driver or device is missing. Cheap after the
/// first call (both outcomes are kept for the process).
fn probe() -> Result<()> {
    crate::library::npp()?;
    ccl_cuda::runtime::probe()
}

/// `npp-uf` on the default GPU, as the registry makes it.
pub fn npp_uf() -> Result<CudaVariant<NppUf>> {
    probe()?;
    CudaVariant::new(NPP_UF, NppUf::new)
}

ccl_cuda::register_variant! {
    name: NPP_UF.name,
    connectivities: NPP_UF.connectivities,
    analyzes: NPP_UF.analyzes,
    summary: "NVIDIA NPP's nppiLabelMarkersUF_8u32u (union-find after Chen et al.), the \
              library peer, loaded at run time; labels only; its splits repaired",
    // Low: a peer to compare with, never the default.
    priority: 5,
    probe: probe,
    new: NppUf::new,
}
