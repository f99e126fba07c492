//! A strip worker on the CPU: a registered CPU variant labels each strip in
//! host memory. It is what runs where no GPU does, and how CI checks the
//! merge on small images with a tiny memory cap.

use std::collections::HashMap;

use ccl::{BinaryImage, BinaryVolume, Result, Variant};

use crate::Shape;
use crate::merge::{LabelBuffers, LargeStats, Renumbering, StripFeatures, StripScan};
use crate::stream::{LabelWord, PlaneSink};
use crate::worker::{Strip, StripJob};

/// Labels strips on the host with one CPU variant.
pub(crate) struct CpuWorker {
    variant: Variant,
    pixels: Vec<u8>,
    /// Kept strips' labels, by first plane.
    kept: HashMap<usize, Vec<u32>>,
}

impl CpuWorker {
    pub(crate) fn new(variant: Variant) -> Self {
        Self {
            variant,
            pixels: Vec::new(),
            kept: HashMap::new(),
        }
    }

    /// Drops the kept labels.
    pub(crate) fn release_kept(&mut self) {
        self.kept.clear();
    }

    /// Room for the strip's pixels, which the caller fills.
    pub(crate) fn input(&mut self, bytes: usize) -> &mut [u8] {
        self.pixels.resize(bytes, 0);
        &mut self.pixels
    }

    /// The strip's canonical labels (packed) and their count.
    fn label(&self, job: StripJob) -> Result<(Vec<u32>, u32)> {
        let StripJob {
            shape,
            strip,
            connectivity,
        } = job;
        let (labels, count) = match shape {
            Shape::Image { width, .. } => {
                let image = BinaryImage::new(&self.pixels, width, strip.planes)?;
                let (labels, count) = self.variant.label(&image, connectivity)?;
                (labels.into_labels(), count)
            }
            Shape::Volume { width, height, .. } => {
                let volume = BinaryVolume::new(&self.pixels, width, height, strip.planes)?;
                let (labels, count) = self.variant.label_volume(&volume, connectivity)?;
                (labels.into_labels(), count)
            }
        };
        // A strip has at most MAX_PIXELS pixels, so its count fits.
        Ok((labels, count as u32))
    }

    pub(crate) fn scan(
        &mut self,
        job: StripJob,
        with_stats: bool,
        keep: bool,
        planes: &LabelBuffers,
    ) -> Result<StripScan> {
        let StripJob { shape, strip, .. } = job;
        let (labels, count) = self.label(job)?;
        let plane = shape.plane_len();
        let features = if with_stats {
            StripFeatures::Host(strip_stats(shape, strip, &labels, count))
        } else {
            StripFeatures::None
        };
        let scan = StripScan {
            count,
            first_plane: copied(planes, &labels[..plane]),
            last_plane: copied(planes, &labels[labels.len() - plane..]),
            features,
        };
        if keep {
            self.kept.insert(strip.first, labels);
        }
        Ok(scan)
    }

    pub(crate) fn write<L: LabelWord>(
        &mut self,
        job: StripJob,
        count: u32,
        renumbering: &Renumbering,
        sink: &dyn PlaneSink<L>,
    ) -> Result<()> {
        let StripJob { strip, .. } = job;
        let (labels, count) = match self.kept.remove(&strip.first) {
            Some(labels) => (labels, count),
            None => self.label(job)?,
        };
        let table = renumbering.table(count);
        let out: Vec<L> = labels
            .iter()
            .map(|&l| {
                if l == 0 {
                    L::default()
                } else {
                    L::from_label(table[l as usize - 1])
                }
            })
            .collect();
        sink.write_planes(strip.first, &out)
    }
}

/// The features of a strip's components from its labels, in the whole
/// image's coordinates.
fn strip_stats(shape: Shape, strip: Strip, labels: &[u32], count: u32) -> Vec<LargeStats> {
    let mut stats = vec![LargeStats::default(); count as usize];
    let width = shape.width();
    let rows = shape.plane_rows();
    for (index, &label) in labels.iter().enumerate() {
        if label == 0 {
            continue;
        }
        let (x, row) = ((index % width) as u32, index / width);
        // An image's strip: rows of the image; a volume's: rows of slices.
        let (y, z) = match shape {
            Shape::Image { .. } => ((strip.first + row) as u32, 0),
            Shape::Volume { .. } => ((row % rows) as u32, (strip.first + row / rows) as u32),
        };
        let pixel = LargeStats {
            area: 1,
            min: [x, y, z],
            max: [x, y, z],
            sum: [x as u64, y as u64, z as u64],
        };
        stats[label as usize - 1].merge(&pixel);
    }
    stats
}

/// `labels` in a buffer of `planes`.
fn copied(planes: &LabelBuffers, labels: &[u32]) -> Vec<u32> {
    let mut plane = planes.take(labels.len());
    plane.copy_from_slice(labels);
    plane
}
