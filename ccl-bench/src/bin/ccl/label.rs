//! `ccl label`: the component count, and optionally the canonical labels as
//! data (a 32-bit TIFF, a NumPy `.npy`) or as a colour PNG.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ccl_core::{LabelImage, Task};

use crate::args::Input;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    input: Input,
    /// Write the canonical labels (0 background, 1..=N components), chosen
    /// by extension: .tif / .tiff, 32-bit unsigned gray; .npy, a NumPy
    /// uint32 array of shape (height, width); .png, a colour picture
    /// (background black; the first 262,143 labels all distinct colours).
    #[arg(short, long, value_name = "OUT")]
    output: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode, crate::Error> {
    // Refused before any work: a wrong extension is a typo.
    let format = args.output.as_deref().map(Format::of).transpose()?;
    let (image, algorithm) = args.input.load(Task::Label)?;
    let labels = algorithm
        .labeler()?
        .label(&image.view(), args.input.connectivity)?
        .canonical();
    if let (Some(output), Some(format)) = (&args.output, format) {
        format.write(&labels, output)?;
    }
    let count = labels.component_count();
    println!("{count} component{}", if count == 1 { "" } else { "s" });
    Ok(ExitCode::SUCCESS)
}

/// How labels are written.
#[derive(Clone, Copy)]
enum Format {
    Tiff,
    Npy,
    Png,
}

impl Format {
    fn of(path: &Path) -> Result<Self, crate::Error> {
        let extension = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match extension.as_deref() {
            Some("tif" | "tiff") => Ok(Format::Tiff),
            Some("npy") => Ok(Format::Npy),
            Some("png") => Ok(Format::Png),
            _ => Err(format!(
                "{}: labels are written as .tif / .tiff (32-bit), .npy (NumPy uint32) or .png \
                 (colours); name the file with one of those extensions",
                path.display()
            )
            .into()),
        }
    }

    fn write(self, labels: &LabelImage, path: &Path) -> Result<(), crate::Error> {
        let failed = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
        if labels.labels().is_empty() && !matches!(self, Format::Npy) {
            return Err(failed(&"an image with no pixels can only be written as .npy").into());
        }
        let file = File::create(path).map_err(|e| failed(&e))?;
        let mut out = BufWriter::new(file);
        match self {
            Format::Tiff => write_tiff(labels, &mut out).map_err(|e| failed(&e))?,
            Format::Npy => write_npy(labels, &mut out).map_err(|e| failed(&e))?,
            Format::Png => write_colour_png(labels, &mut out).map_err(|e| failed(&e))?,
        }
        out.flush().map_err(|e| failed(&e))?;
        Ok(())
    }
}

/// One 32-bit unsigned gray sample per pixel (TIFF's SampleFormat 1,
/// BitsPerSample 32), which ImageJ / Fiji, tifffile, OpenCV and libtiff read.
fn write_tiff(labels: &LabelImage, out: &mut (impl Write + std::io::Seek)) -> Result<(), String> {
    let (width, height) = sides(labels)?;
    tiff::encoder::TiffEncoder::new(out)
        .and_then(|mut encoder| {
            encoder.write_image::<tiff::encoder::colortype::Gray32>(width, height, labels.labels())
        })
        .map_err(|e| e.to_string())
}

/// NumPy's `.npy` format 1.0: a little-endian uint32 array of shape
/// (height, width) in C order.
fn write_npy(labels: &LabelImage, out: &mut impl Write) -> std::io::Result<()> {
    let dict = format!(
        "{{'descr': '<u4', 'fortran_order': False, 'shape': ({}, {}), }}",
        labels.height(),
        labels.width()
    );
    // Magic, version and header length, then the header padded with spaces
    // and ended by a newline so that the data starts 64-byte aligned.
    let unpadded = 10 + dict.len() + 1;
    let header = format!(
        "{dict}{}\n",
        " ".repeat(unpadded.next_multiple_of(64) - unpadded)
    );
    out.write_all(b"\x93NUMPY\x01\x00")?;
    out.write_all(&(header.len() as u16).to_le_bytes())?;
    out.write_all(header.as_bytes())?;
    for label in labels.labels() {
        out.write_all(&label.to_le_bytes())?;
    }
    Ok(())
}

/// An RGB PNG, one colour per label.
fn write_colour_png(labels: &LabelImage, out: &mut impl Write) -> Result<(), String> {
    let (width, height) = sides(labels)?;
    let rgb: Vec<u8> = labels.labels().iter().flat_map(|&l| colour(l)).collect();
    use image::ImageEncoder;
    image::codecs::png::PngEncoder::new(out)
        .write_image(&rgb, width, height, image::ExtendedColorType::Rgb8)
        .map_err(|e| e.to_string())
}

fn sides(labels: &LabelImage) -> Result<(u32, u32), String> {
    // Both fit: check_size bounds the pixel count below 2^32, and a side of
    // an image with pixels is at most that count.
    let side = |n: usize| u32::try_from(n).map_err(|_| format!("a side of {n} pixels"));
    Ok((side(labels.width())?, side(labels.height())?))
}

/// Colours of a palette: each channel one of 64 levels from 64 to 253, so
/// that no component looks like the black background.
const LEVELS: u32 = 64;

/// Black for background; for a label, one of the 2^18 colours of the
/// palette, by a bijection of the label's low 18 bits that scatters
/// neighbouring labels (odd multiplier and xor-shift, both invertible
/// modulo 2^18): the first 262,143 labels all get distinct colours, so
/// neighbouring components never share one.
fn colour(label: u32) -> [u8; 3] {
    if label == 0 {
        return [0; 3];
    }
    const BITS: u32 = 18;
    const MASK: u32 = (1 << BITS) - 1;
    let mut h = label & MASK;
    h = h.wrapping_mul(0x2_9E37) & MASK;
    h ^= h >> 9;
    h = h.wrapping_mul(0x1_B873) & MASK;
    h ^= h >> 7;
    let channel = |shift: u32| (64 + 3 * ((h >> shift) % LEVELS)) as u8;
    [channel(0), channel(6), channel(12)]
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
        assert_eq!(colour(7), colour(7));
    }

    #[test]
    fn the_first_labels_all_have_distinct_colours() {
        let mut seen = std::collections::HashSet::new();
        for label in 1..(1 << 18) {
            assert!(seen.insert(colour(label)), "label {label} repeats a colour");
        }
    }
}
