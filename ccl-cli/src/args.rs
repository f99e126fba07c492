//! Argument types and choices shared by several commands.

use std::str::FromStr;

use ccl_core::{Algorithm, Connectivity, Task};
use ccl_io::{Binarization, Threshold};

/// `WIDTHxHEIGHT`, e.g. `2048x2048`, of an image with pixels: every command
/// that takes a size makes images (a sweep's, a written one), and none has
/// a use for an empty one; refused while the arguments are read, so the
/// size is named before any other argument's complaint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Size {
    pub width: usize,
    pub height: usize,
}

impl FromStr for Size {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let invalid = || format!("expected WIDTHxHEIGHT, e.g. 2048x2048, not `{text}`");
        let (width, height) = text.split_once(['x', 'X']).ok_or_else(invalid)?;
        let size = Size {
            width: width.trim().parse().map_err(|_| invalid())?,
            height: height.trim().parse().map_err(|_| invalid())?,
        };
        if size.width == 0 || size.height == 0 {
            return Err(format!(
                "`{text}` has no pixels: give a size of at least 1x1"
            ));
        }
        Ok(size)
    }
}

/// The image, its binarization, the algorithm and the connectivity that
/// `label` and `analyze` take.
#[derive(clap::Args)]
pub(crate) struct Input {
    /// Input image (PNG, PGM/PBM/PPM, TIFF), or - for standard input. By
    /// default every nonzero pixel is foreground (masks); gray photos and
    /// scans need --threshold or --otsu.
    pub image: std::path::PathBuf,
    /// Foreground where the gray value is above T (0..=255, or 0..=65535
    /// for 16-bit images), as OpenCV's THRESH_BINARY.
    #[arg(long, value_name = "T", conflicts_with = "otsu")]
    pub threshold: Option<u32>,
    /// Foreground above Otsu's threshold of the gray values (the automatic
    /// choice, as OpenCV's THRESH_OTSU).
    #[arg(long)]
    pub otsu: bool,
    /// Swap foreground and background after thresholding: dark objects on
    /// a light background (scans, bright-field microscopy).
    #[arg(long)]
    pub invert: bool,
    /// Algorithm (see `ccl list`); default: the preferred one available here.
    #[arg(short, long)]
    pub algorithm: Option<String>,
    /// Connectivity: 4 or 8.
    #[arg(short, long, value_name = "4|8", default_value = "8", value_parser = parse_connectivity)]
    pub connectivity: Connectivity,
}

impl Input {
    /// The loaded, binarized image and the algorithm that will run `task`
    /// on it. Says on stderr when a gray image is read with the nonzero
    /// rule, and which threshold Otsu's method chose.
    pub(crate) fn load(
        &self,
        task: Task,
    ) -> Result<(ccl_core::BinaryImageBuf, &'static Algorithm), crate::Error> {
        let algorithm = choose_algorithm(self.algorithm.as_deref(), task, self.connectivity)?;
        let threshold = match (self.threshold, self.otsu) {
            (Some(t), _) => Threshold::Above(t),
            (None, true) => Threshold::Otsu,
            (None, false) => Threshold::Nonzero,
        };
        let binarization = Binarization {
            threshold,
            invert: self.invert,
        };
        let decoded = ccl_io::read_image(&self.image, binarization)?;
        let name = self.image.display();
        match (threshold, decoded.threshold) {
            (Threshold::Nonzero, _) if decoded.gray_levels > 2 => eprintln!(
                "note: {name} is not a binary mask (it has more than two gray levels); every \
                 nonzero pixel is foreground. Use --threshold T or --otsu to binarize it, with \
                 --invert for dark objects on a light background."
            ),
            (Threshold::Otsu, Some(t)) => eprintln!("note: Otsu's threshold for {name} is {t}"),
            _ => {}
        }
        Ok((decoded.image, algorithm))
    }
}

/// Parses `4`, `8`, `four` or `eight`.
pub(crate) fn parse_connectivity(text: &str) -> Result<Connectivity, String> {
    text.parse()
        .map_err(|_| format!("expected 4 or 8 (or four, eight), not `{text}`"))
}

/// The algorithm a user named, or the preferred available one for `task`
/// and `connectivity`; either way one that can run it here.
pub(crate) fn choose_algorithm(
    name: Option<&str>,
    task: Task,
    connectivity: Connectivity,
) -> ccl_core::Result<&'static Algorithm> {
    let Some(name) = name else {
        return ccl::default_algorithm(task, connectivity);
    };
    let algorithm = ccl::find(name)?;
    algorithm.check_task(task)?;
    algorithm.check_connectivity(connectivity)?;
    algorithm.probe()?;
    Ok(algorithm)
}

/// Items as a comma-separated list: `4,8`, `ccl,cca`, `1,4,16`.
pub(crate) fn join<T: ToString>(items: &[T]) -> String {
    items.iter().map(T::to_string).collect::<Vec<_>>().join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_reject() {
        assert_eq!(
            "640x480".parse::<Size>(),
            Ok(Size {
                width: 640,
                height: 480
            })
        );
        assert!("640".parse::<Size>().is_err());
        assert!("x480".parse::<Size>().is_err());
        assert!("-1x3".parse::<Size>().is_err());
        assert!("0x3".parse::<Size>().unwrap_err().contains("at least 1x1"));
        assert!("3x0".parse::<Size>().is_err());
    }
}
