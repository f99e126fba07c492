//! Argument types and choices shared by several commands.

use std::str::FromStr;

use ccl_core::{Algorithm, Connectivity, Task};
use ccl_io::{Binarization, Channel, ReadOptions, Threshold};

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

/// `WIDTHxHEIGHTxDEPTH`, e.g. `512x512x512`, of a volume with voxels: a
/// volume sweep's, refused while the arguments are read when it has none,
/// as [`Size`] refuses an image without pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct VolumeSize {
    pub width: usize,
    pub height: usize,
    pub depth: usize,
}

impl FromStr for VolumeSize {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let invalid = || format!("expected WIDTHxHEIGHTxDEPTH, e.g. 512x512x512, not `{text}`");
        let sides = text
            .split(['x', 'X'])
            .map(|side| side.trim().parse::<usize>().map_err(|_| invalid()))
            .collect::<Result<Vec<_>, _>>()?;
        let [width, height, depth] = sides[..] else {
            return Err(invalid());
        };
        if width == 0 || height == 0 || depth == 0 {
            return Err(format!(
                "`{text}` has no voxels: give a size of at least 1x1x1"
            ));
        }
        Ok(VolumeSize {
            width,
            height,
            depth,
        })
    }
}

/// The image, its binarization, the algorithm and the connectivity that
/// `label` and `analyze` take.
#[derive(clap::Args)]
pub(crate) struct Input {
    /// Input image (PNG, PGM/PBM/PPM/PAM, TIFF), or - for standard input. By
    /// default every nonzero pixel is foreground (masks): in a colour image,
    /// a pixel with any colour channel nonzero, whatever its alpha (--alpha
    /// reads the alpha channel instead). Gray photos and scans need
    /// --threshold or --otsu.
    pub image: std::path::PathBuf,
    /// Foreground where the gray value is above T (0..=255, or 0..=65535
    /// for 16-bit images), as OpenCV's THRESH_BINARY.
    #[arg(
        long,
        value_name = "T",
        conflicts_with = "otsu",
        allow_negative_numbers = true,
        value_parser = parse_threshold
    )]
    pub threshold: Option<u32>,
    /// Foreground above Otsu's threshold of the gray values (the automatic
    /// choice, as OpenCV's THRESH_OTSU).
    #[arg(long)]
    pub otsu: bool,
    /// Swap foreground and background after thresholding: dark objects on
    /// a light background (scans, bright-field microscopy).
    #[arg(long)]
    pub invert: bool,
    /// Use the alpha channel as the mask: every pixel that is not fully
    /// transparent is foreground (with --threshold or --otsu, the alpha
    /// values are thresholded). For RGBA and gray + alpha images.
    #[arg(long)]
    pub alpha: bool,
    /// The page of a multi-page TIFF to read, counted from 0 (as tifffile
    /// and ImageMagick count; ImageJ's slice N is page N-1). A TIFF of
    /// several pages is refused without it.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_page)]
    pub page: Option<usize>,
    /// The most pixels the image may have, checked from its header before
    /// anything is decoded: a guard against decompression bombs and typos
    /// (reading and labelling take 5 bytes a pixel or more; the default,
    /// 2^30 = 32768x32768, about 6 GiB). 32-bit labels allow at most
    /// 4294967294 whatever this says.
    #[arg(
        long,
        value_name = "N",
        default_value_t = ccl_io::DEFAULT_MAX_PIXELS,
        allow_negative_numbers = true,
        value_parser = parse_max_pixels
    )]
    pub max_pixels: u64,
    /// Algorithm (see `ccl list`); default: the preferred one available here.
    #[arg(short, long)]
    pub algorithm: Option<String>,
    /// Connectivity: 4 or 8.
    #[arg(short, long, value_name = "4|8", default_value = "8", value_parser = parse_connectivity)]
    pub connectivity: Connectivity,
}

impl Input {
    /// The loaded, binarized image and the algorithm that will run `task`
    /// on it. Says on stderr when a gray image (or alpha channel) is read
    /// with the nonzero rule, when the default rule ignored transparent
    /// pixels, and which threshold Otsu's method chose.
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
        let options = ReadOptions {
            binarization: Binarization {
                threshold,
                invert: self.invert,
                channel: if self.alpha {
                    Channel::Alpha
                } else {
                    Channel::Colour
                },
            },
            page: self.page,
            max_pixels: self.max_pixels,
        };
        let decoded = ccl_io::read_image(&self.image, &options)?;
        let name = self.image.display();
        match (threshold, decoded.threshold) {
            (Threshold::Nonzero, _) if decoded.gray_levels > 2 && self.alpha => eprintln!(
                "note: the alpha channel of {name} is not binary (it has more than two \
                 levels); every pixel that is not fully transparent is foreground. Use \
                 --threshold T or --otsu to binarize it."
            ),
            (Threshold::Nonzero, _) if decoded.gray_levels > 2 => eprintln!(
                "note: {name} is not a binary mask (it has more than two gray levels); every \
                 nonzero pixel is foreground. Use --threshold T or --otsu to binarize it, with \
                 --invert for dark objects on a light background."
            ),
            (Threshold::Otsu, Some(t)) => eprintln!("note: Otsu's threshold for {name} is {t}"),
            _ => {}
        }
        if decoded.translucent && !self.alpha {
            eprintln!(
                "note: {name} has transparent pixels; the alpha channel is ignored (the colour \
                 channels decide, and transparent pixels with colour are foreground). Use \
                 --alpha to make the alpha channel the mask."
            );
        }
        Ok((decoded.image, algorithm))
    }
}

/// A whole number of 0 or more, as `what` (clap hands negative numbers
/// here rather than taking them for options, so that the error says what
/// is wrong).
fn parse_whole<T: FromStr>(text: &str, what: &str) -> Result<T, String> {
    if text.trim_start().starts_with('-') {
        return Err(format!("{what} must be 0 or more"));
    }
    text.trim()
        .parse()
        .map_err(|_| format!("{what} must be a whole number, not `{text}`"))
}

/// Parses `--threshold`.
fn parse_threshold(text: &str) -> Result<u32, String> {
    parse_whole(text, "the threshold")
}

/// Parses `--page`.
fn parse_page(text: &str) -> Result<usize, String> {
    parse_whole(text, "the page (counted from 0)")
}

/// Parses `--max-pixels`.
fn parse_max_pixels(text: &str) -> Result<u64, String> {
    match parse_whole(text, "the pixel limit")? {
        0 => Err("the pixel limit must be 1 or more".into()),
        n => Ok(n),
    }
}

/// Parses `4`, `8`, `four` or `eight`.
pub(crate) fn parse_connectivity(text: &str) -> Result<Connectivity, String> {
    text.parse()
        .map_err(|_| format!("expected 4 or 8 (or four, eight), not `{text}`"))
}

/// Parses any connectivity, an image's or a volume's: `4`, `8`, `6`, `18`,
/// `26` (or their words), for a command that takes both and checks which
/// its input needs.
pub(crate) fn parse_any_connectivity(text: &str) -> Result<Connectivity, String> {
    text.parse()
        .map_err(|_| format!("expected 4 or 8 (images), or 6, 18 or 26 (volumes), not `{text}`"))
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

    #[test]
    fn volume_sizes_parse_and_reject() {
        assert_eq!(
            "24x20X16".parse::<VolumeSize>(),
            Ok(VolumeSize {
                width: 24,
                height: 20,
                depth: 16
            })
        );
        for bad in ["24x20", "24x20x16x2", "x20x16", "24x-1x16", "axbxc", ""] {
            let message = bad.parse::<VolumeSize>().unwrap_err();
            assert!(message.contains("WIDTHxHEIGHTxDEPTH"), "{bad}: {message}");
        }
        assert!(
            "4x0x4"
                .parse::<VolumeSize>()
                .unwrap_err()
                .contains("at least 1x1x1")
        );
    }

    #[test]
    fn any_connectivity_parses_both_kinds() {
        assert_eq!(parse_any_connectivity("26"), Ok(Connectivity::TwentySix));
        assert_eq!(parse_any_connectivity("four"), Ok(Connectivity::Four));
        assert!(
            parse_any_connectivity("12")
                .unwrap_err()
                .contains("6, 18 or 26")
        );
    }

    #[test]
    fn whole_numbers_say_what_is_wrong() {
        assert_eq!(parse_threshold("7"), Ok(7));
        assert_eq!(
            parse_threshold("-1"),
            Err("the threshold must be 0 or more".into())
        );
        assert!(parse_threshold("1.5").unwrap_err().contains("whole number"));
        assert_eq!(parse_page("0"), Ok(0));
        assert!(parse_page("-2").unwrap_err().contains("0 or more"));
        assert!(parse_max_pixels("0").is_err());
        assert_eq!(parse_max_pixels("1073741824"), Ok(1 << 30));
    }
}
