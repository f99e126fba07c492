//! `ccl label`: the component count, and optionally the canonical labels as
//! a colour PNG.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ccl_core::{LabelImage, Task};

use crate::args::Input;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    input: Input,
    /// Write the canonical labels as a colour PNG: background black, each
    /// label a fixed colour.
    #[arg(short, long, value_name = "OUT.png")]
    output: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode, crate::Error> {
    let (image, algorithm) = args.input.load(Task::Label)?;
    let labels = algorithm
        .labeler()?
        .label(&image.view(), args.input.connectivity)?
        .canonical();
    if let Some(output) = &args.output {
        write_colour_png(&labels, output)?;
    }
    let count = labels.component_count();
    println!("{count} component{}", if count == 1 { "" } else { "s" });
    Ok(ExitCode::SUCCESS)
}

/// Writes `labels` as an RGB PNG, one colour per label.
fn write_colour_png(labels: &LabelImage, path: &Path) -> Result<(), crate::Error> {
    let is_png = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("png"));
    if !is_png {
        return Err(format!(
            "{}: labels are written as PNG; name the file *.png",
            path.display()
        )
        .into());
    }
    if labels.labels().is_empty() {
        return Err(format!(
            "{}: a PNG cannot hold an image with no pixels",
            path.display()
        )
        .into());
    }
    let rgb: Vec<u8> = labels.labels().iter().flat_map(|&l| colour(l)).collect();
    // Both sides fit in u32: check_size bounds the pixel count below 2^32.
    let (width, height) = (labels.width() as u32, labels.height() as u32);
    image::save_buffer_with_format(
        path,
        &rgb,
        width,
        height,
        image::ExtendedColorType::Rgb8,
        image::ImageFormat::Png,
    )
    .map_err(|e| format!("{}: {e}", path.display()).into())
}

/// Black for background; for a label, a colour from a hash of its value, so
/// neighbouring labels look unrelated and the same label always looks the
/// same. Channels stay at or above 64 so no component looks like background.
fn colour(label: u32) -> [u8; 3] {
    if label == 0 {
        return [0; 3];
    }
    // The 32-bit finaliser of MurmurHash3: every input bit flips about half
    // of the output bits.
    let mut h = label;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    let [r, g, b, _] = h.to_le_bytes();
    [r, g, b].map(|c| 64 + (u16::from(c) * 191 / 255) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn background_is_black_and_labels_are_not() {
        assert_eq!(colour(0), [0, 0, 0]);
        for label in 1..1000 {
            assert!(colour(label).iter().all(|&c| c >= 64), "{label}");
        }
        assert_ne!(colour(1), colour(2));
        assert_eq!(colour(7), colour(7));
    }
}
