//! The raster backend: drawing into an RGB image, anti-aliased. Each shape
//! finds how much of each pixel it covers and blends its colour over the
//! pixel by that much; text is rasterized from the embedded font.

use ab_glyph::Font;
use image::RgbImage;

use super::{Canvas, HAlign, Paint, Point, Rgb, Stroke, TextStyle, WHITE, font};

/// An image being drawn.
pub(crate) struct Raster {
    image: RgbImage,
}

impl Raster {
    /// A white image `width` × `height` pixels large.
    pub(crate) fn new(width: u32, height: u32) -> Self {
        let mut raster = Raster {
            image: RgbImage::new(width, height),
        };
        raster.fill(WHITE);
        raster
    }

    /// The finished image.
    pub(crate) fn into_image(self) -> RgbImage {
        self.image
    }

    /// Blends `colour` over pixel (`x`, `y`) by `coverage` (0 to 1); a
    /// pixel off the image is left alone.
    fn blend(&mut self, x: i64, y: i64, colour: Rgb, coverage: f64) {
        let (Ok(x), Ok(y)) = (u32::try_from(x), u32::try_from(y)) else {
            return;
        };
        if x >= self.image.width() || y >= self.image.height() || coverage <= 0.0 {
            return;
        }
        let coverage = coverage.min(1.0);
        let pixel = self.image.get_pixel_mut(x, y);
        for (channel, target) in pixel.0.iter_mut().zip([colour.0, colour.1, colour.2]) {
            let mixed = f64::from(*channel) * (1.0 - coverage) + f64::from(target) * coverage;
            *channel = mixed.round() as u8;
        }
    }

    /// The pixels that a shape within `low` to `high` (plus a pixel of
    /// anti-aliasing) may touch, clamped to the image: columns, then rows.
    fn span(&self, low: Point, high: Point) -> (std::ops::Range<i64>, std::ops::Range<i64>) {
        let clamp = |from: f64, to: f64, size: u32| {
            let from = (from.floor() as i64 - 1).max(0);
            let to = (to.ceil() as i64 + 1).min(i64::from(size));
            from..to.max(from)
        };
        (
            clamp(low.0, high.0, self.image.width()),
            clamp(low.1, high.1, self.image.height()),
        )
    }
}

impl Canvas for Raster {
    fn fill(&mut self, colour: Rgb) {
        for pixel in self.image.pixels_mut() {
            pixel.0 = [colour.0, colour.1, colour.2];
        }
    }

    fn polyline(&mut self, points: &[Point], stroke: Stroke) {
        let reach = stroke.width / 2.0;
        let low = points.iter().fold((f64::MAX, f64::MAX), |(x, y), p| {
            (x.min(p.0 - reach), y.min(p.1 - reach))
        });
        let high = points.iter().fold((f64::MIN, f64::MIN), |(x, y), p| {
            (x.max(p.0 + reach), y.max(p.1 + reach))
        });
        let (columns, rows) = self.span(low, high);
        // Each pixel's coverage by the nearest segment, gathered before any
        // is blended, so that a joint is not darkened twice.
        let width = usize::try_from(columns.end - columns.start).unwrap_or(0);
        let mut coverage =
            vec![0.0f64; width * usize::try_from(rows.end - rows.start).unwrap_or(0)];
        for pair in points.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            let (xs, ys) = self.span(
                (a.0.min(b.0) - reach, a.1.min(b.1) - reach),
                (a.0.max(b.0) + reach, a.1.max(b.1) + reach),
            );
            for y in ys {
                for x in xs.clone() {
                    let centre = (x as f64 + 0.5, y as f64 + 0.5);
                    let covered = (reach + 0.5 - distance(centre, a, b)).clamp(0.0, 1.0);
                    let at = (y - rows.start) as usize * width + (x - columns.start) as usize;
                    coverage[at] = coverage[at].max(covered);
                }
            }
        }
        for (at, &covered) in coverage.iter().enumerate() {
            let (x, y) = (at % width, at / width);
            let (x, y) = (columns.start + x as i64, rows.start + y as i64);
            self.blend(x, y, stroke.colour, covered);
        }
    }

    fn circle(&mut self, centre: Point, radius: f64, colour: Rgb) {
        let (columns, rows) = self.span(
            (centre.0 - radius, centre.1 - radius),
            (centre.0 + radius, centre.1 + radius),
        );
        for y in rows {
            for x in columns.clone() {
                let off = (x as f64 + 0.5 - centre.0).hypot(y as f64 + 0.5 - centre.1);
                self.blend(x, y, colour, radius + 0.5 - off);
            }
        }
    }

    fn rectangle(&mut self, corner: Point, opposite: Point, paint: Paint) {
        let (x0, x1) = (corner.0.min(opposite.0), corner.0.max(opposite.0));
        let (y0, y1) = (corner.1.min(opposite.1), corner.1.max(opposite.1));
        match paint {
            Paint::Fill(colour) => {
                let (columns, rows) = self.span((x0, y0), (x1, y1));
                // The share of a pixel [i, i + 1) inside [low, high].
                let inside = |i: i64, low: f64, high: f64| {
                    (high.min(i as f64 + 1.0) - low.max(i as f64)).clamp(0.0, 1.0)
                };
                for y in rows {
                    for x in columns.clone() {
                        self.blend(x, y, colour, inside(x, x0, x1) * inside(y, y0, y1));
                    }
                }
            }
            Paint::Outline(stroke) => {
                let corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)];
                self.polyline(&corners, stroke);
            }
        }
    }

    fn text(&mut self, at: Point, text: &str, style: TextStyle) {
        let offset = match style.horizontal {
            HAlign::Left => 0.0,
            HAlign::Centre => -font::text_width(text, style.size) / 2.0,
            HAlign::Right => -font::text_width(text, style.size),
        };
        let baseline = font::baseline(style.vertical, style.size);
        // The text is set level in its own frame, from a whole pixel
        // `origin` of the canvas (the anchor's fraction of a pixel goes into
        // the glyphs' positions), and each of its pixels is put where that
        // frame lies on the canvas: the same place, or turned by 270° about
        // the origin, (u, v) going to (v, −u).
        let (origin, anchor) = if style.upward {
            let origin = (at.0.floor(), at.1.ceil());
            (origin, (origin.1 - at.1, at.0 - origin.0))
        } else {
            let origin = (at.0.floor(), at.1.floor());
            (origin, (at.0 - origin.0, at.1 - origin.1))
        };
        let (ox, oy) = (origin.0 as i64, origin.1 as i64);
        let glyphs = font::glyphs(text, style.size, (anchor.0 + offset, anchor.1 + baseline));
        for glyph in glyphs {
            let Some(outline) = font::font().outline_glyph(glyph) else {
                // A space has no outline.
                continue;
            };
            let bounds = outline.px_bounds();
            let (left, top) = (bounds.min.x as i64, bounds.min.y as i64);
            let mut covered = Vec::new();
            outline.draw(|x, y, coverage| {
                covered.push((left + i64::from(x), top + i64::from(y), coverage));
            });
            for (u, v, coverage) in covered {
                let (x, y) = if style.upward {
                    (ox + v, oy - u - 1)
                } else {
                    (ox + u, oy + v)
                };
                self.blend(x, y, super::BLACK, f64::from(coverage));
            }
        }
    }
}

/// The distance from `point` to the segment from `a` to `b`.
fn distance(point: Point, a: Point, b: Point) -> f64 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let length = dx * dx + dy * dy;
    let t = if length > 0.0 {
        (((point.0 - a.0) * dx + (point.1 - a.1) * dy) / length).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (point.0 - a.0 - t * dx).hypot(point.1 - a.1 - t * dy)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::{BLACK, VAlign};

    const WHITE_PIXEL: [u8; 3] = [255, 255, 255];

    fn pixel(image: &RgbImage, x: u32, y: u32) -> [u8; 3] {
        image.get_pixel(x, y).0
    }

    /// Whether anything but white lies in the columns `xs` and rows `ys`.
    fn inked(image: &RgbImage, xs: std::ops::Range<u32>, ys: std::ops::Range<u32>) -> bool {
        ys.flat_map(|y| xs.clone().map(move |x| (x, y)))
            .any(|(x, y)| pixel(image, x, y) != WHITE_PIXEL)
    }

    #[test]
    fn lines_dots_and_rectangles_land_where_they_are_drawn() {
        let mut raster = Raster::new(100, 60);
        raster.polyline(&[(10.0, 10.5), (90.0, 10.5)], Stroke::new(BLACK, 1.0));
        raster.polyline(
            &[(10.0, 20.0), (90.0, 40.0)],
            Stroke::new(Rgb(31, 119, 180), 2.0),
        );
        raster.circle((50.0, 50.0), 3.0, Rgb(255, 0, 0));
        raster.rectangle((70.0, 45.0), (80.0, 55.0), Paint::Fill(Rgb(0, 128, 0)));
        raster.rectangle(
            (2.0, 2.0),
            (5.0, 5.0),
            Paint::Outline(Stroke::new(BLACK, 1.0)),
        );
        let image = raster.into_image();
        // A line along a pixel row's centre is crisp: that row, nothing beside.
        assert_eq!(pixel(&image, 50, 10), [0, 0, 0]);
        assert_eq!(pixel(&image, 50, 9), WHITE_PIXEL);
        assert_eq!(pixel(&image, 50, 11), WHITE_PIXEL);
        // The slanted line passes (50, 30), in its colour.
        assert_eq!(pixel(&image, 50, 30), [31, 119, 180]);
        assert!(!inked(&image, 40..60, 35..40));
        assert_eq!(pixel(&image, 50, 50), [255, 0, 0]);
        assert_eq!(pixel(&image, 75, 50), [0, 128, 0]);
        assert_eq!(pixel(&image, 80, 50), WHITE_PIXEL);
        assert!(inked(&image, 1..3, 3..4) && !inked(&image, 3..4, 3..4));
        assert!(!inked(&image, 0..100, 58..60));
    }

    #[test]
    fn text_is_drawn_at_its_anchor_level_or_upward() {
        let mut raster = Raster::new(200, 100);
        let style = TextStyle::new(20.0, HAlign::Left, VAlign::Top);
        raster.text((10.0, 10.0), "Hello", style);
        raster.text((150.0, 90.0), "up", style.upward());
        let image = raster.into_image();
        // "Hello" hangs below (10, 10), about 50 pixels wide.
        assert!(inked(&image, 10..60, 10..30));
        assert!(!inked(&image, 0..200, 0..8));
        assert!(!inked(&image, 70..140, 0..100));
        // "up" runs upwards from (150, 90), to the right of it.
        assert!(inked(&image, 150..170, 65..90));
        assert!(!inked(&image, 140..148, 0..100));
        assert!(!inked(&image, 140..200, 91..100));
    }
}
