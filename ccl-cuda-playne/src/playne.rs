//! The `playne` variant: its two kernels on the shared label-equivalence
//! pipeline ([`Equivalence`]: init, compression, merge, compression).

use crate::{Equivalence, EquivalenceKernels};
use ccl_core::Connectivity;
use ccl_cuda::runtime::KernelSource;

const KERNELS: KernelSource = KernelSource {
    name: "playne",
    source: include_str!("playne.cu"),
    constants: &[],
};
ccl_cuda::inventory::submit! { KERNELS }

/// Playne & Hawick's kernels.
pub const PLAYNE: EquivalenceKernels = EquivalenceKernels {
    module: &KERNELS,
    link: "playne_init",
    unions: "playne_merge",
    unions_stage: "merge",
};

ccl_cuda::register_variant! {
    name: "playne",
    connectivities: &[Connectivity::Four, Connectivity::Eight],
    analyzes: true,
    summary: "direct label equivalence with local configuration tests (Playne & Hawick, IEEE TPDS 2018)",
    priority: 40,
    new: |gpu, _| Equivalence::new(gpu, &PLAYNE),
}
