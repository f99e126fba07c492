//! The drawing layer of the harness's plots: a [`Canvas`] that draws lines,
//! dots, rectangles and text, written out as SVG ([`Svg`]) or drawn into an
//! RGB image ([`Raster`]), and [`Axes`] that map data onto a panel of it.
//!
//! In-house rather than a plotting crate: the `ccl` tool depends on this
//! crate, and its plots need a few primitives, not a charting library's
//! dependency tree.
//!
//! Coordinates are in pixels, x rightwards and y downwards from the
//! canvas's top left corner; pixel (i, j) covers [i, i + 1) × [j, j + 1), so
//! a line of width 1 is crisp where it runs along a pixel's centre,
//! `n + 0.5`, as in SVG.

mod axes;
mod font;
mod raster;
mod svg;

pub(crate) use axes::{Axes, Axis};
pub(crate) use font::text_width;
pub(crate) use raster::Raster;
pub(crate) use svg::Svg;

/// A colour, eight bits a channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Rgb(pub u8, pub u8, pub u8);

/// White, the background of every plot.
pub(crate) const WHITE: Rgb = Rgb(255, 255, 255);
/// Black, of text, axes and ticks.
pub(crate) const BLACK: Rgb = Rgb(0, 0, 0);

/// A point on the canvas, in pixels.
pub(crate) type Point = (f64, f64);

/// How a line is drawn: its colour and width in pixels. Ends and joints
/// are round.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Stroke {
    /// The line's colour.
    pub colour: Rgb,
    /// The line's width in pixels.
    pub width: f64,
}

impl Stroke {
    /// A line of `colour`, `width` pixels wide.
    pub(crate) fn new(colour: Rgb, width: f64) -> Self {
        Stroke { colour, width }
    }
}

/// How a rectangle is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Paint {
    /// Filled with a colour.
    Fill(Rgb),
    /// Its outline drawn with a stroke.
    Outline(Stroke),
}

/// Where a text's anchor point is, across it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HAlign {
    /// At its start: the text runs to the right of the anchor.
    Left,
    /// At its middle.
    Centre,
    /// At its end: the text runs up to the anchor.
    Right,
}

/// Where a text's anchor point is, along its height: the font's ascent
/// and descent bound the text, whatever its letters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VAlign {
    /// At the ascent: the text hangs below the anchor.
    Top,
    /// Midway between ascent and descent.
    Centre,
    /// At the descent: the text stands on the anchor.
    Bottom,
}

/// How a text is set. Text is black, in the embedded DejaVu Sans (or, in
/// SVG, the viewer's sans-serif).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct TextStyle {
    /// The font size (the em) in pixels.
    pub size: f64,
    /// The anchor across the text.
    pub horizontal: HAlign,
    /// The anchor along the text's height.
    pub vertical: VAlign,
    /// Whether the text runs upwards (turned by 270°, for a y axis'
    /// description); the alignments hold in the text's own frame.
    pub upward: bool,
}

impl TextStyle {
    /// Level text of `size` pixels, anchored as `horizontal` and `vertical` say.
    pub(crate) fn new(size: f64, horizontal: HAlign, vertical: VAlign) -> Self {
        TextStyle {
            size,
            horizontal,
            vertical,
            upward: false,
        }
    }

    /// The same text, running upwards.
    pub(crate) fn upward(self) -> Self {
        TextStyle {
            upward: true,
            ..self
        }
    }
}

/// A rectangle of the canvas, in pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Area {
    /// Its left edge.
    pub left: f64,
    /// Its top edge.
    pub top: f64,
    /// Its right edge.
    pub right: f64,
    /// Its bottom edge.
    pub bottom: f64,
}

impl Area {
    /// `count` areas of equal width side by side, filling this one.
    pub(crate) fn columns(&self, count: usize) -> Vec<Area> {
        let width = (self.right - self.left) / count as f64;
        (0..count)
            .map(|i| Area {
                left: self.left + width * i as f64,
                right: self.left + width * (i + 1) as f64,
                ..*self
            })
            .collect()
    }
}

/// The middle of the pixel row or column that `position` falls in: where a
/// line of width 1 is crisp.
pub(crate) fn crisp(position: f64) -> f64 {
    position.floor() + 0.5
}

/// Something to draw on: an SVG document or an image.
pub(crate) trait Canvas {
    /// Paints the whole canvas with `colour`.
    fn fill(&mut self, colour: Rgb);

    /// Draws straight lines through `points`, in order.
    fn polyline(&mut self, points: &[Point], stroke: Stroke);

    /// Draws a dot of `radius` pixels around `centre`.
    fn circle(&mut self, centre: Point, radius: f64, colour: Rgb);

    /// Draws the axis-aligned rectangle with opposite corners `corner` and
    /// `opposite`.
    fn rectangle(&mut self, corner: Point, opposite: Point, paint: Paint);

    /// Writes `text` anchored at `at`.
    fn text(&mut self, at: Point, text: &str, style: TextStyle);

    /// Draws the lines through `points` dashed: `dash` pixels drawn, `gap`
    /// pixels left out, the pattern running on across the points.
    fn dashed(&mut self, points: &[Point], dash: f64, gap: f64, stroke: Stroke) {
        for piece in dashes(points, dash, gap) {
            self.polyline(&piece, stroke);
        }
    }
}

/// The drawn pieces of the lines through `points` dashed with `dash` drawn
/// and `gap` left out: each piece a polyline, so that a dash bends where
/// the line does.
fn dashes(points: &[Point], dash: f64, gap: f64) -> Vec<Vec<Point>> {
    let mut pieces = Vec::new();
    // The piece being drawn, or none within a gap, and how far the current
    // dash or gap still runs.
    let mut piece: Option<Vec<Point>> = points.first().map(|&start| vec![start]);
    let mut left = dash;
    for pair in points.windows(2) {
        let ((x0, y0), (x1, y1)) = (pair[0], pair[1]);
        let length = (x1 - x0).hypot(y1 - y0);
        let mut done = 0.0;
        while length - done > left {
            done += left;
            let t = done / length;
            let at = (x0 + t * (x1 - x0), y0 + t * (y1 - y0));
            match piece.take() {
                Some(mut drawn) => {
                    drawn.push(at);
                    pieces.push(drawn);
                    left = gap;
                }
                None => {
                    piece = Some(vec![at]);
                    left = dash;
                }
            }
        }
        left -= length - done;
        if let Some(drawn) = &mut piece {
            drawn.push((x1, y1));
        }
    }
    pieces.extend(piece.filter(|drawn| drawn.len() > 1));
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dashes_alternate_and_run_on_across_corners() {
        let pieces = dashes(&[(0.0, 0.0), (10.0, 0.0), (10.0, 10.0)], 6.0, 4.0);
        assert_eq!(
            pieces,
            [vec![(0.0, 0.0), (6.0, 0.0)], vec![(10.0, 0.0), (10.0, 6.0)],]
        );
        // A dash that turns a corner bends with it.
        let pieces = dashes(&[(0.0, 0.0), (4.0, 0.0), (4.0, 4.0)], 6.0, 4.0);
        assert_eq!(pieces, [vec![(0.0, 0.0), (4.0, 0.0), (4.0, 2.0)]]);
    }

    #[test]
    fn columns_split_an_area_evenly() {
        let area = Area {
            left: 10.0,
            top: 0.0,
            right: 40.0,
            bottom: 5.0,
        };
        let columns = area.columns(3);
        assert_eq!(columns.len(), 3);
        assert_eq!((columns[1].left, columns[1].right), (20.0, 30.0));
        assert_eq!((columns[2].top, columns[2].bottom), (0.0, 5.0));
    }
}
