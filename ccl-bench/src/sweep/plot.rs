//! Plots of a sweep, written into its folder for each task and connectivity
//! measured, each as SVG (small, its text left to the viewer's fonts: these
//! are committed) and PNG (its text drawn with an embedded cut of DejaVu
//! Sans, so that no system font is needed):
//!
//! - `time-<task>-<c>conn`: median time against density, one panel per
//!   granularity, one line per variant (the seeds' Fig. 5 and 7);
//! - `stages-<task>-<c>conn`: for each variant and granularity, the mean over
//!   the densities of each stage's median time, stacked.
//!
//! A plot shows one sweep: one measurement per variant, granularity and
//! density.

mod stages;
mod time;

use std::path::{Path, PathBuf};
use std::sync::Once;

use ccl_core::{Connectivity, Task};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{Measurement, SweepError};

/// Every plot's size in pixels: three panels and a legend side by side.
const SIZE: (u32, u32) = (1280, 460);
/// Width of the legend column at the right of every plot.
const LEGEND_WIDTH: u32 = 190;
/// The family every text is drawn in; the embedded font is registered under it.
const FONT_FAMILY: &str = "sans-serif";
/// DejaVu Sans cut down to the characters plots use (see `assets/`).
static FONT: &[u8] = include_bytes!("../../assets/DejaVuSans-subset.ttf");

/// Tableau's ten colours: distinct for readers with common colour-vision
/// deficiencies, in the order matplotlib uses them.
pub(crate) const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// Writes the plots of `measurements` into `dir` (created if missing): a
/// time and a stage plot, as SVG and PNG, for each task and connectivity
/// measured. Returns the paths written.
///
/// # Errors
/// A folder or file that cannot be written, or a drawing that fails.
pub fn write(measurements: &[Measurement], dir: &Path) -> Result<Vec<PathBuf>, SweepError> {
    register_font();
    std::fs::create_dir_all(dir).map_err(SweepError::io(dir))?;
    // Colours follow the variant's place among all of the sweep's variants,
    // so that a variant keeps its colour from plot to plot.
    let variants = distinct(measurements.iter().map(|m| m.variant.as_str()));
    // The plots are over density: pattern images are in their own table.
    let measurements: Vec<Measurement> = measurements
        .iter()
        .filter(|m| m.pattern.is_none())
        .cloned()
        .collect();
    let mut written = Vec::new();
    for (task, connectivity) in distinct(measurements.iter().map(|m| (m.task, m.connectivity))) {
        let group: Vec<&Measurement> = measurements
            .iter()
            .filter(|m| m.task == task && m.connectivity == connectivity)
            .collect();
        let heading = heading(task, connectivity, &group);
        let stem = format!("{task}-{connectivity}conn");
        let time = time::TimeFigure::new(&heading, &group, &variants);
        written.extend(save(&time, dir, &format!("time-{stem}"))?);
        let stages = stages::StageFigure::new(&heading, &group);
        written.extend(save(&stages, dir, &format!("stages-{stem}"))?);
    }
    Ok(written)
}

/// A plot that draws itself on any plotters backend.
pub(crate) trait Figure {
    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>>;
}

/// Draws `figure` into `<stem>.svg` and `<stem>.png` in `dir`.
fn save(figure: &impl Figure, dir: &Path, stem: &str) -> Result<[PathBuf; 2], SweepError> {
    let svg_path = dir.join(format!("{stem}.svg"));
    save_svg(figure, &svg_path)?;

    // Drawn into memory and encoded with the workspace's `image`, rather
    // than plotters' own encoder, which would build a second `image`.
    let png_path = dir.join(format!("{stem}.png"));
    let (width, height) = SIZE;
    let mut pixels = vec![0; width as usize * height as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut pixels, SIZE).into_drawing_area();
        figure
            .draw(&root)
            .and_then(|()| root.present())
            .map_err(|e| plot_failed(&png_path, &e))?;
    }
    image::save_buffer(&png_path, &pixels, width, height, image::ColorType::Rgb8)
        .map_err(|e| plot_failed(&png_path, &e))?;
    Ok([svg_path, png_path])
}

/// Draws `figure` as SVG into the file `path`.
pub(crate) fn save_svg(figure: &impl Figure, path: &Path) -> Result<(), SweepError> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        figure
            .draw(&root)
            .and_then(|()| root.present())
            .map_err(|e| plot_failed(path, &e))?;
    }
    std::fs::write(path, svg).map_err(SweepError::io(path))
}

/// The error of a drawing of `path` that failed with `error`.
fn plot_failed(path: &Path, error: &dyn std::fmt::Display) -> SweepError {
    SweepError::Plot {
        path: path.to_path_buf(),
        message: error.to_string(),
    }
}

/// Makes the embedded font the one plotters lays out and draws text with.
pub(crate) fn register_font() {
    static REGISTER: Once = Once::new();
    REGISTER.call_once(|| {
        let registered = plotters::style::register_font(FONT_FAMILY, FontStyle::Normal, FONT);
        assert!(registered.is_ok(), "the embedded font is valid TrueType");
    });
}

/// The distinct values of `items`, sorted.
pub(crate) fn distinct<T: Ord>(items: impl Iterator<Item = T>) -> Vec<T> {
    let mut items: Vec<T> = items.collect();
    items.sort();
    items.dedup();
    items
}

/// The granularities of `group`, sorted.
fn granularities(group: &[&Measurement]) -> Vec<u32> {
    distinct(group.iter().map(|m| m.granularity))
}

/// What a group of measurements is: task, connectivity and image size.
fn heading(task: Task, connectivity: Connectivity, group: &[&Measurement]) -> String {
    let what = match task {
        Task::Label => "label (CCL)",
        Task::Analyze => "analyze (CCA, 7 features)",
    };
    let sizes = distinct(group.iter().map(|m| (m.width, m.height)));
    let size = match sizes.as_slice() {
        [(width, height)] => format!("{width}×{height}"),
        _ => "mixed sizes".into(),
    };
    format!("{what}, {connectivity}-connectivity, {size}")
}

/// The text style of every label, at `size` pixels.
pub(crate) fn font(size: u32) -> TextStyle<'static> {
    TextStyle::from((FONT_FAMILY, size).into_font()).color(&BLACK)
}

/// How an entry of a legend is marked.
pub(crate) enum Mark {
    /// A line with a dot, for a series.
    Line(RGBColor),
    /// A dashed line with a dot, for a series drawn dashed.
    DashedLine(RGBColor),
    /// A dashed line, for a reference.
    Dashed(RGBColor),
    /// A filled square, for a bar segment.
    Square(RGBColor),
}

/// Fills `root`, writes `title` at its top and splits the rest into
/// `panels` side by side and a legend column, which gets `entries`.
pub(crate) fn layout<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    panels: usize,
    entries: &[(String, Mark)],
) -> Result<Vec<DrawingArea<DB, Shift>>, DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let body = root.titled(title, font(22))?;
    let (plots, legend) = body.split_horizontally(SIZE.0 - LEGEND_WIDTH);
    let left = font(16).pos(Pos::new(HPos::Left, VPos::Center));
    for (i, (label, mark)) in entries.iter().enumerate() {
        let y = 60 + 26 * i as i32;
        match *mark {
            Mark::Line(colour) => {
                legend.draw(&PathElement::new([(4, y), (30, y)], colour.stroke_width(2)))?;
                legend.draw(&Circle::new((17, y), 3, colour.filled()))?;
            }
            Mark::DashedLine(colour) => {
                for x in [4, 13, 22] {
                    legend.draw(&PathElement::new(
                        [(x, y), (x + 6, y)],
                        colour.stroke_width(2),
                    ))?;
                }
                legend.draw(&Circle::new((17, y), 3, colour.filled()))?;
            }
            Mark::Dashed(colour) => {
                for x in [4, 13, 22] {
                    legend.draw(&PathElement::new(
                        [(x, y), (x + 6, y)],
                        colour.stroke_width(1),
                    ))?;
                }
            }
            Mark::Square(colour) => {
                legend.draw(&Rectangle::new([(10, y - 7), (24, y + 7)], colour.filled()))?;
            }
        }
        legend.draw_text(label, &left, (38, y))?;
    }
    Ok(plots.split_evenly((1, panels.max(1))))
}

/// An axis label: at most three decimals, no trailing zeros.
pub(crate) fn tick(value: f64) -> String {
    let text = format!("{value:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The most labels a log axis gets: more would overlap on a panel's height.
const MAX_LOG_TICKS: usize = 12;

/// Labels for a log axis over `range`: 1, 2 and 5 times the powers of ten
/// inside it, or every digit where the range holds fewer than three of
/// those, or the powers of ten alone where it spans so many decades that
/// 1, 2 and 5 would be more than [`MAX_LOG_TICKS`].
pub(crate) fn log_ticks((low, high): (f64, f64)) -> Vec<f64> {
    let decades = low.log10().floor() as i32..=high.log10().ceil() as i32;
    let within = |digits: &[f64]| -> Vec<f64> {
        decades
            .clone()
            .flat_map(|exponent| {
                digits
                    .iter()
                    .map(move |&digit| times_ten_to(digit, exponent))
            })
            .filter(|value| (low..=high).contains(value))
            .collect()
    };
    let ticks = within(&[1.0, 2.0, 5.0]);
    match ticks.len() {
        n if n < 3 => within(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]),
        n if n > MAX_LOG_TICKS => within(&[1.0]),
        _ => ticks,
    }
}

/// `digit × 10^exponent`, rounded once (so that 0.6 is the float nearest 0.6).
fn times_ten_to(digit: f64, exponent: i32) -> f64 {
    if exponent < 0 {
        digit / 10f64.powi(-exponent)
    } else {
        digit * 10f64.powi(exponent)
    }
}

/// A time in ms for labels: three significant digits from 1 ms up, whole
/// microseconds below.
fn milliseconds(ms: f64) -> String {
    let decimals = match ms {
        ms if ms >= 100.0 => 0,
        ms if ms >= 10.0 => 1,
        ms if ms >= 1.0 => 2,
        _ => 3,
    };
    format!("{ms:.decimals$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_drop_trailing_zeros() {
        assert_eq!(tick(0.5), "0.5");
        assert_eq!(tick(0.6000000000000001), "0.6");
        assert_eq!(tick(20.0), "20");
        assert_eq!(tick(0.125), "0.125");
    }

    #[test]
    fn log_ticks_are_one_two_five_or_every_digit_or_the_decades() {
        assert_eq!(
            log_ticks((0.3, 95.0)),
            [0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0]
        );
        assert_eq!(log_ticks((0.45, 0.95)), [0.5, 0.6, 0.7, 0.8, 0.9]);
        assert_eq!(log_ticks((0.5, 2e5)), [1.0, 10.0, 100.0, 1e3, 1e4, 1e5]);
    }

    #[test]
    fn milliseconds_are_short() {
        assert_eq!(milliseconds(92.3456), "92.3");
        assert_eq!(milliseconds(1.23456), "1.23");
        assert_eq!(milliseconds(0.0123456), "0.012");
        assert_eq!(milliseconds(123.4), "123");
    }
}
