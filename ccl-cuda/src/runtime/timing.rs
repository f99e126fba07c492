//! Per-stage timing with CUDA events.

use std::sync::Arc;

use ccl_core::{Result, StageTime};
use cudarc::driver::{CudaEvent, CudaStream, sys::CUevent_flags};

use super::device::cuda_error;

/// Records an event at the start and after each stage of a pipeline; a
/// disabled clock records nothing, so one pipeline serves timed and untimed
/// calls.
pub struct StageClock {
    stream: Option<Arc<CudaStream>>,
    /// Each mark: the stage it ends, its rounds (if it iterates) and its event.
    marks: Vec<(&'static str, Option<u32>, CudaEvent)>,
}

impl StageClock {
    /// A clock that records nothing.
    pub fn disabled() -> Self {
        Self {
            stream: None,
            marks: Vec::new(),
        }
    }

    /// A clock whose start is recorded now on `stream`.
    pub fn start(stream: &Arc<CudaStream>) -> Result<Self> {
        let mut clock = Self {
            stream: Some(stream.clone()),
            marks: Vec::new(),
        };
        clock.mark("start")?;
        Ok(clock)
    }

    /// Marks the end of `stage` (the work queued since the previous mark).
    pub fn mark(&mut self, stage: &'static str) -> Result<()> {
        self.record(stage, None)
    }

    /// Marks the end of `stage`, which iterated `rounds` times to a fixed
    /// point (the stage time carries the count: [`StageTime::rounds`]).
    pub fn mark_rounds(&mut self, stage: &'static str, rounds: u32) -> Result<()> {
        self.record(stage, Some(rounds))
    }

    fn record(&mut self, stage: &'static str, rounds: Option<u32>) -> Result<()> {
        if let Some(stream) = &self.stream {
            let event = stream
                .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(cuda_error)?;
            self.marks.push((stage, rounds, event));
        }
        Ok(())
    }

    /// Waits for the last mark and returns each stage's milliseconds
    /// (empty for a disabled clock).
    pub fn finish(self) -> Result<Vec<StageTime>> {
        self.marks
            .windows(2)
            .map(|pair| {
                let (_, _, start) = &pair[0];
                let (stage, rounds, end) = &pair[1];
                let ms = start.elapsed_ms(end).map_err(cuda_error)?;
                Ok(StageTime {
                    stage,
                    ms: ms as f64,
                    rounds: *rounds,
                })
            })
            .collect()
    }
}
