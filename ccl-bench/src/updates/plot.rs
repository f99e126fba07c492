//! Fig. 5 of the FLSL paper: two panels side by side, the atomic updates
//! per pixel and the estimated conflicts ΣU²/ΣU against density, one line
//! per variant and connectivity (the colour is the variant's, the line
//! solid for 8-connectivity and dashed for 4). Both axes are logarithmic:
//! the variants differ by orders of magnitude (a naive analysis updates
//! once per foreground pixel, all of them on one target in a white image).
//!
//! SVG only, in the sweep plots' size and style: its text is left to the
//! viewer's fonts, whereas a PNG would draw it with the embedded cut of
//! DejaVu Sans, which lacks Σ.

use std::path::{Path, PathBuf};

use ccl_core::Connectivity;

use super::Row;
use crate::chart::{Axes, Axis, Canvas, Rgb};
use crate::sweep::SweepError;
use crate::sweep::plot::{
    Figure, Mark, colour, distinct, draw_series, layout, log_ticks, save_svg, tick,
};

/// Writes the plot of `rows` into `updates.svg` in `dir` (created if
/// missing) and returns its path. Counts of zero (no updates at density 0)
/// have no place on a log axis and are left out.
///
/// # Errors
/// The folder or the file cannot be written, or the drawing fails.
pub fn write(rows: &[Row], dir: &Path) -> Result<PathBuf, SweepError> {
    std::fs::create_dir_all(dir).map_err(SweepError::io(dir))?;
    let path = dir.join("updates.svg");
    save_svg(&UpdatesFigure::new(rows), &path)?;
    Ok(path)
}

/// The two panels and their legend.
struct UpdatesFigure {
    title: String,
    panels: [Panel; 2],
    legend: Vec<(String, Mark)>,
}

/// One quantity against density.
struct Panel {
    caption: &'static str,
    lines: Vec<Line>,
    range: (f64, f64),
    /// Where the y axis is labelled.
    ticks: Vec<f64>,
}

/// One variant and connectivity, by density.
struct Line {
    colour: Rgb,
    dashed: bool,
    points: Vec<(f64, f64)>,
}

impl UpdatesFigure {
    fn new(rows: &[Row]) -> Self {
        // The paper's order, which also fixes each variant's colour from
        // run to run; names it does not know (a CSV from elsewhere) follow.
        let mut variants: Vec<&str> = ccl_cuda_flsl::COUNTED_VARIANTS.to_vec();
        for variant in distinct(rows.iter().map(|r| r.variant.as_str())) {
            if !variants.contains(&variant) {
                variants.push(variant);
            }
        }
        let series: Vec<(usize, &str, Connectivity)> = variants
            .iter()
            .enumerate()
            .flat_map(|(index, &variant)| {
                distinct(
                    rows.iter()
                        .filter(|r| r.variant == variant)
                        .map(|r| r.connectivity),
                )
                .into_iter()
                .map(move |connectivity| (index, variant, connectivity))
            })
            .collect();
        let panel = |caption, value: fn(&Row) -> f64| {
            let lines: Vec<Line> = series
                .iter()
                .map(|&(index, variant, connectivity)| {
                    let mut points: Vec<(f64, f64)> = rows
                        .iter()
                        .filter(|r| r.variant == variant && r.connectivity == connectivity)
                        .map(|r| (f64::from(r.density), value(r)))
                        .filter(|&(_, v)| v > 0.0)
                        .collect();
                    points.sort_by(|a, b| a.0.total_cmp(&b.0));
                    Line {
                        colour: colour(index),
                        dashed: connectivity == Connectivity::Four,
                        points,
                    }
                })
                .collect();
            let values = lines.iter().flat_map(|l| l.points.iter().map(|p| p.1));
            let low = values.clone().fold(f64::INFINITY, f64::min);
            let high = values.fold(0.0, f64::max);
            // Some room above and below the lines; any range where nothing is.
            let range = if low <= high {
                (low / 1.5, high * 1.5)
            } else {
                (0.1, 1.0)
            };
            Panel {
                caption,
                lines,
                range,
                ticks: log_ticks(range),
            }
        };
        let legend = series
            .iter()
            .map(|&(index, variant, connectivity)| {
                let colour = colour(index);
                // The face-only connectivities dashed, the others solid.
                let mark = match connectivity {
                    Connectivity::Four | Connectivity::Six => Mark::DashedLine(colour),
                    _ => Mark::Line(colour),
                };
                (format!("{variant}, {connectivity}-conn"), mark)
            })
            .collect();
        UpdatesFigure {
            title: format!("Atomic feature updates against density, {}", images(rows)),
            panels: [
                panel("atomic updates per pixel", Row::updates_per_pixel),
                panel("estimated conflicts (ΣU²/ΣU)", Row::conflicts),
            ],
            legend,
        }
    }
}

/// The size and granularity of the images counted.
fn images(rows: &[Row]) -> String {
    if rows.is_empty() {
        return "no counts".into();
    }
    let size = match distinct(rows.iter().map(|r| (r.width, r.height))).as_slice() {
        [(width, height)] => format!("{width}×{height}"),
        _ => "mixed sizes".into(),
    };
    let granularity = match distinct(rows.iter().map(|r| r.granularity)).as_slice() {
        [g] => format!("g = {g}"),
        _ => "mixed granularities".into(),
    };
    format!("{size}, {granularity}")
}

impl Figure for UpdatesFigure {
    fn draw(&self, canvas: &mut impl Canvas) {
        let areas = layout(canvas, &self.title, self.panels.len(), &self.legend);
        for (panel, area) in self.panels.iter().zip(areas) {
            let x = Axis::linear(0.0, 100.0, 11, |d| format!("{d:.0}")).described("density (%)");
            let y = Axis::log(panel.range, &panel.ticks, log_tick);
            let axes = Axes::new(area, panel.caption, x, y);
            axes.draw(canvas);
            for line in &panel.lines {
                draw_series(canvas, &axes, &line.points, line.colour, line.dashed);
            }
        }
    }
}

/// A label of a log axis that may span many decades: plain from 0.001 up
/// to 10⁵, in exponent form (`1e-4`, `2e7`) outside.
fn log_tick(value: f64) -> String {
    if (1e-3..1e5).contains(&value) {
        tick(value)
    } else {
        format!("{value:e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::updates::tests::{row, scratch};

    #[test]
    fn writes_one_svg_with_both_panels_and_every_series() {
        let dir = scratch("updates-plot");
        let mut rows = Vec::new();
        for density in [0, 50, 100] {
            let pixels = 2_000_000 * u64::from(density) / 100;
            rows.push(row("naive-cca", density, pixels, pixels.max(1)));
            rows.push(Row {
                connectivity: Connectivity::Four,
                ..row("flsl", density, pixels / 1000, 3)
            });
        }
        let path = write(&rows, &dir).unwrap();
        assert_eq!(path, dir.join("updates.svg"));
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.starts_with("<svg") && svg.len() > 1000, "{svg}");
        for text in [
            "atomic updates per pixel",
            "estimated conflicts (ΣU²/ΣU)",
            "naive-cca, 8-conn",
            "flsl, 4-conn",
            "2000×1000, g = 1",
        ] {
            assert!(svg.contains(text), "no `{text}` in the plot");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn nothing_to_draw_is_still_a_plot() {
        let dir = scratch("updates-plot-empty");
        let svg = std::fs::read_to_string(write(&[], &dir).unwrap()).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("no counts"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn log_ticks_read_plainly_or_as_exponents() {
        assert_eq!(log_tick(0.5), "0.5");
        assert_eq!(log_tick(2e4), "20000");
        assert_eq!(log_tick(1e-4), "1e-4");
        assert_eq!(log_tick(5e7), "5e7");
    }
}
