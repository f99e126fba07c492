//! Axes on a panel: a caption above, a framed plotting area with grid
//! lines, tick marks and labels at the bottom and left, and the axes'
//! descriptions; and the mapping of data onto the plotting area.

use super::{
    Area, BLACK, Canvas, HAlign, Paint, Point, Rgb, Stroke, TextStyle, VAlign, crisp, font,
};

/// Room around a panel's content, in pixels.
const MARGIN: f64 = 10.0;
/// Length of a tick mark.
const TICK: f64 = 5.0;
/// Room between a tick mark and its label, between a caption and the
/// plotting area, and between two labels side by side.
const GAP: f64 = 5.0;
/// Font size of a caption.
const CAPTION_SIZE: f64 = 14.5;
/// Font size of tick labels.
const LABEL_SIZE: f64 = 12.0;
/// Font size of the axes' descriptions.
const DESCRIPTION_SIZE: f64 = 13.0;
/// Light grey of the grid lines: under the data, and not to be read as it.
const GRID: Rgb = Rgb(204, 204, 204);
/// The most labels [`Axis::round`] puts on an axis.
const MAX_ROUND_TICKS: f64 = 10.0;

/// How values map onto an axis.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Scale {
    /// Evenly, from `.0` to `.1`.
    Linear(f64, f64),
    /// By their logarithm, from `.0` to `.1` (both positive).
    Log(f64, f64),
}

impl Scale {
    /// Where `value` lies along the axis, from 0 at its low end to 1 at its
    /// high end; an axis of no length puts every value in its middle.
    fn fraction(self, value: f64) -> f64 {
        let (value, low, high) = match self {
            Scale::Linear(low, high) => (value, low, high),
            Scale::Log(low, high) => (value.log10(), low.log10(), high.log10()),
        };
        if high == low {
            0.5
        } else {
            (value - low) / (high - low)
        }
    }
}

/// One axis of a panel: its scale, where it is labelled and how, whether
/// grid lines cross the plotting area at its labels, and its description.
pub(crate) struct Axis {
    scale: Scale,
    ticks: Vec<(f64, String)>,
    grid: bool,
    description: Option<String>,
}

impl Axis {
    /// A linear axis from `low` to `high`, labelled with `label` at `count`
    /// evenly spaced values from `low` to `high`.
    pub(crate) fn linear(low: f64, high: f64, count: usize, label: impl Fn(f64) -> String) -> Self {
        let step = (high - low) / count.saturating_sub(1).max(1) as f64;
        let values = (0..count).map(|i| low + step * i as f64);
        Axis::labelled(Scale::Linear(low, high), values, label)
    }

    /// A linear axis from `low` to `high`, labelled with `label` at the
    /// multiples of the smallest round step (1, 2 or 5 times a power of
    /// ten) that puts at most ten labels on it.
    pub(crate) fn round(low: f64, high: f64, label: impl Fn(f64) -> String) -> Self {
        let step = round_step(high - low);
        let first = (low / step).ceil() as i64;
        let last = (high / step).floor() as i64;
        let values = (first..=last).map(|k| k as f64 * step);
        Axis::labelled(Scale::Linear(low, high), values, label)
    }

    /// A logarithmic axis over `range` (both ends positive), labelled with
    /// `label` at `keys`.
    pub(crate) fn log(range: (f64, f64), keys: &[f64], label: impl Fn(f64) -> String) -> Self {
        Axis::labelled(Scale::Log(range.0, range.1), keys.iter().copied(), label)
    }

    /// An axis of categories: `names` at 0, 1, 2, …, each in the middle of
    /// a slot of width 1, without grid lines (between bars they would only
    /// clutter).
    pub(crate) fn categories(names: &[String]) -> Self {
        Axis {
            scale: Scale::Linear(-0.5, names.len() as f64 - 0.5),
            ticks: names
                .iter()
                .cloned()
                .enumerate()
                .map(|(i, name)| (i as f64, name))
                .collect(),
            grid: false,
            description: None,
        }
    }

    /// The same axis, described by `text` (what it measures, and in what).
    pub(crate) fn described(self, text: &str) -> Self {
        Axis {
            description: Some(text.to_string()),
            ..self
        }
    }

    /// An axis of `scale` with grid lines, labelled at `values` by `label`.
    fn labelled(
        scale: Scale,
        values: impl Iterator<Item = f64>,
        label: impl Fn(f64) -> String,
    ) -> Self {
        Axis {
            scale,
            ticks: values.map(|value| (value, label(value))).collect(),
            grid: true,
            description: None,
        }
    }
}

/// The smallest of 1, 2 and 5 times a power of ten that divides `span`
/// into at most [`MAX_ROUND_TICKS`] steps.
fn round_step(span: f64) -> f64 {
    if span <= 0.0 || !span.is_finite() {
        return 1.0;
    }
    let exponent = (span / MAX_ROUND_TICKS).log10().floor() as i32;
    // Divided rather than multiplied by a negative power, so that 0.2 is
    // the float nearest 0.2.
    let times_power = |digit: f64| {
        if exponent < 0 {
            digit / 10f64.powi(-exponent)
        } else {
            digit * 10f64.powi(exponent)
        }
    };
    [1.0, 2.0, 5.0]
        .into_iter()
        .map(times_power)
        .find(|&step| span / step <= MAX_ROUND_TICKS + 1e-9)
        .unwrap_or_else(|| times_power(10.0))
}

/// A panel's axes, laid out: the plotting area is what the panel leaves
/// after its margin, caption, labels and descriptions.
pub(crate) struct Axes {
    panel: Area,
    plot: Area,
    caption: String,
    x: Axis,
    y: Axis,
    /// Rows of x labels: two, staggered, where side by side they would
    /// overlap.
    x_rows: usize,
}

impl Axes {
    /// Lays out axes `x` and `y` with `caption` above them on `panel`.
    pub(crate) fn new(panel: Area, caption: &str, x: Axis, y: Axis) -> Self {
        let description = line_height(DESCRIPTION_SIZE) + GAP;
        let widest = y
            .ticks
            .iter()
            .map(|(_, text)| font::text_width(text, LABEL_SIZE))
            .fold(0.0, f64::max);
        let y_room = if y.description.is_some() {
            description
        } else {
            0.0
        };
        let x_room = if x.description.is_some() {
            description
        } else {
            0.0
        };
        // Whole pixels, so that the frame and the bars on it are crisp.
        let left = (panel.left + MARGIN + y_room + widest + TICK + GAP).round();
        let right = (panel.right - MARGIN).round();
        let top = (panel.top + MARGIN + line_height(CAPTION_SIZE) + GAP).round();
        let x_rows = if overlap(&x, right - left) { 2 } else { 1 };
        let bottom =
            panel.bottom - MARGIN - x_room - x_rows as f64 * line_height(LABEL_SIZE) - TICK - GAP;
        Axes {
            panel,
            plot: Area {
                left,
                top,
                right,
                bottom: bottom.round(),
            },
            caption: caption.to_string(),
            x,
            y,
            x_rows,
        }
    }

    /// Where the data point (`x`, `y`) lies on the canvas.
    pub(crate) fn at(&self, (x, y): (f64, f64)) -> Point {
        (self.column(x), self.row(y))
    }

    /// Where the x value `x` lies across the canvas.
    fn column(&self, x: f64) -> f64 {
        let Area { left, right, .. } = self.plot;
        left + self.x.scale.fraction(x) * (right - left)
    }

    /// Where the y value `y` lies down the canvas.
    fn row(&self, y: f64) -> f64 {
        let Area { top, bottom, .. } = self.plot;
        bottom - self.y.scale.fraction(y) * (bottom - top)
    }

    /// Draws the caption, grid lines, frame, ticks, labels and
    /// descriptions; the data goes on top.
    pub(crate) fn draw(&self, canvas: &mut impl Canvas) {
        let Area {
            left,
            top,
            right,
            bottom,
        } = self.plot;
        let middle = ((left + right) / 2.0, (top + bottom) / 2.0);
        canvas.text(
            (middle.0, self.panel.top + MARGIN),
            &self.caption,
            TextStyle::new(CAPTION_SIZE, HAlign::Centre, VAlign::Top),
        );
        let thin = Stroke::new(BLACK, 1.0);
        let grid = Stroke::new(GRID, 1.0);
        let xs: Vec<(f64, &str)> = self
            .x
            .ticks
            .iter()
            .map(|(value, text)| (crisp(self.column(*value)), text.as_str()))
            .collect();
        let ys: Vec<(f64, &str)> = self
            .y
            .ticks
            .iter()
            .map(|(value, text)| (crisp(self.row(*value)), text.as_str()))
            .collect();
        if self.x.grid {
            for &(x, _) in &xs {
                canvas.polyline(&[(x, top), (x, bottom)], grid);
            }
        }
        if self.y.grid {
            for &(y, _) in &ys {
                canvas.polyline(&[(left, y), (right, y)], grid);
            }
        }
        canvas.rectangle(
            (crisp(left), crisp(top)),
            (crisp(right), crisp(bottom)),
            Paint::Outline(thin),
        );
        let label_height = line_height(LABEL_SIZE);
        for (i, &(x, text)) in xs.iter().enumerate() {
            let y = crisp(bottom);
            canvas.polyline(&[(x, y), (x, y + TICK)], thin);
            let row = (i % self.x_rows) as f64;
            canvas.text(
                (x, y + TICK + GAP + row * label_height),
                text,
                TextStyle::new(LABEL_SIZE, HAlign::Centre, VAlign::Top),
            );
        }
        for &(y, text) in &ys {
            let x = crisp(left);
            canvas.polyline(&[(x - TICK, y), (x, y)], thin);
            canvas.text(
                (x - TICK - GAP, y),
                text,
                TextStyle::new(LABEL_SIZE, HAlign::Right, VAlign::Centre),
            );
        }
        if let Some(text) = &self.x.description {
            canvas.text(
                (middle.0, self.panel.bottom - MARGIN),
                text,
                TextStyle::new(DESCRIPTION_SIZE, HAlign::Centre, VAlign::Bottom),
            );
        }
        if let Some(text) = &self.y.description {
            canvas.text(
                (self.panel.left + MARGIN, middle.1),
                text,
                TextStyle::new(DESCRIPTION_SIZE, HAlign::Centre, VAlign::Top).upward(),
            );
        }
    }

    /// Draws a bar of `colour` centred on `x`, `half_width` to either side
    /// (in x units), from `low` to `high` (in y units). Its edges are
    /// rounded to whole pixels, so that stacked bars meet without a seam.
    pub(crate) fn bar(
        &self,
        canvas: &mut impl Canvas,
        x: f64,
        half_width: f64,
        (low, high): (f64, f64),
        colour: Rgb,
    ) {
        let (x0, y0) = self.at((x - half_width, low));
        let (x1, y1) = self.at((x + half_width, high));
        canvas.rectangle(
            (x0.round(), y0.round()),
            (x1.round(), y1.round()),
            Paint::Fill(colour),
        );
    }

    /// The width on the canvas of `span` x units (of a linear x axis).
    pub(crate) fn x_width(&self, span: f64) -> f64 {
        self.column(span) - self.column(0.0)
    }
}

/// The height of a line of text of `size` pixels, from descent to ascent.
fn line_height(size: f64) -> f64 {
    font::baseline(VAlign::Top, size) - font::baseline(VAlign::Bottom, size)
}

/// Whether two neighbouring labels of the x axis `x` would overlap on a
/// plotting area `width` pixels wide.
fn overlap(x: &Axis, width: f64) -> bool {
    x.ticks.windows(2).any(|pair| {
        let [(a, left), (b, right)] = pair else {
            return false;
        };
        let apart = (x.scale.fraction(*b) - x.scale.fraction(*a)).abs() * width;
        let needed =
            (font::text_width(left, LABEL_SIZE) + font::text_width(right, LABEL_SIZE)) / 2.0;
        needed + GAP > apart
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::Svg;

    fn panel() -> Area {
        Area {
            left: 0.0,
            top: 0.0,
            right: 400.0,
            bottom: 300.0,
        }
    }

    #[test]
    fn round_steps_give_at_most_ten_labels() {
        assert_eq!(round_step(1.87), 0.2);
        assert_eq!(round_step(4.4), 0.5);
        assert_eq!(round_step(10.0), 1.0);
        assert_eq!(round_step(0.0), 1.0);
        let axis = Axis::round(0.0, 1.87, |v| format!("{v:.1}"));
        let labels: Vec<&str> = axis.ticks.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(
            labels,
            [
                "0.0", "0.2", "0.4", "0.6", "0.8", "1.0", "1.2", "1.4", "1.6", "1.8"
            ]
        );
    }

    #[test]
    fn data_maps_onto_the_plotting_area() {
        let x = Axis::linear(0.0, 100.0, 11, |d| format!("{d:.0}")).described("density (%)");
        let y = Axis::log((1.0, 100.0), &[1.0, 10.0, 100.0], |v| v.to_string());
        let axes = Axes::new(panel(), "g = 1", x, y);
        let plot = axes.plot;
        assert!(plot.left > MARGIN && plot.right == 390.0, "{plot:?}");
        assert!(
            plot.top > MARGIN && plot.bottom < 300.0 - MARGIN,
            "{plot:?}"
        );
        assert_eq!(axes.at((0.0, 1.0)), (plot.left, plot.bottom));
        assert_eq!(axes.at((100.0, 100.0)), (plot.right, plot.top));
        let (_, middle) = axes.at((50.0, 10.0));
        assert!((middle - (plot.top + plot.bottom) / 2.0).abs() < 1e-9);
        assert_eq!(axes.x_rows, 1);
    }

    #[test]
    fn axes_draw_their_caption_labels_and_descriptions() {
        let x = Axis::categories(&["a".into(), "b".into()]);
        let y = Axis::round(0.0, 2.0, |v| format!("{v}")).described("time (ms)");
        let axes = Axes::new(panel(), "g = 4", x, y);
        let mut svg = Svg::new(400, 300);
        axes.draw(&mut svg);
        let svg = svg.finish();
        for text in [">g = 4<", ">a<", ">b<", ">0<", ">2<", ">time (ms)<"] {
            assert!(svg.contains(text), "no {text} in {svg}");
        }
        // A frame, and grid lines across the y labels only.
        assert_eq!(svg.matches("<rect ").count(), 1);
        assert_eq!(svg.matches("stroke=\"#CCCCCC\"").count(), 11);
    }

    #[test]
    fn crowded_labels_are_staggered() {
        let names: Vec<String> = (0..12).map(|i| format!("variant-{i}")).collect();
        let axes = Axes::new(
            panel(),
            "",
            Axis::categories(&names),
            Axis::round(0.0, 1.0, |v| v.to_string()),
        );
        assert_eq!(axes.x_rows, 2);
    }
}
