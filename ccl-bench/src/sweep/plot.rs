//! Plots of a sweep, written into its folder for each task and connectivity
//! measured, each as SVG (small, its text left to the viewer's fonts: these
//! are committed) and PNG (its text drawn with an embedded cut of DejaVu
//! Sans, so that no system font is needed), both drawn by the crate's own
//! drawing layer (`chart`):
//!
//! - `time-<task>-<c>conn`: median time against density, one panel per
//!   granularity, one line per variant (as the HA paper, DASIP 2018, plots
//!   them in its Fig. 5 and 7);
//! - `stages-<task>-<c>conn`: for each variant and granularity, the mean over
//!   the densities of each stage's median time, stacked.
//!
//! A plot shows one sweep: one measurement per variant, granularity and
//! density.

mod stages;
mod time;

use std::path::{Path, PathBuf};

use ccl_core::{Connectivity, Task};

use super::{Measurement, SweepError};
use crate::chart::{
    Area, Axes, Canvas, HAlign, Paint, Point, Raster, Rgb, Stroke, Svg, TextStyle, VAlign, WHITE,
};

/// Every plot's size in pixels: three panels and a legend side by side.
const SIZE: (u32, u32) = (1280, 460);
/// Width of the legend column at the right of every plot.
const LEGEND_WIDTH: u32 = 190;
/// Height of the title's row at the top of every plot.
const TITLE_HEIGHT: f64 = 30.0;
/// Font size of a plot's title.
const TITLE_SIZE: f64 = 18.0;
/// Font size of the legend's entries.
const LEGEND_SIZE: f64 = 13.0;

/// Tableau's ten colours: distinct for readers with common colour-vision
/// deficiencies, in the order matplotlib uses them.
const PALETTE: [Rgb; 10] = [
    Rgb(31, 119, 180),
    Rgb(255, 127, 14),
    Rgb(44, 160, 44),
    Rgb(214, 39, 40),
    Rgb(148, 103, 189),
    Rgb(140, 86, 75),
    Rgb(227, 119, 194),
    Rgb(127, 127, 127),
    Rgb(188, 189, 34),
    Rgb(23, 190, 207),
];

/// The light partners of [`PALETTE`]'s colours, in the same order
/// (Tableau 20's other half).
const LIGHT: [Rgb; 10] = [
    Rgb(174, 199, 232),
    Rgb(255, 187, 120),
    Rgb(152, 223, 138),
    Rgb(255, 152, 150),
    Rgb(197, 176, 213),
    Rgb(196, 156, 148),
    Rgb(247, 182, 210),
    Rgb(199, 199, 199),
    Rgb(219, 219, 141),
    Rgb(158, 218, 229),
];

/// The colour of the `index`th series or stage: [`PALETTE`], then its light
/// partners, then hues a golden angle apart. Not [`PALETTE`] over again,
/// which gave a plot's eleventh stage its first one's blue: the colours
/// differ from index to index (the first hundred are tested).
pub(crate) fn colour(index: usize) -> Rgb {
    match index {
        i if i < PALETTE.len() => PALETTE[i],
        i if i < PALETTE.len() + LIGHT.len() => LIGHT[i - PALETTE.len()],
        i => {
            let k = (i - PALETTE.len() - LIGHT.len()) as f64;
            // Three values, so that two hues that come close still differ.
            let value = [0.55, 0.75, 0.95][i % 3];
            hsv((k * 0.618_033_988_75).fract(), 0.6, value)
        }
    }
}

/// The colour of `hue` (0 to 1, round the colour wheel), `saturation` and
/// `value` (0 to 1).
fn hsv(hue: f64, saturation: f64, value: f64) -> Rgb {
    let channel = |n: f64| {
        let k = (n + hue * 6.0) % 6.0;
        let level = value - value * saturation * k.min(4.0 - k).clamp(0.0, 1.0);
        (level * 255.0).round() as u8
    };
    Rgb(channel(5.0), channel(3.0), channel(1.0))
}

/// Writes the plots of `measurements` into `dir` (created if missing): a
/// time and a stage plot, as SVG and PNG, for each task and connectivity
/// measured. Returns the paths written.
///
/// # Errors
/// A folder or file that cannot be written.
pub fn write(measurements: &[Measurement], dir: &Path) -> Result<Vec<PathBuf>, SweepError> {
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

/// A plot that draws itself on any canvas of [`SIZE`].
pub(crate) trait Figure {
    /// Draws the whole plot on `canvas`.
    fn draw(&self, canvas: &mut impl Canvas);
}

/// Draws `figure` into `<stem>.svg` and `<stem>.png` in `dir`.
fn save(figure: &impl Figure, dir: &Path, stem: &str) -> Result<[PathBuf; 2], SweepError> {
    let svg_path = dir.join(format!("{stem}.svg"));
    save_svg(figure, &svg_path)?;
    let png_path = dir.join(format!("{stem}.png"));
    let mut raster = Raster::new(SIZE.0, SIZE.1);
    figure.draw(&mut raster);
    raster
        .into_image()
        .save(&png_path)
        .map_err(|e| SweepError::Plot {
            path: png_path.clone(),
            message: e.to_string(),
        })?;
    Ok([svg_path, png_path])
}

/// Draws `figure` as SVG into the file `path`.
pub(crate) fn save_svg(figure: &impl Figure, path: &Path) -> Result<(), SweepError> {
    let mut svg = Svg::new(SIZE.0, SIZE.1);
    figure.draw(&mut svg);
    std::fs::write(path, svg.finish()).map_err(SweepError::io(path))
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

/// How an entry of a legend is marked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Mark {
    /// A line with a dot, for a series.
    Line(Rgb),
    /// A dashed line with a dot, for a series drawn dashed.
    DashedLine(Rgb),
    /// A dashed line, for a reference.
    Dashed(Rgb),
    /// A filled square, for a bar segment.
    Square(Rgb),
}

/// Fills `canvas`, writes `title` at its top and `entries` in a legend
/// column at its right, and returns the rest split into `panels` side by
/// side.
pub(crate) fn layout(
    canvas: &mut impl Canvas,
    title: &str,
    panels: usize,
    entries: &[(String, Mark)],
) -> Vec<Area> {
    let (width, height) = (f64::from(SIZE.0), f64::from(SIZE.1));
    canvas.fill(WHITE);
    canvas.text(
        (width / 2.0, 5.0),
        title,
        TextStyle::new(TITLE_SIZE, HAlign::Centre, VAlign::Top),
    );
    let left = width - f64::from(LEGEND_WIDTH);
    let first = TITLE_HEIGHT + 60.0;
    // Closer together where a long legend would run off the bottom.
    let spacing = 26f64.min((height - 10.0 - first) / entries.len().max(1) as f64);
    for (i, (label, mark)) in entries.iter().enumerate() {
        let y = first + spacing * i as f64;
        let dot = (left + 17.0, y);
        let line = [(left + 4.0, y), (left + 28.0, y)];
        match *mark {
            Mark::Line(colour) => {
                canvas.polyline(&line, Stroke::new(colour, 2.0));
                canvas.circle(dot, 3.0, colour);
            }
            Mark::DashedLine(colour) => {
                canvas.dashed(&line, 6.0, 3.0, Stroke::new(colour, 2.0));
                canvas.circle(dot, 3.0, colour);
            }
            Mark::Dashed(colour) => canvas.dashed(&line, 6.0, 3.0, Stroke::new(colour, 1.0)),
            Mark::Square(colour) => canvas.rectangle(
                (left + 10.0, y - 7.0),
                (left + 24.0, y + 7.0),
                Paint::Fill(colour),
            ),
        }
        canvas.text(
            (left + 38.0, y),
            label,
            TextStyle::new(LEGEND_SIZE, HAlign::Left, VAlign::Centre),
        );
    }
    let plots = Area {
        left: 0.0,
        top: TITLE_HEIGHT,
        right: left,
        bottom: height,
    };
    plots.columns(panels.max(1))
}

/// Draws `points` (data) on `axes` as a line of `colour`, dashed or solid,
/// with a dot at each point.
pub(crate) fn draw_series(
    canvas: &mut impl Canvas,
    axes: &Axes,
    points: &[(f64, f64)],
    colour: Rgb,
    dashed: bool,
) {
    let points: Vec<Point> = points.iter().map(|&point| axes.at(point)).collect();
    let stroke = Stroke::new(colour, 2.0);
    if dashed {
        canvas.dashed(&points, 6.0, 4.0, stroke);
    } else {
        canvas.polyline(&points, stroke);
    }
    for &point in &points {
        canvas.circle(point, 3.0, colour);
    }
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
    use ccl_core::Backend;

    /// A measurement of `variant` at granularity 1 and `density`, its
    /// stages `stages` (name, ms).
    pub(super) fn measurement(variant: &str, density: u32, stages: &[(&str, f64)]) -> Measurement {
        Measurement {
            variant: variant.to_string(),
            backend: Backend::Cpu,
            connectivity: Connectivity::Four,
            task: Task::Label,
            width: 64,
            height: 32,
            granularity: 1,
            density,
            pattern: None,
            reps: 3,
            median_ms: stages.iter().map(|&(_, ms)| ms).sum(),
            min_ms: 0.0,
            transfer_ms: 0.0,
            stages: crate::sweep::stages_of(stages),
        }
    }

    #[test]
    fn a_sweep_plots_as_svg_and_png() {
        let dir = std::env::temp_dir().join(format!("ccl-bench-plot-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut measurements = Vec::new();
        for density in [0, 50, 100] {
            let ms = 1.0 + f64::from(density) / 10.0;
            measurements.push(measurement("fast", density, &[("a", ms), ("b", 1.0)]));
            measurements.push(measurement("slow", density, &[("c", 10.0 * ms)]));
        }
        let written = write(&measurements, &dir).unwrap();
        let names: Vec<String> = written
            .iter()
            .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            [
                "time-label-4conn.svg",
                "time-label-4conn.png",
                "stages-label-4conn.svg",
                "stages-label-4conn.png"
            ]
        );
        let svg = std::fs::read_to_string(dir.join("time-label-4conn.svg")).unwrap();
        assert!(svg.contains(">label (CCL), 4-connectivity, 64×32: median time per image<"));
        // One line for each variant and the percolation line's dashes.
        assert!(
            svg.contains("stroke=\"#1F77B4\" stroke-width=\"2\""),
            "{svg}"
        );
        assert!(
            svg.contains("stroke=\"#FF7F0E\" stroke-width=\"2\""),
            "{svg}"
        );
        assert!(svg.contains(">density (%)<") && svg.contains(">median time (ms)<"));
        for stem in ["time-label-4conn", "stages-label-4conn"] {
            let png = image::open(dir.join(format!("{stem}.png")))
                .unwrap()
                .into_rgb8();
            assert_eq!(png.dimensions(), SIZE, "{stem}");
            // Drawn on: the title's row holds ink, the corners are white.
            let inked = (300..980).any(|x| (5..25).any(|y| png.get_pixel(x, y).0 != [255; 3]));
            assert!(inked, "{stem}: no title");
            assert_eq!(png.get_pixel(0, 0).0, [255; 3]);
            assert_eq!(png.get_pixel(1279, 459).0, [255; 3]);
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn colours_are_tableaus_first_and_all_distinct() {
        assert_eq!(colour(0), Rgb(31, 119, 180));
        assert_eq!(colour(9), Rgb(23, 190, 207));
        let colours: Vec<Rgb> = (0..100).map(colour).collect();
        assert_eq!(distinct(colours.iter().map(|c| (c.0, c.1, c.2))).len(), 100);
        assert!(!colours.contains(&WHITE), "white is the background");
    }

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
