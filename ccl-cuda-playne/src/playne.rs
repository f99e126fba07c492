//! The `playne` variant: its two kernels on the shared label-equivalence
//! pipeline ([`Equivalence`]: init, compression, merge, compression) for
//! images, and the same method on volumes ([`PlayneVolume`]).

use std::sync::Arc;

use crate::volume::PlayneVolume;
use crate::{Equivalence, EquivalenceKernels};
use ccl_core::{Connectivity, Result};
use ccl_cuda::backend::{DeviceVariant, Run};
use ccl_cuda::cudarc::driver::CudaViewMut;
use ccl_cuda::runtime::{DeviceImage, Gpu, KernelSource};

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

/// Playne & Hawick's direct method on images and on volumes.
pub struct Playne {
    image: Equivalence,
    volume: PlayneVolume,
}

impl Playne {
    /// Compiles (once per process and device) and loads both kernel sets.
    pub fn new(gpu: &Arc<Gpu>) -> Result<Self> {
        Ok(Self {
            image: Equivalence::new(gpu, &PLAYNE)?,
            volume: PlayneVolume::new(gpu)?,
        })
    }
}

impl DeviceVariant for Playne {
    fn forest(
        &mut self,
        run: &mut Run<'_>,
        image: &DeviceImage<'_>,
        forest: &mut CudaViewMut<'_, u32>,
    ) -> Result<()> {
        match run.slices {
            Some(slices) => self.volume.forest(run, image, slices, forest),
            None => self.image.forest(run, image, forest),
        }
    }
}

ccl_cuda::register_variant! {
    name: "playne",
    connectivities: &[
        Connectivity::Four,
        Connectivity::Eight,
        Connectivity::Six,
        Connectivity::Eighteen,
        Connectivity::TwentySix,
    ],
    analyzes: true,
    summary: "direct label equivalence with local configuration tests, images and volumes (Playne & Hawick, IEEE TPDS 2018)",
    priority: 40,
    new: |gpu, _| Playne::new(gpu),
}
