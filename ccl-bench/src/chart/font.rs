//! The embedded font: DejaVu Sans cut down to the characters plots use (see
//! `assets/`), so that a PNG's text needs no system font. Its metrics also
//! place SVG text, whose viewer's sans-serif is much like it, so that both
//! backends set a text alike.

use std::sync::LazyLock;

use ab_glyph::{Font, FontRef, Glyph, PxScale, point};

use super::VAlign;

/// The font file.
static DATA: &[u8] = include_bytes!("../../assets/DejaVuSans-subset.ttf");

/// The parsed font.
static FONT: LazyLock<FontRef<'static>> =
    LazyLock::new(|| FontRef::try_from_slice(DATA).expect("the embedded font is valid TrueType"));

/// Font units per em.
fn units_per_em() -> f64 {
    f64::from(FONT.units_per_em().unwrap_or(2048.0))
}

/// How far below a text's anchor its baseline lies, for text of `size`
/// pixels anchored as `vertical` says (negative: above).
pub(super) fn baseline(vertical: VAlign, size: f64) -> f64 {
    let em = size / units_per_em();
    let ascent = f64::from(FONT.ascent_unscaled()) * em;
    // Below the baseline, so negative.
    let descent = f64::from(FONT.descent_unscaled()) * em;
    match vertical {
        VAlign::Top => ascent,
        VAlign::Centre => (ascent + descent) / 2.0,
        VAlign::Bottom => descent,
    }
}

/// The width in pixels of `text` set at `size` pixels.
pub(crate) fn text_width(text: &str, size: f64) -> f64 {
    let em = size / units_per_em();
    text.chars()
        .map(|c| f64::from(FONT.h_advance_unscaled(FONT.glyph_id(c))) * em)
        .sum()
}

/// The glyphs of `text` at `size` pixels, their baseline starting at
/// `origin`: each advanced by the one before. The cut has no kerning table
/// (see `assets/`), so the advances are all there is to it.
pub(super) fn glyphs(text: &str, size: f64, origin: (f64, f64)) -> Vec<Glyph> {
    // ab_glyph scales by the height from descent to ascent, not by the em.
    let height = f64::from(FONT.ascent_unscaled() - FONT.descent_unscaled());
    let scale = PxScale::from((size * height / units_per_em()) as f32);
    let em = size / units_per_em();
    let mut x = origin.0;
    text.chars()
        .map(|c| {
            let id = FONT.glyph_id(c);
            let glyph = id.with_scale_and_position(scale, point(x as f32, origin.1 as f32));
            x += f64::from(FONT.h_advance_unscaled(id)) * em;
            glyph
        })
        .collect()
}

/// The font that draws [`glyphs`].
pub(super) fn font() -> &'static FontRef<'static> {
    &FONT
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_font_has_the_plots_characters_and_measures_them() {
        for c in "0123456789 abc ×–≥≈µ²".chars() {
            assert_ne!(FONT.glyph_id(c).0, 0, "no glyph for {c:?}");
        }
        let one = text_width("1", 10.0);
        assert!(one > 4.0 && one < 8.0, "{one}");
        assert!((text_width("11", 10.0) - 2.0 * one).abs() < 1e-9);
        assert!(baseline(VAlign::Top, 10.0) > 8.0);
        assert!(baseline(VAlign::Bottom, 10.0) < -1.0);
    }
}
