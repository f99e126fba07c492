//! The paper's Fig. 5: how many atomic feature updates an analysis makes,
//! and how many of them collide on one target.

use std::sync::Arc;

use ccl_core::{Analyzer, BinaryImage, Connectivity, Error, Result};
use ccl_cuda::backend::{CudaVariant, DeviceVariant, VariantInfo};
use ccl_cuda::cudarc::driver::CudaStream;
use ccl_cuda::runtime::{DevPtr, DeviceBuffer, Gpu, cuda_error};

use crate::{Flsl, HaAnalysis, HaVoting, Voting};

/// The atomic feature updates of one analysis, counted by the instrumented
/// build of a variant's kernels (compiled with `CCL_COUNT_UPDATES`; the
/// timed kernels never count).
///
/// An update is one atomic read-modify-write of one target's features (a
/// component's stats entry, or a provisional root's), all of its fields
/// together counting once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UpdateCounts {
    /// Σ_l U_l: all updates, U_l those of target l.
    pub updates: u64,
    /// Σ_l U_l².
    pub sum_of_squares: u64,
}

impl UpdateCounts {
    /// The paper's estimate of conflicts, (Σ_l U_l²) / (Σ_l U_l): the number
    /// of updates an update's target receives, averaged over updates (1
    /// when no two updates share a target; 0 for no updates).
    pub fn conflicts(&self) -> f64 {
        if self.updates == 0 {
            0.0
        } else {
            self.sum_of_squares as f64 / self.updates as f64
        }
    }

    /// The counts of a per-target histogram.
    pub fn of_histogram(counts: &[u32]) -> Self {
        counts.iter().fold(Self::default(), |total, &u| Self {
            updates: total.updates + u as u64,
            sum_of_squares: total.sum_of_squares + (u as u64) * (u as u64),
        })
    }
}

/// The variants whose updates [`count_updates`] counts: every analysis of
/// this crate.
pub const COUNTED_VARIANTS: &[&str] = &[
    "naive-cca",
    "flsl",
    "flsl-otf",
    "flsl-cd",
    "ha-otf",
    "ha-cd",
];

/// Analyzes `image` with the instrumented build of `variant` (one of
/// [`COUNTED_VARIANTS`]) on the default GPU and returns its update counts.
pub fn count_updates(
    variant: &str,
    image: &BinaryImage<'_>,
    connectivity: Connectivity,
) -> Result<UpdateCounts> {
    match variant {
        "flsl" => count(Voting::PerRun.info(), image, connectivity, |gpu| {
            Flsl::counted(gpu, Voting::PerRun)
        }),
        "flsl-otf" => count(Voting::OnTheFly.info(), image, connectivity, |gpu| {
            Flsl::counted(gpu, Voting::OnTheFly)
        }),
        "flsl-cd" => count(
            Voting::ConflictDetection.info(),
            image,
            connectivity,
            |gpu| Flsl::counted(gpu, Voting::ConflictDetection),
        ),
        "naive-cca" => count(HaVoting::Naive.info(), image, connectivity, |gpu| {
            HaAnalysis::counted(gpu, HaVoting::Naive)
        }),
        "ha-otf" => count(HaVoting::OnTheFly.info(), image, connectivity, |gpu| {
            HaAnalysis::counted(gpu, HaVoting::OnTheFly)
        }),
        "ha-cd" => count(
            HaVoting::ConflictDetection.info(),
            image,
            connectivity,
            |gpu| HaAnalysis::counted(gpu, HaVoting::ConflictDetection),
        ),
        _ => Err(Error::UnknownAlgorithm {
            name: variant.to_string(),
            known: COUNTED_VARIANTS.join(", "),
        }),
    }
}

/// A device variant whose instrumented build counted its last analysis.
pub(crate) trait CountsUpdates {
    /// The counts of the last analysis.
    fn update_counts(&self, stream: &Arc<CudaStream>) -> Result<UpdateCounts>;
}

fn count<V: DeviceVariant + CountsUpdates>(
    info: VariantInfo,
    image: &BinaryImage<'_>,
    connectivity: Connectivity,
    make: impl FnOnce(&Arc<Gpu>) -> Result<V>,
) -> Result<UpdateCounts> {
    let mut variant = CudaVariant::new(info, |gpu, _| make(gpu))?;
    variant.analyze(image, connectivity)?;
    variant.variant().update_counts(variant.stream())
}

/// The per-target update histogram of an instrumented build, or nothing
/// (a null pointer for the kernels) in a timed one.
pub(crate) struct UpdateCounter {
    counts: Option<DeviceBuffer<u32>>,
    len: usize,
}

impl UpdateCounter {
    /// No counting: the kernels of the timed build.
    pub(crate) fn off() -> Self {
        Self {
            counts: None,
            len: 0,
        }
    }

    /// Counting, for the kernels of the instrumented build.
    pub(crate) fn on() -> Self {
        Self {
            counts: Some(DeviceBuffer::new()),
            len: 0,
        }
    }

    /// The histogram for an analysis whose targets are below `len`, zeroed;
    /// null when not counting.
    pub(crate) fn begin(&mut self, stream: &Arc<CudaStream>, len: usize) -> Result<DevPtr<u32>> {
        let Some(counts) = self.counts.as_mut() else {
            return Ok(DevPtr::null());
        };
        let buffer = counts.reserve(stream, len)?;
        stream
            .memset_zeros(&mut buffer.slice_mut(..len.max(1)))
            .map_err(cuda_error)?;
        self.len = len;
        Ok(DevPtr::of_mut(buffer, stream))
    }

    /// The counts of the last analysis.
    pub(crate) fn read(&self, stream: &Arc<CudaStream>) -> Result<UpdateCounts> {
        let counts = self
            .counts
            .as_ref()
            .ok_or_else(|| Error::Unavailable("this build does not count updates".into()))?;
        if self.len == 0 {
            return Ok(UpdateCounts::default());
        }
        let histogram = stream
            .clone_dtoh(&counts.get()?.slice(..self.len))
            .map_err(cuda_error)?;
        Ok(UpdateCounts::of_histogram(&histogram))
    }
}
