//! OpenCV's `connectedComponentsWithStats` layout, defined once: every host
//! image's statistics, whichever variant labeled it (CPU, or CUDA through
//! `ccl_cuda::interop::pool`), are laid out here from the components'
//! features and the image. The device kernel that writes the same layout
//! for arrays that stay on a GPU (`ccl_opencv_stats` in `ccl-cuda`) is
//! tested against this definition.
//!
//! Rows are labels: row 0 the background (every pixel not in a component),
//! row r the component labeled r (canonical labels, 1..=N in raster order
//! of each component's first pixel).
//!
//! ```
//! use ccl_core::opencv::OpenCvStats;
//! use ccl_core::{BinaryImage, ComponentStats};
//!
//! // One component of three pixels in a 3x2 image.
//! let pixels = [1, 1, 0,
//!               0, 1, 0];
//! let image = BinaryImage::new(&pixels, 3, 2)?;
//! let mut component = ComponentStats::default();
//! component.add_run(0, 1, 0);
//! component.add_run(1, 1, 1);
//! let opencv = OpenCvStats::new(&image, &[component]);
//! assert_eq!(opencv.rows(), 2);
//! // left, top, width, height, area
//! assert_eq!(opencv.stats_row(0), [0, 0, 3, 2, 3]); // the background
//! assert_eq!(opencv.stats_row(1), [0, 0, 2, 2, 3]);
//! assert_eq!(opencv.centroid(0), [4.0 / 3.0, 2.0 / 3.0]);
//! assert_eq!(opencv.centroid(1), [2.0 / 3.0, 1.0 / 3.0]);
//! # Ok::<(), ccl_core::Error>(())
//! ```

use crate::{BinaryImage, ComponentStats, LabelImage};

/// Columns of a stats row: left, top, width, height, area (OpenCV's
/// `CC_STAT_LEFT`, `CC_STAT_TOP`, `CC_STAT_WIDTH`, `CC_STAT_HEIGHT`,
/// `CC_STAT_AREA`).
pub const STATS_COLUMNS: usize = 5;

/// Columns of a centroid row: x, y.
pub const CENTROID_COLUMNS: usize = 2;

/// Row 0 of `stats` for an image without background pixels (every pixel
/// foreground, or no pixel at all): `[-1, i32::MAX, 0, 0, 0]`, with a NaN
/// centroid, as OpenCV 5 writes it with every algorithm (its running box of
/// the empty background). The one definition: `ccl-cuda`'s
/// `ccl_opencv_stats` receives these values as its `NO_BACKGROUND_*`
/// constants.
pub const NO_BACKGROUND_STATS: [i32; STATS_COLUMNS] = [-1, i32::MAX, 0, 0, 0];

/// [`NO_BACKGROUND_STATS`] and its NaN centroid.
const NO_BACKGROUND: ([i32; STATS_COLUMNS], [f64; CENTROID_COLUMNS]) =
    (NO_BACKGROUND_STATS, [f64::NAN; CENTROID_COLUMNS]);

/// OpenCV's `stats` and `centroids` of an image with N components, rows
/// 0..=N, row-major: row 0 the background, row r the component labeled r.
///
/// Not `PartialEq`: centroids may be NaN; compare [`stats`](Self::stats)
/// with `==` and the centroids' bits.
#[derive(Clone, Debug)]
pub struct OpenCvStats {
    /// `(N + 1) × 5` int32: left, top, width, height, area (see
    /// [`STATS_COLUMNS`]). Values beyond `i32::MAX` wrap, as OpenCV's
    /// `CV_32S` does.
    pub stats: Vec<i32>,
    /// `(N + 1) × 2` float64: x, y (coordinate sum / area).
    pub centroids: Vec<f64>,
}

impl OpenCvStats {
    /// The layout of `image`'s statistics, given the features of its
    /// components in label order (index i for label i + 1, as every
    /// [`Analyzer`](crate::Analyzer) returns them).
    ///
    /// The background's area and coordinate sums are the image's less the
    /// components'; its bounding box is found by scanning rows from each
    /// side until it is known (at once, for most images). `components`
    /// must cover every foreground pixel once (any partition of the
    /// foreground would do for row 0): the background is what they leave.
    /// Given features that do not, row 0 is meaningless, but nothing
    /// panics.
    pub fn new(image: &BinaryImage<'_>, components: &[ComponentStats]) -> Self {
        let rows = components.len() + 1;
        let mut stats = Vec::with_capacity(rows * STATS_COLUMNS);
        let mut centroids = Vec::with_capacity(rows * CENTROID_COLUMNS);
        let (background_stats, background_centroid) = match Background::of(image, components) {
            Some(background) => (row_of(&background.bounds), background.centroid()),
            None => NO_BACKGROUND,
        };
        stats.extend(background_stats);
        centroids.extend(background_centroid);
        for component in components {
            stats.extend(row_of(component));
            centroids.extend(<[f64; 2]>::from(component.centroid()));
        }
        Self { stats, centroids }
    }

    /// N + 1: OpenCV's label count, background included.
    pub fn rows(&self) -> usize {
        self.stats.len() / STATS_COLUMNS
    }

    /// Row `row` of [`stats`](Self::stats): left, top, width, height, area.
    ///
    /// # Panics
    /// If `row >= rows()`.
    pub fn stats_row(&self, row: usize) -> [i32; STATS_COLUMNS] {
        let start = row * STATS_COLUMNS;
        self.stats[start..start + STATS_COLUMNS]
            .try_into()
            .expect("a row has STATS_COLUMNS entries")
    }

    /// Row `row` of [`centroids`](Self::centroids): x, y.
    ///
    /// # Panics
    /// If `row >= rows()`.
    pub fn centroid(&self, row: usize) -> [f64; CENTROID_COLUMNS] {
        let start = row * CENTROID_COLUMNS;
        [self.centroids[start], self.centroids[start + 1]]
    }
}

/// OpenCV's whole `connectedComponentsWithStats` result for one image:
/// what `ccl::connected_components_with_stats` returns.
#[derive(Clone, Debug)]
pub struct OpenCvComponents {
    /// Canonical labels: 0 for background, 1..=[`count`](Self::count) in
    /// raster order of each component's first pixel.
    pub labels: LabelImage,
    /// N, the components (OpenCV's return value is N + 1: it counts the
    /// background as label 0).
    pub count: usize,
    /// The statistics, rows 0..=N ([`OpenCvStats::stats`]).
    pub stats: Vec<i32>,
    /// The centroids, rows 0..=N ([`OpenCvStats::centroids`]).
    pub centroids: Vec<f64>,
}

/// One stats row: left, top, width, height, area.
fn row_of(s: &ComponentStats) -> [i32; STATS_COLUMNS] {
    // `as` wraps values past i32::MAX, as OpenCV's int32 output would.
    [
        s.x_min as i32,
        s.y_min as i32,
        s.width() as i32,
        s.height() as i32,
        s.area as i32,
    ]
}

/// The background's features: its bounds in a [`ComponentStats`] (sums
/// unused) and its coordinate sums, computed in 128 bits because they are
/// the image's sums less the components' (every sum of an image of at most
/// [`MAX_PIXELS`](crate::MAX_PIXELS) pixels fits 64 bits, but the image's
/// total is formed before the subtraction).
struct Background {
    bounds: ComponentStats,
    sum_x: u128,
    sum_y: u128,
}

impl Background {
    /// The background of `image` given its components, or `None` when it
    /// has no pixel (every pixel is foreground, or the image is empty).
    fn of(image: &BinaryImage<'_>, components: &[ComponentStats]) -> Option<Self> {
        let (width, height) = (image.width() as u128, image.height() as u128);
        let foreground: u128 = components.iter().map(|c| c.area as u128).sum();
        let area = (width * height).checked_sub(foreground)?;
        // Also returns before `width - 1` below could underflow on an
        // empty image.
        if area == 0 {
            return None;
        }
        let sum_x = (height * width * (width - 1) / 2)
            .saturating_sub(components.iter().map(|c| c.sum_x as u128).sum());
        let sum_y = (width * height * (height - 1) / 2)
            .saturating_sub(components.iter().map(|c| c.sum_y as u128).sum());
        let rows = 0..image.height();
        let has_background = |y: &usize| image.row(*y).contains(&0);
        let y_min = rows.clone().find(has_background)?;
        let y_max = rows.rev().find(has_background)?;
        let last_column = image.width() - 1;
        let (mut x_min, mut x_max) = (usize::MAX, 0);
        for y in y_min..=y_max {
            let row = image.row(y);
            if x_min > 0
                && let Some(x) = row.iter().position(|&p| p == 0)
            {
                x_min = x_min.min(x);
            }
            if x_max < last_column
                && let Some(x) = row.iter().rposition(|&p| p == 0)
            {
                x_max = x_max.max(x);
            }
            if x_min == 0 && x_max == last_column {
                break;
            }
        }
        Some(Self {
            bounds: ComponentStats {
                area: area as u32,
                x_min: x_min as u32,
                y_min: y_min as u32,
                x_max: x_max as u32,
                y_max: y_max as u32,
                sum_x: 0,
                sum_y: 0,
            },
            sum_x,
            sum_y,
        })
    }

    /// `(sum_x / area, sum_y / area)`.
    fn centroid(&self) -> [f64; CENTROID_COLUMNS] {
        let area = self.bounds.area as f64;
        [self.sum_x as f64 / area, self.sum_y as f64 / area]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BinaryImageBuf;

    /// Every foreground pixel as a component of its own, in raster order:
    /// a valid partition of the foreground, which is all the layout's
    /// background depends on.
    fn singletons(image: &BinaryImage<'_>) -> Vec<ComponentStats> {
        let mut components = Vec::new();
        for y in 0..image.height() {
            for (x, &p) in image.row(y).iter().enumerate() {
                if p != 0 {
                    components.push(ComponentStats::pixel(x as u32, y as u32));
                }
            }
        }
        components
    }

    /// The layout by its definition, pixel by pixel: the background merged
    /// from its pixels like any component.
    fn brute_force(image: &BinaryImage<'_>, components: &[ComponentStats]) -> (Vec<i32>, Vec<f64>) {
        let mut background = ComponentStats::default();
        for y in 0..image.height() {
            for (x, &p) in image.row(y).iter().enumerate() {
                if p == 0 {
                    background.merge(&ComponentStats::pixel(x as u32, y as u32));
                }
            }
        }
        let mut stats = Vec::new();
        let mut centroids = Vec::new();
        let rows = std::iter::once(&background).chain(components);
        for (i, s) in rows.enumerate() {
            if i == 0 && s.area == 0 {
                // What OpenCV 5 writes (its running box, never widened).
                stats.extend([-1, i32::MAX, 0, 0, 0]);
                centroids.extend([f64::NAN; 2]);
                continue;
            }
            stats.extend([
                s.x_min as i32,
                s.y_min as i32,
                (s.x_max - s.x_min + 1) as i32,
                (s.y_max - s.y_min + 1) as i32,
                s.area as i32,
            ]);
            centroids.extend([
                s.sum_x as f64 / s.area as f64,
                s.sum_y as f64 / s.area as f64,
            ]);
        }
        (stats, centroids)
    }

    fn bits(values: &[f64]) -> Vec<u64> {
        values.iter().map(|v| v.to_bits()).collect()
    }

    fn check(image: &BinaryImage<'_>, context: &str) -> OpenCvStats {
        let components = singletons(image);
        let opencv = OpenCvStats::new(image, &components);
        let (stats, centroids) = brute_force(image, &components);
        assert_eq!(opencv.rows(), components.len() + 1, "{context}: rows");
        assert_eq!(opencv.stats, stats, "{context}: stats");
        assert_eq!(
            bits(&opencv.centroids),
            bits(&centroids),
            "{context}: centroids"
        );
        opencv
    }

    /// A deterministic pseudo-random image (a 64-bit LCG; the crate has no
    /// random dependency).
    fn random(width: usize, height: usize, percent: u64, seed: u64) -> BinaryImageBuf {
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        BinaryImageBuf::from_fn(width, height, |_, _| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) % 100 < percent
        })
        .unwrap()
    }

    #[test]
    fn random_images_match_the_definition() {
        let sizes = [(1, 1), (7, 3), (33, 17), (64, 64), (100, 1), (1, 100)];
        for (i, &(width, height)) in sizes.iter().enumerate() {
            for percent in [0, 3, 50, 97, 100] {
                let image = random(width, height, percent, i as u64 * 101 + percent);
                check(&image.view(), &format!("{width}x{height} at {percent} %"));
            }
        }
    }

    #[test]
    fn all_background_is_one_row_covering_the_image() {
        let image = BinaryImageBuf::new(5, 3).unwrap();
        let opencv = check(&image.view(), "all background");
        assert_eq!(opencv.stats, [0, 0, 5, 3, 15]);
        assert_eq!(opencv.centroids, [2.0, 1.0]);
    }

    #[test]
    fn all_foreground_has_the_empty_background_row() {
        let image = BinaryImageBuf::from_fn(4, 3, |_, _| true).unwrap();
        let whole = ComponentStats {
            area: 12,
            x_min: 0,
            y_min: 0,
            x_max: 3,
            y_max: 2,
            sum_x: 3 * 6,
            sum_y: 4 * 3,
        };
        let opencv = OpenCvStats::new(&image.view(), &[whole]);
        assert_eq!(opencv.stats, [-1, i32::MAX, 0, 0, 0, 0, 0, 4, 3, 12]);
        assert!(opencv.centroid(0).iter().all(|c| c.is_nan()));
        assert_eq!(opencv.centroid(1), [1.5, 1.0]);
        check(&image.view(), "all foreground, singletons");
    }

    #[test]
    fn rows_and_columns_of_one_pixel() {
        let row = BinaryImageBuf::from_fn(9, 1, |x, _| x % 3 == 1).unwrap();
        let opencv = check(&row.view(), "1x9");
        assert_eq!(opencv.stats_row(0), [0, 0, 9, 1, 6]);
        let column = BinaryImageBuf::from_fn(1, 9, |_, y| y % 3 != 1).unwrap();
        let opencv = check(&column.view(), "9x1");
        assert_eq!(opencv.stats_row(0), [0, 1, 1, 7, 3]);
        for pixel in [true, false] {
            let single = BinaryImageBuf::from_fn(1, 1, |_, _| pixel).unwrap();
            check(&single.view(), &format!("1x1 {pixel}"));
        }
    }

    /// The background's box comes from the scan, not from the totals: a
    /// hole in the middle of the foreground.
    #[test]
    fn a_background_hole_has_its_own_box() {
        let image =
            BinaryImageBuf::from_fn(6, 5, |x, y| !(x == 3 && (1..=2).contains(&y))).unwrap();
        let opencv = check(&image.view(), "hole");
        assert_eq!(opencv.stats_row(0), [3, 1, 1, 2, 2]);
        assert_eq!(opencv.centroid(0), [3.0, 1.5]);
    }

    #[test]
    fn strided_views_never_read_the_padding() {
        // Rows of 4 pixels 7 bytes apart; the padding is foreground-looking
        // garbage and a background-looking 0.
        let pixels = [
            1, 0, 0, 1, 9, 0, 9, //
            1, 1, 1, 1, 0, 0, 0, //
            0, 1, 1, 0,
        ];
        let image = BinaryImage::with_stride(&pixels, 4, 3, 7).unwrap();
        let opencv = check(&image, "strided");
        assert_eq!(opencv.stats_row(0), [0, 0, 4, 3, 4]);
        let fully_foreground_rows = [1u8, 1, 1, 0, 0, 0, 1, 1, 1];
        let image = BinaryImage::with_stride(&fully_foreground_rows, 3, 2, 6).unwrap();
        let opencv = check(&image, "strided, no background");
        assert_eq!(opencv.stats_row(0), [-1, i32::MAX, 0, 0, 0]);
    }

    #[test]
    fn an_empty_image_has_only_the_empty_background_row() {
        for (width, height) in [(0, 0), (0, 3), (3, 0)] {
            let image = BinaryImage::new(&[], width, height).unwrap();
            let opencv = OpenCvStats::new(&image, &[]);
            assert_eq!(opencv.stats, [-1, i32::MAX, 0, 0, 0]);
            assert!(opencv.centroids.iter().all(|c| c.is_nan()));
        }
    }
}
