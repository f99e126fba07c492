//! A worker labels one strip at a time, on the CPU or on a GPU, and keeps
//! its buffers from strip to strip; the driver gives each its own thread.

use ccl::{Connectivity, Result};

use crate::Shape;
use crate::cpu::CpuWorker;
use crate::gpu::GpuWorker;
use crate::merge::{Renumbering, StripScan};
use crate::stream::{LabelWord, PlaneSink};
use crate::trace::StripTrace;

/// A run of whole planes: rows of an image, slices of a volume.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Strip {
    /// Its first plane.
    pub(crate) first: usize,
    /// Its planes.
    pub(crate) planes: usize,
}

/// One worker of either kind.
pub(crate) enum Worker {
    Cpu(CpuWorker),
    Gpu(Box<GpuWorker>),
}

impl Worker {
    /// Room for a strip's pixels, which the caller fills before
    /// [`scan`](Self::scan) or [`write`](Self::write).
    pub(crate) fn input(&mut self, bytes: usize) -> Result<&mut [u8]> {
        match self {
            Worker::Cpu(worker) => Ok(worker.input(bytes)),
            Worker::Gpu(worker) => worker.input(bytes),
        }
    }

    /// Labels the strip alone: what the merge needs of it.
    pub(crate) fn scan(
        &mut self,
        shape: Shape,
        strip: Strip,
        connectivity: Connectivity,
        with_stats: bool,
    ) -> Result<StripScan> {
        match self {
            Worker::Cpu(worker) => worker.scan(shape, strip, connectivity, with_stats),
            Worker::Gpu(worker) => worker.scan(shape, strip, connectivity, with_stats),
        }
    }

    /// Labels the strip again (its `count` components known from the
    /// scan) and writes its final labels to `sink`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn write<L: LabelWord>(
        &mut self,
        shape: Shape,
        strip: Strip,
        connectivity: Connectivity,
        count: u32,
        renumbering: &Renumbering,
        sink: &dyn PlaneSink<L>,
        trace: StripTrace<'_>,
    ) -> Result<()> {
        match self {
            Worker::Cpu(worker) => trace.step("write", || {
                worker.write(shape, strip, connectivity, renumbering, sink)
            }),
            Worker::Gpu(worker) => {
                worker.write(shape, strip, connectivity, count, renumbering, sink, trace)
            }
        }
    }
}
