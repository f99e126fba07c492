//! A variant, named or preferred, run on host images: a CPU variant labels
//! them in place, on a labeler the calling thread keeps between calls
//! ([`crate::kept`]); a CUDA variant gets images uploaded to a pooled
//! labeler (`ccl_cuda::interop::pool`); either way repeated calls allocate
//! nothing new and concurrent threads never share a labeler.

use ccl_core::opencv::{OpenCvComponents, OpenCvStats};
use ccl_cuda::interop::pool;

use crate::kept;
use crate::{
    Algorithm, Backend, BinaryImage, BinaryVolume, ComponentStats, Connectivity, Error, LabelImage,
    LabelVolume, Result, Task, VolumeStats, default_algorithm, default_algorithm_on, find,
};

/// A registered variant checked to run here, for host images: canonical
/// labels, features and OpenCV's statistics, whatever it runs on.
///
/// [`Algorithm`] is the registry's entry, whose constructors give a
/// variant's raw labels; a `Variant` gives every variant's results in one
/// form (labels 1..=N in raster order of each component's first pixel),
/// and runs a CUDA variant on a pooled labeler of device 0.
///
/// ```
/// use ccl::{BinaryImage, Connectivity, Task, Variant};
///
/// let pixels = [1, 0, 1,
///               1, 0, 0];
/// let image = BinaryImage::new(&pixels, 3, 2)?;
/// let reference = Variant::named("cpu-uf", Task::Label, Connectivity::Four)?;
/// let (labels, count) = reference.label(&image, Connectivity::Four)?;
/// assert_eq!((labels.labels(), count), (&[1, 0, 2, 1, 0, 0][..], 2));
///
/// // A name that is not registered, or a variant lacking what is asked,
/// // is refused before any image is seen.
/// assert!(Variant::named("no-such-variant", Task::Label, Connectivity::Four).is_err());
/// # Ok::<(), ccl::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Variant {
    algorithm: &'static Algorithm,
}

impl Variant {
    /// The variant called `name` (or an alias of it), checked in this
    /// order: it is registered, implements `connectivity`, performs
    /// `task`, and can run here ([`Algorithm::probe`]); each error says
    /// which failed.
    pub fn named(name: &str, task: Task, connectivity: Connectivity) -> Result<Self> {
        let algorithm = find(name)?;
        algorithm.check_connectivity(connectivity)?;
        algorithm.check_task(task)?;
        algorithm.probe().map_err(|reason| {
            Error::Unavailable(format!("{} cannot run here: {reason}", algorithm.name))
        })?;
        Ok(Self { algorithm })
    }

    /// The preferred variant that runs here for `task` and `connectivity`
    /// ([`default_algorithm`]): a CUDA one where a GPU works, else a CPU one.
    pub fn preferred(task: Task, connectivity: Connectivity) -> Result<Self> {
        Ok(Self {
            algorithm: default_algorithm(task, connectivity)?,
        })
    }

    /// [`preferred`](Self::preferred) among the variants of `backend` only.
    pub fn preferred_on(backend: Backend, task: Task, connectivity: Connectivity) -> Result<Self> {
        Ok(Self {
            algorithm: default_algorithm_on(backend, task, connectivity)?,
        })
    }

    /// Its registry entry.
    pub fn algorithm(&self) -> &'static Algorithm {
        self.algorithm
    }

    /// The canonical labels of `image` (0 for background, 1..=N in raster
    /// order of each component's first pixel) and N.
    pub fn label(
        &self,
        image: &BinaryImage<'_>,
        connectivity: Connectivity,
    ) -> Result<(LabelImage, usize)> {
        let algorithm = self.algorithm;
        match algorithm.backend {
            Backend::Cuda => pool::label_host_image(algorithm, image, connectivity),
            // CPU variants label canonically, and count in a pass over the
            // labels where they cannot tell N otherwise.
            Backend::Cpu => {
                kept::with_labeler(algorithm, |l| l.label_with_count(image, connectivity))
            }
        }
    }

    /// [`label`](Self::label) into `labels`, the caller's buffer of one
    /// label per pixel (row-major, packed; overwritten whatever it held);
    /// returns N. A CPU variant writes the buffer in place
    /// ([`ccl_core::Labeler::label_into`]): reused across images, it costs
    /// no allocation and no page faults. A CUDA variant's labels are
    /// copied into it.
    ///
    /// ```
    /// use ccl::{BinaryImage, Connectivity, Task, Variant};
    ///
    /// let variant = Variant::named("cpu-rle", Task::Label, Connectivity::Eight)?;
    /// let mut labels = vec![u32::MAX; 6];
    /// let image = BinaryImage::new(&[1, 0, 1, 0, 1, 0], 3, 2)?;
    /// assert_eq!(variant.label_into(&image, Connectivity::Eight, &mut labels)?, 1);
    /// assert_eq!(labels, [1, 0, 1, 0, 1, 0]);
    /// // A buffer of another size is refused.
    /// assert!(variant.label_into(&image, Connectivity::Eight, &mut labels[..5]).is_err());
    /// # Ok::<(), ccl::Error>(())
    /// ```
    pub fn label_into(
        &self,
        image: &BinaryImage<'_>,
        connectivity: Connectivity,
        labels: &mut [u32],
    ) -> Result<usize> {
        let algorithm = self.algorithm;
        match algorithm.backend {
            Backend::Cuda => {
                ccl_core::check_label_buffer(image, labels)?;
                let (result, count) = pool::label_host_image(algorithm, image, connectivity)?;
                labels.copy_from_slice(result.labels());
                Ok(count)
            }
            Backend::Cpu => {
                kept::with_labeler(algorithm, |l| l.label_into(image, connectivity, labels))
            }
        }
    }

    /// The features of every component of `image` by the variant's own
    /// analysis, index i for canonical label i + 1.
    pub fn analyze(
        &self,
        image: &BinaryImage<'_>,
        connectivity: Connectivity,
    ) -> Result<Vec<ComponentStats>> {
        let algorithm = self.algorithm;
        match algorithm.backend {
            Backend::Cuda => pool::analyze_host_image(algorithm, image, connectivity),
            Backend::Cpu => kept::with_analyzer(algorithm, |a| a.analyze(image, connectivity)),
        }
    }

    /// [`analyze`](Self::analyze) into `stats`, the caller's vector
    /// (overwritten whatever it held). A CPU variant that overrides
    /// [`ccl_core::Analyzer::analyze_into`] (`cpu-rle`) writes the features
    /// into its memory: reused across images, it costs no allocation and no
    /// page faults until an image has more components than any before. A
    /// CUDA variant's features are moved in.
    ///
    /// ```
    /// use ccl::{BinaryImage, Connectivity, Task, Variant};
    ///
    /// let variant = Variant::named("cpu-rle", Task::Analyze, Connectivity::Four)?;
    /// let mut stats = Vec::new();
    /// for pixels in [[1, 0, 1, 0, 1, 0], [1, 1, 1, 0, 0, 0]] {
    ///     let image = BinaryImage::new(&pixels, 3, 2)?;
    ///     variant.analyze_into(&image, Connectivity::Four, &mut stats)?;
    /// }
    /// assert_eq!((stats.len(), stats[0].area), (1, 3));
    /// # Ok::<(), ccl::Error>(())
    /// ```
    pub fn analyze_into(
        &self,
        image: &BinaryImage<'_>,
        connectivity: Connectivity,
        stats: &mut Vec<ComponentStats>,
    ) -> Result<()> {
        let algorithm = self.algorithm;
        match algorithm.backend {
            Backend::Cuda => {
                *stats = pool::analyze_host_image(algorithm, image, connectivity)?;
                Ok(())
            }
            Backend::Cpu => {
                kept::with_analyzer(algorithm, |a| a.analyze_into(image, connectivity, stats))
            }
        }
    }

    /// The canonical labels of a volume (0 for background, 1..=N in raster
    /// order of each component's first voxel) and N. Every variant that
    /// labels volumes does it on its own labeler, wherever it runs.
    pub fn label_volume(
        &self,
        volume: &BinaryVolume<'_>,
        connectivity: Connectivity,
    ) -> Result<(LabelVolume, usize)> {
        let labels = kept::with_labeler(self.algorithm, |l| l.label_volume(volume, connectivity))?
            .into_canonical();
        let count = labels.component_count_if_canonical().ok_or_else(|| {
            Error::Unavailable(format!(
                "{}'s labels were not canonical",
                self.algorithm.name
            ))
        })?;
        Ok((labels, count))
    }

    /// [`label_volume`](Self::label_volume) into `labels`, the caller's
    /// buffer of one label per voxel (x fastest, packed; overwritten);
    /// returns N.
    pub fn label_volume_into(
        &self,
        volume: &BinaryVolume<'_>,
        connectivity: Connectivity,
        labels: &mut [u32],
    ) -> Result<usize> {
        kept::with_labeler(self.algorithm, |l| {
            l.label_volume_into(volume, connectivity, labels)
        })
    }

    /// The features of every component of a volume by the variant's own
    /// analysis, index i for canonical label i + 1.
    pub fn analyze_volume(
        &self,
        volume: &BinaryVolume<'_>,
        connectivity: Connectivity,
    ) -> Result<Vec<VolumeStats>> {
        kept::with_analyzer(self.algorithm, |a| a.analyze_volume(volume, connectivity))
    }

    /// [`analyze_volume`](Self::analyze_volume) into `stats`, the caller's
    /// vector, as [`analyze_into`](Self::analyze_into) is for an image.
    pub fn analyze_volume_into(
        &self,
        volume: &BinaryVolume<'_>,
        connectivity: Connectivity,
        stats: &mut Vec<VolumeStats>,
    ) -> Result<()> {
        kept::with_analyzer(self.algorithm, |a| {
            a.analyze_volume_into(volume, connectivity, stats)
        })
    }

    /// Labels a batch of images of one size, the slices of `batch` (image
    /// `i` is slice `i`; no image touches another), in an image's
    /// connectivity: each image's canonical labels, 1..=n_i in its own
    /// raster order, into its plane of `labels` (the caller's buffer of one
    /// label per pixel of the batch, packed; overwritten), and n_i into
    /// `counts[i]`. A CUDA variant that labels batches does it in one
    /// launch sequence; any other variant image by image.
    ///
    /// ```
    /// use ccl::{BinaryVolume, Connectivity, Task, Variant};
    ///
    /// // Two 2x3 images: the first has two components in 4-connectivity,
    /// // the second one (its pixels do not reach into the first).
    /// let pixels = [1, 0, 1,
    ///               0, 0, 1,
    ///
    ///               1, 1, 0,
    ///               0, 1, 0];
    /// let batch = BinaryVolume::new(&pixels, 3, 2, 2)?;
    /// let variant = Variant::named("cpu-rle", Task::Label, Connectivity::Four)?;
    /// let (mut labels, mut counts) = (vec![0; 12], vec![0; 2]);
    /// variant.label_batch(&batch, Connectivity::Four, &mut labels, &mut counts)?;
    /// assert_eq!(counts, [2, 1]);
    /// assert_eq!(labels, [1, 0, 2, 0, 0, 2, 1, 1, 0, 0, 1, 0]);
    /// # Ok::<(), ccl::Error>(())
    /// ```
    pub fn label_batch(
        &self,
        batch: &BinaryVolume<'_>,
        connectivity: Connectivity,
        labels: &mut [u32],
        counts: &mut [usize],
    ) -> Result<()> {
        kept::with_labeler(self.algorithm, |l| {
            l.label_batch(batch, connectivity, labels, counts)
        })
    }

    /// The features of every image of a batch (as
    /// [`label_batch`](Self::label_batch) takes it): entry `i` holds image
    /// `i`'s components, index j for its canonical label j + 1.
    pub fn analyze_batch(
        &self,
        batch: &BinaryVolume<'_>,
        connectivity: Connectivity,
    ) -> Result<Vec<Vec<ComponentStats>>> {
        kept::with_analyzer(self.algorithm, |a| a.analyze_batch(batch, connectivity))
    }

    /// OpenCV's `connectedComponentsWithStats` of `image`: canonical
    /// labels, and the statistics laid out by [`ccl_core::opencv`] from
    /// the components' features — a CPU variant's own analysis (or, for one
    /// that only labels, the features of its labels), or for a CUDA variant
    /// the shared analysis of the labels it numbered on the GPU.
    pub fn connected_components_with_stats(
        &self,
        image: &BinaryImage<'_>,
        connectivity: Connectivity,
    ) -> Result<OpenCvComponents> {
        let algorithm = self.algorithm;
        let (labels, count, components) = match algorithm.backend {
            Backend::Cuda => {
                let (labels, components) =
                    pool::label_host_image_with_features(algorithm, image, connectivity)?;
                (labels, components.len(), components)
            }
            Backend::Cpu => {
                let (labels, count) = self.label(image, connectivity)?;
                let components = match algorithm.analyzer {
                    Some(_) => self.analyze(image, connectivity)?,
                    None => ComponentStats::from_labels(&labels),
                };
                (labels, count, components)
            }
        };
        if components.len() != count {
            return Err(Error::Unavailable(format!(
                "{} labeled {count} components but analyzed {}",
                algorithm.name,
                components.len()
            )));
        }
        let OpenCvStats { stats, centroids } = OpenCvStats::new(image, &components);
        Ok(OpenCvComponents {
            labels,
            count,
            stats,
            centroids,
        })
    }
}
