//! Argument types and choices shared by several commands.

use std::str::FromStr;

use ccl_core::{Algorithm, Connectivity, Task};

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

/// `WIDTHxHEIGHTxDEPTH`, e.g. `512x512x512`, of a volume with voxels (a
/// volume sweep's, a written one), refused while the arguments are read
/// when it has none, as [`Size`] refuses an image without pixels.
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

/// `WIDTHxHEIGHT` or `WIDTHxHEIGHTxDEPTH`: the size of what `gen` writes,
/// whose number of sides says whether it is an image or a volume.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AnySize {
    /// Two sides: an image.
    Image(Size),
    /// Three sides: a volume.
    Volume(VolumeSize),
}

impl FromStr for AnySize {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        // The count of sides chooses the kind; each kind's parser then says
        // what is wrong with its sides (a zero, a word).
        match text.split(['x', 'X']).count() {
            2 => text.parse().map(AnySize::Image),
            3 => text.parse().map(AnySize::Volume),
            _ => Err(format!(
                "expected WIDTHxHEIGHT (an image) or WIDTHxHEIGHTxDEPTH (a volume), e.g. \
                 1024x768 or 256x256x256, not `{text}`"
            )),
        }
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
pub(crate) fn parse_threshold(text: &str) -> Result<u32, String> {
    parse_whole(text, "the threshold")
}

/// Parses `--page`.
pub(crate) fn parse_page(text: &str) -> Result<usize, String> {
    parse_whole(text, "the page (counted from 0)")
}

/// Parses `--max-pixels`.
pub(crate) fn parse_max_pixels(text: &str) -> Result<u64, String> {
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
    fn any_size_is_an_image_or_a_volume_by_its_sides() {
        assert_eq!(
            "7x5".parse::<AnySize>(),
            Ok(AnySize::Image(Size {
                width: 7,
                height: 5
            }))
        );
        assert_eq!(
            "7x5x3".parse::<AnySize>(),
            Ok(AnySize::Volume(VolumeSize {
                width: 7,
                height: 5,
                depth: 3
            }))
        );
        for bad in ["7", "7by5", "7x5x3x2"] {
            let message = bad.parse::<AnySize>().unwrap_err();
            assert!(message.contains("WIDTHxHEIGHTxDEPTH"), "{bad}: {message}");
        }
        assert!(
            "0x5"
                .parse::<AnySize>()
                .unwrap_err()
                .contains("has no pixels")
        );
        assert!(
            "7x0x5"
                .parse::<AnySize>()
                .unwrap_err()
                .contains("has no voxels")
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
