//! Iteration to a fixed point, for the iterative labelers (label
//! equivalence, subregion-graph propagation, distanceless propagation):
//! rounds of kernels repeat until one changes nothing, however many that
//! takes, and the count is reported with the stage's time
//! ([`StageClock::mark_rounds`](crate::runtime::StageClock::mark_rounds)).

use std::sync::Arc;

use ccl_core::Result;
use cudarc::driver::{CudaSlice, CudaStream};

use crate::runtime::{DevPtr, cuda_error};

/// A device word that a round's kernels set (to any nonzero value) when
/// they change a label; the host clears it before each round and reads it
/// after.
pub struct ChangeFlag {
    word: CudaSlice<u32>,
}

impl ChangeFlag {
    /// One word on `stream`'s device.
    pub fn new(stream: &Arc<CudaStream>) -> Result<Self> {
        Ok(Self {
            word: stream.alloc_zeros::<u32>(1).map_err(cuda_error)?,
        })
    }

    /// Runs `round` (which queues one round's kernels on `stream`, handing
    /// them the flag) until a round leaves the flag clear; returns the
    /// number of rounds run, the last (unchanging) one included.
    ///
    /// There is no cap: every round of a labeler that uses it lowers some
    /// label or changes nothing, so the loop ends, and stopping it early
    /// would return a wrong labeling.
    pub fn until_stable(
        &mut self,
        stream: &Arc<CudaStream>,
        mut round: impl FnMut(DevPtr<u32>) -> Result<()>,
    ) -> Result<u32> {
        let mut rounds = 0u32;
        loop {
            stream.memset_zeros(&mut self.word).map_err(cuda_error)?;
            round(DevPtr::of_mut(&mut self.word, stream))?;
            rounds = rounds.saturating_add(1);
            // A 4-byte read-back per round waits for the round: the
            // iterative algorithms' inherent host round trip.
            let changed = stream.clone_dtoh(&self.word).map_err(cuda_error)?;
            if changed[0] == 0 {
                return Ok(rounds);
            }
        }
    }
}
