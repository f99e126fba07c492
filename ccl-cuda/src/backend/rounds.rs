//! Iteration to a fixed point, for the iterative labelers (label
//! equivalence, subregion-graph propagation, distanceless propagation):
//! rounds of kernels repeat until one changes nothing, however many that
//! takes, and the count is reported in the stage name of timed runs.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

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

/// The stage name `"{stage} ({count} rounds)"` as a `&'static str`, for the
/// stage clock: each distinct name is made once per process and kept
/// (there are as many as distinct round counts seen, a few hundred at most
/// in a sweep).
pub fn counted_stage(stage: &str, count: u32) -> &'static str {
    static NAMES: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let name = format!("{stage} ({count} rounds)");
    let mut names = NAMES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let names = names.get_or_insert_with(HashSet::new);
    match names.get(name.as_str()) {
        Some(&known) => known,
        None => {
            let leaked: &'static str = Box::leak(name.into_boxed_str());
            names.insert(leaked);
            leaked
        }
    }
}

/// The round count in a stage name made by [`counted_stage`], if any.
pub fn rounds_of_stage(stage: &str) -> Option<u32> {
    let (_, count) = stage.strip_suffix(" rounds)")?.rsplit_once(" (")?;
    count.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counted_stage_names_are_made_once_and_read_back() {
        let first = counted_stage("propagate", 37);
        let again = counted_stage("propagate", 37);
        assert_eq!(first, "propagate (37 rounds)");
        assert!(std::ptr::eq(first, again));
        assert_eq!(rounds_of_stage(first), Some(37));
        assert_eq!(rounds_of_stage("propagate"), None);
        assert_eq!(rounds_of_stage("x (y rounds)"), None);
    }
}
