//! How a decoded image becomes binary: a threshold rule (any nonzero
//! sample, a gray value above a threshold, Otsu's threshold) on the colour
//! or the alpha channel, then optionally the complement.

use std::borrow::Cow;

use ccl_core::BinaryImageBuf;
use image::{DynamicImage, ImageBuffer, Pixel, Primitive};

use crate::read::Decoded;

/// How a gray or colour image becomes binary.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Threshold {
    /// Any nonzero sample (in any colour channel) is foreground: the rule
    /// for masks, and the default.
    #[default]
    Nonzero,
    /// Foreground where the gray value is above this one, in the image's
    /// own range (0..=255, or 0..=65535 for 16-bit images), as OpenCV's
    /// `THRESH_BINARY`.
    Above(u32),
    /// Otsu's threshold: the gray value that best separates the histogram
    /// into two classes (largest between-class variance), as OpenCV's
    /// `THRESH_OTSU`; foreground above it.
    Otsu,
}

/// Which samples of a pixel the [`Threshold`] looks at.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Channel {
    /// The gray or colour channels; alpha is ignored. [`Threshold::Nonzero`]
    /// makes a pixel foreground where any colour channel is nonzero, the
    /// other rules threshold its gray value (luma). The default.
    #[default]
    Colour,
    /// The alpha channel: the mask that RGBA and gray + alpha images often
    /// carry. [`Threshold::Nonzero`] makes every pixel that is not fully
    /// transparent foreground; the other rules threshold the alpha values
    /// (0..=255, or 0..=65535 for 16-bit images; float alpha is scaled to
    /// 0..=65535, any positive value at least 1). Images without an alpha
    /// channel are refused.
    Alpha,
}

/// The binarization of an input image: a threshold rule on a channel, then
/// optionally the complement (dark objects on a light background).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Binarization {
    /// Which pixels are foreground.
    pub threshold: Threshold,
    /// Swap foreground and background after the threshold.
    pub invert: bool,
    /// The samples the threshold looks at: colour (the default) or alpha.
    pub channel: Channel,
}

/// The gray values of an image: its own bytes for 8-bit gray, else luma
/// (Rec. 709, as the `image` crate computes it) at 8 or 16 bits; or the
/// values of an 8- or 16-bit `.npy` array.
pub(crate) enum Gray<'a> {
    Eight(Cow<'a, [u8]>),
    Sixteen(Vec<u16>),
}

impl Gray<'_> {
    fn of(image: &DynamicImage, pbm: bool) -> Gray<'_> {
        if pbm {
            // Ink decodes as 0: gray values count ink as bright.
            let ink = image.to_luma8().into_raw().into_iter().map(|v| 255 - v);
            return Gray::Eight(Cow::Owned(ink.collect()));
        }
        match image {
            DynamicImage::ImageLuma8(b) => Gray::Eight(Cow::Borrowed(b.as_raw())),
            DynamicImage::ImageLumaA8(_)
            | DynamicImage::ImageRgb8(_)
            | DynamicImage::ImageRgba8(_) => Gray::Eight(Cow::Owned(image.to_luma8().into_raw())),
            _ => Gray::Sixteen(image.to_luma16().into_raw()),
        }
    }

    /// The alpha channel's values at the image's depth (float alpha scaled
    /// to 16 bits, any positive value at least 1); `None` without alpha.
    fn alpha(image: &DynamicImage) -> Option<Gray<'static>> {
        fn last<P: Pixel>(image: &ImageBuffer<P, Vec<P::Subpixel>>) -> Vec<P::Subpixel> {
            let at = usize::from(P::CHANNEL_COUNT) - 1;
            image.pixels().map(|p| p.channels()[at]).collect()
        }
        Some(match image {
            DynamicImage::ImageLumaA8(b) => Gray::Eight(Cow::Owned(last(b))),
            DynamicImage::ImageRgba8(b) => Gray::Eight(Cow::Owned(last(b))),
            DynamicImage::ImageLumaA16(b) => Gray::Sixteen(last(b)),
            DynamicImage::ImageRgba16(b) => Gray::Sixteen(last(b)),
            DynamicImage::ImageRgba32F(b) => Gray::Sixteen(
                last(b)
                    .into_iter()
                    .map(|a| ((a.clamp(0.0, 1.0) * 65535.0).round() as u16).max(u16::from(a > 0.0)))
                    .collect(),
            ),
            _ => return None,
        })
    }

    /// The values, owned (an 8-bit image's own bytes copied).
    fn into_owned(self) -> Gray<'static> {
        match self {
            Gray::Eight(v) => Gray::Eight(Cow::Owned(v.into_owned())),
            Gray::Sixteen(v) => Gray::Sixteen(v),
        }
    }

    fn max(&self) -> u32 {
        match self {
            Gray::Eight(_) => u8::MAX as u32,
            Gray::Sixteen(_) => u16::MAX as u32,
        }
    }

    fn len(&self) -> usize {
        match self {
            Gray::Eight(v) => v.len(),
            Gray::Sixteen(v) => v.len(),
        }
    }

    fn values(&self) -> Box<dyn Iterator<Item = u32> + '_> {
        match self {
            Gray::Eight(v) => Box::new(v.iter().map(|&x| x as u32)),
            Gray::Sixteen(v) => Box::new(v.iter().map(|&x| x as u32)),
        }
    }
}

/// Otsu's threshold of a histogram of values (`histogram[v]`: how many
/// samples have the value `v`): the value t maximising the between-class
/// variance of the classes `..=t` and `t + 1..` (Otsu 1979), foreground
/// being above it, as [`Threshold::Otsu`] chooses it; 0 for an empty or
/// one-valued histogram. Public so that a reader that streams its input
/// (`ccl-scale`) chooses the same threshold from a histogram it counts
/// itself.
///
/// ```
/// // Two modes, around 10 and around 200: the darker one's top value.
/// let mut histogram = [0u64; 256];
/// histogram[9..=11].fill(5);
/// histogram[199..=201].fill(3);
/// assert_eq!(ccl_io::otsu_threshold(&histogram), 11);
/// ```
pub fn otsu_threshold(histogram: &[u64]) -> u32 {
    let total: u64 = histogram.iter().sum();
    let sum: f64 = histogram
        .iter()
        .enumerate()
        .map(|(v, &n)| v as f64 * n as f64)
        .sum();
    let (mut below, mut below_sum, mut best, mut best_variance) = (0u64, 0f64, 0, -1f64);
    for (t, &n) in histogram.iter().enumerate() {
        below += n;
        below_sum += t as f64 * n as f64;
        if below == 0 {
            continue;
        }
        if below == total {
            break;
        }
        let above = total - below;
        let mean_below = below_sum / below as f64;
        let mean_above = (sum - below_sum) / above as f64;
        let variance = below as f64 * above as f64 * (mean_below - mean_above).powi(2);
        if variance > best_variance {
            best_variance = variance;
            best = t as u32;
        }
    }
    best
}

/// Binarizes one image (a page of a file): a [`Binarizer`] of one page.
pub(crate) fn binarize(
    image: &DynamicImage,
    pbm: bool,
    binarization: Binarization,
    pages: usize,
) -> std::result::Result<Decoded, String> {
    let (width, height) = (image.width() as usize, image.height() as usize);
    let mut binarizer = Binarizer::new(binarization);
    binarizer.add_image(image, pbm)?;
    let binarized = binarizer.finish();
    let image_buf =
        BinaryImageBuf::from_pixels(binarized.pixels, width, height).map_err(|e| e.to_string())?;
    Ok(Decoded {
        image: image_buf,
        gray_levels: binarized.gray_levels,
        threshold: binarized.threshold,
        translucent: binarized.translucent,
        pages,
    })
}

/// The pages of an image or a volume binarized by one rule, one page after
/// another: the pixels of every page in order, and what binarizing found.
pub(crate) struct Binarized {
    /// 0 (background) or 1 (foreground), page after page.
    pub(crate) pixels: Vec<u8>,
    /// Distinct values of the binarized channel over every page, counted up
    /// to 3 (see [`Decoded::gray_levels`]).
    pub(crate) gray_levels: usize,
    /// The value foreground lies above, for the `Above` and `Otsu` rules.
    pub(crate) threshold: Option<u32>,
    /// Some page has an alpha channel with a value below fully opaque.
    pub(crate) translucent: bool,
}

/// Binarizes the pages of an image or a volume by one rule, one page at a
/// time: the rule and its threshold are the same for every page (Otsu's is
/// chosen from the histogram of them all), so that a volume is binarized as
/// one image would be, not slice by slice.
pub(crate) struct Binarizer {
    binarization: Binarization,
    /// The pixels decided so far, page after page (none under Otsu's rule
    /// until [`Binarizer::finish`]).
    pixels: Vec<u8>,
    /// Otsu's rule: the values of every page, kept until the threshold is
    /// known.
    pending: Vec<Gray<'static>>,
    /// Otsu's rule: the histogram of every page so far.
    histogram: Vec<u64>,
    /// Distinct values seen, up to 3.
    levels: Vec<u32>,
    /// The largest value the first page's samples can hold (255 or 65535):
    /// a threshold needs every page in one range.
    max: Option<u32>,
    translucent: bool,
}

impl Binarizer {
    pub(crate) fn new(binarization: Binarization) -> Self {
        Self {
            binarization,
            pixels: Vec::new(),
            pending: Vec::new(),
            histogram: Vec::new(),
            levels: Vec::with_capacity(3),
            max: None,
            translucent: false,
        }
    }

    /// Room for `pixels` pixels in all (a volume's, known from its header):
    /// the pixels are not moved as pages are added.
    pub(crate) fn reserve(&mut self, pixels: usize) {
        if self.binarization.threshold != Threshold::Otsu {
            self.pixels.reserve_exact(pixels);
        }
    }

    /// Adds a decoded page (`pbm`: of a PBM file, whose ink decodes as 0).
    ///
    /// # Errors
    /// A message (without the file's name) for [`Channel::Alpha`] and a
    /// page without alpha, a threshold at or above the page's range, or a
    /// threshold and a page whose range is not the first page's.
    pub(crate) fn add_image(
        &mut self,
        image: &DynamicImage,
        pbm: bool,
    ) -> std::result::Result<(), String> {
        let alpha = self.binarization.channel == Channel::Alpha;
        let gray = if alpha {
            Gray::alpha(image).ok_or_else(|| {
                format!(
                    "--alpha: the image has no alpha channel (it is {}); without --alpha, \
                     every nonzero pixel is foreground",
                    colour_name(image, pbm)
                )
            })?
        } else {
            Gray::of(image, pbm)
        };
        // The nonzero rule on colour asks whether any colour channel is
        // nonzero, decided at the image's own depth: a dark colour's luma
        // may round to 0.
        let colour_mask = (self.binarization.threshold == Threshold::Nonzero && !pbm && !alpha)
            .then(|| foreground(image));
        self.translucent |= translucent(image);
        let values = if alpha { "alpha values" } else { "gray values" };
        self.add(gray, colour_mask, values)
    }

    /// Adds values to binarize as they are (an 8- or 16-bit `.npy` array),
    /// `values` naming them in messages.
    ///
    /// # Errors
    /// As [`Binarizer::add_image`], less the alpha channel.
    pub(crate) fn add_gray(
        &mut self,
        gray: Gray<'_>,
        values: &str,
    ) -> std::result::Result<(), String> {
        self.add(gray, None, values)
    }

    fn add(
        &mut self,
        gray: Gray<'_>,
        colour_mask: Option<Vec<u8>>,
        values: &str,
    ) -> std::result::Result<(), String> {
        for v in gray.values() {
            if self.levels.len() == 3 {
                break;
            }
            if !self.levels.contains(&v) {
                self.levels.push(v);
            }
        }
        let max = *self.max.get_or_insert(gray.max());
        let threshold = self.binarization.threshold;
        if max != gray.max() && threshold != Threshold::Nonzero {
            return Err(format!(
                "its {values} run from 0 to {}, the first page's from 0 to {max}: one threshold \
                 needs pages of one bit depth",
                gray.max()
            ));
        }
        match threshold {
            Threshold::Nonzero => match colour_mask {
                Some(mask) => self.pixels.extend(mask),
                None => self.pixels.extend(gray.values().map(|v| u8::from(v != 0))),
            },
            Threshold::Above(t) => {
                if t >= gray.max() {
                    return Err(format!(
                        "threshold {t} leaves no foreground: {values} run from 0 to {}",
                        gray.max()
                    ));
                }
                self.pixels.extend(gray.values().map(|v| u8::from(v > t)));
            }
            Threshold::Otsu => {
                self.histogram.resize(max as usize + 1, 0);
                for v in gray.values() {
                    self.histogram[v as usize] += 1;
                }
                self.pending.push(gray.into_owned());
            }
        }
        Ok(())
    }

    /// The pixels of every page added, inverted if the rule says so.
    pub(crate) fn finish(mut self) -> Binarized {
        let threshold = match self.binarization.threshold {
            Threshold::Nonzero => None,
            Threshold::Above(t) => Some(t),
            Threshold::Otsu => {
                // No pages (an empty volume): 0, as for an empty image.
                let histogram = if self.histogram.is_empty() {
                    vec![0; 256]
                } else {
                    self.histogram
                };
                let t = otsu_threshold(&histogram);
                let total = self.pending.iter().map(|g| g.len()).sum();
                self.pixels.reserve_exact(total);
                for gray in self.pending {
                    self.pixels.extend(gray.values().map(|v| u8::from(v > t)));
                }
                Some(t)
            }
        };
        if self.binarization.invert {
            for p in &mut self.pixels {
                *p ^= 1;
            }
        }
        Binarized {
            pixels: self.pixels,
            gray_levels: self.levels.len(),
            threshold,
            translucent: self.translucent,
        }
    }
}

/// The image's layout in words, for messages.
fn colour_name(image: &DynamicImage, pbm: bool) -> String {
    if pbm {
        return "a 1-bit PBM".into();
    }
    let colour = image.color();
    let channels = match (colour.channel_count(), colour.has_alpha()) {
        (1, _) => "gray",
        (2, _) => "gray + alpha",
        (3, _) => "RGB",
        _ => "RGBA",
    };
    let bits = colour.bits_per_pixel() / u16::from(colour.channel_count());
    let float = matches!(
        image,
        DynamicImage::ImageRgb32F(_) | DynamicImage::ImageRgba32F(_)
    );
    format!("{bits}-bit {}{channels}", if float { "float " } else { "" })
}

/// Whether the image has an alpha channel with a value below fully opaque.
fn translucent(image: &DynamicImage) -> bool {
    fn any<P: Pixel>(image: &ImageBuffer<P, Vec<P::Subpixel>>) -> bool {
        let opaque = <P::Subpixel as Primitive>::DEFAULT_MAX_VALUE;
        P::HAS_ALPHA
            && image
                .pixels()
                .any(|p| p.channels()[usize::from(P::CHANNEL_COUNT) - 1] < opaque)
    }
    match image {
        DynamicImage::ImageLumaA8(b) => any(b),
        DynamicImage::ImageRgba8(b) => any(b),
        DynamicImage::ImageLumaA16(b) => any(b),
        DynamicImage::ImageRgba16(b) => any(b),
        DynamicImage::ImageRgba32F(b) => any(b),
        _ => false,
    }
}

/// 1 where any colour channel is nonzero, else 0, decided at the image's
/// own depth (converting 16-bit or colour input to 8-bit gray first would
/// turn small or dark-but-nonzero values into 0).
fn foreground(image: &DynamicImage) -> Vec<u8> {
    fn mask<P: Pixel>(image: &ImageBuffer<P, Vec<P::Subpixel>>) -> Vec<u8> {
        let colours = usize::from(P::CHANNEL_COUNT) - usize::from(P::HAS_ALPHA);
        let zero = <P::Subpixel as Primitive>::DEFAULT_MIN_VALUE;
        image
            .pixels()
            .map(|p| u8::from(p.channels()[..colours].iter().any(|&c| c != zero)))
            .collect()
    }
    match image {
        DynamicImage::ImageLuma8(b) => mask(b),
        DynamicImage::ImageLumaA8(b) => mask(b),
        DynamicImage::ImageRgb8(b) => mask(b),
        DynamicImage::ImageRgba8(b) => mask(b),
        DynamicImage::ImageLuma16(b) => mask(b),
        DynamicImage::ImageLumaA16(b) => mask(b),
        DynamicImage::ImageRgb16(b) => mask(b),
        DynamicImage::ImageRgba16(b) => mask(b),
        DynamicImage::ImageRgb32F(b) => mask(b),
        DynamicImage::ImageRgba32F(b) => mask(b),
        // `DynamicImage` is non-exhaustive; a future layout converts losslessly.
        other => mask(&other.to_rgba32f()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn otsu_splits_two_modes_between_them() {
        let mut histogram = vec![0u64; 256];
        histogram[30] = 500;
        histogram[31] = 100;
        histogram[200] = 300;
        histogram[205] = 50;
        let t = otsu_threshold(&histogram);
        assert!((31..200).contains(&t), "{t}");
        assert_eq!(otsu_threshold(&[0, 7, 0]), 0, "one value: no split");
        assert_eq!(otsu_threshold(&[]), 0);
    }

    #[test]
    fn float_alpha_is_foreground_where_not_zero() {
        // A TIFF of 32-bit floats is not written by `image`: the conversion
        // is tested directly.
        let float = image::DynamicImage::ImageRgba32F(
            image::ImageBuffer::from_raw(2, 1, vec![1.0, 1.0, 1.0, 1e-9, 1.0, 1.0, 1.0, 0.0])
                .unwrap(),
        );
        let gray = Gray::alpha(&float).unwrap();
        assert_eq!(gray.values().collect::<Vec<_>>(), [1, 0]);
    }
}
