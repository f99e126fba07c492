//! The `ke4` and `ke8` variants: their two kernels on the shared
//! label-equivalence pipeline ([`Equivalence`]: init, compression,
//! reduction, compression).

use ccl_core::Connectivity;
use ccl_cuda::runtime::KernelSource;
use ccl_cuda_playne::{Equivalence, EquivalenceKernels};

const KERNELS: KernelSource = KernelSource {
    name: "ke",
    source: include_str!("ke.cu"),
    constants: &[],
};
ccl_cuda::inventory::submit! { KERNELS }

/// Komura's kernels, both connectivities.
pub const KOMURA: EquivalenceKernels = EquivalenceKernels {
    module: &KERNELS,
    link: "ke_init",
    unions: "ke_reduce",
    unions_stage: "reduce",
};

ccl_cuda::register_variant! {
    name: "ke4",
    connectivities: &[Connectivity::Four],
    analyzes: true,
    summary: "Komura equivalence, 4-connectivity (Komura, Comput. Phys. Commun. 2015)",
    priority: 30,
    new: |gpu, _| Equivalence::new(gpu, &KOMURA),
}

ccl_cuda::register_variant! {
    name: "ke8",
    connectivities: &[Connectivity::Eight],
    analyzes: true,
    summary: "Komura equivalence, 8-connectivity (Allegretti, Bolelli, Cancilla & Grana, IPAS 2018)",
    priority: 30,
    new: |gpu, _| Equivalence::new(gpu, &KOMURA),
}
