//! Median time against density: one panel per granularity, one line per
//! variant, on a log scale (peers can be a hundred times slower on empty
//! or full images), with the percolation density marked.

use super::{Figure, Mark, colour, draw_series, granularities, layout, log_ticks, tick};
use crate::chart::{Axes, Axis, Canvas, Rgb, Stroke, crisp};
use crate::sweep::Measurement;
use crate::sweep::summary::percolation_density;

/// Grey of the percolation line.
const REFERENCE: Rgb = Rgb(150, 150, 150);

/// The time plot of one task and connectivity.
pub(super) struct TimeFigure {
    title: String,
    /// Per granularity, one line per variant.
    panels: Vec<(u32, Vec<Line>)>,
    legend: Vec<(String, Mark)>,
    /// The y range, shared by every panel so that panels compare.
    range: (f64, f64),
    /// Where the y axis is labelled.
    ticks: Vec<f64>,
    percolation: f64,
}

/// One variant's median times, by density.
struct Line {
    colour: Rgb,
    points: Vec<(f64, f64)>,
}

impl TimeFigure {
    /// The plot of `group` (one task and connectivity, not empty);
    /// `variants` are all of the sweep's, which fix each one's colour.
    pub(super) fn new(heading: &str, group: &[&Measurement], variants: &[&str]) -> Self {
        let colour =
            |variant: &str| colour(variants.iter().position(|&v| v == variant).unwrap_or(0));
        let present = super::distinct(group.iter().map(|m| m.variant.as_str()));
        let panels = granularities(group)
            .into_iter()
            .map(|g| {
                let lines = present
                    .iter()
                    .map(|&variant| {
                        let mut points: Vec<(f64, f64)> = group
                            .iter()
                            .filter(|m| m.granularity == g && m.variant == variant)
                            // A log axis has no place for 0 ms.
                            .filter(|m| m.median_ms > 0.0)
                            .map(|m| (f64::from(m.density), m.median_ms))
                            .collect();
                        points.sort_by(|a, b| a.0.total_cmp(&b.0));
                        Line {
                            colour: colour(variant),
                            points,
                        }
                    })
                    .collect();
                (g, lines)
            })
            .collect();
        let times = group.iter().map(|m| m.median_ms).filter(|&ms| ms > 0.0);
        let low = times.clone().fold(f64::INFINITY, f64::min);
        let high = times.fold(0.0, f64::max);
        // Some room above and below the lines; any range where nothing is.
        let range = if low <= high {
            (low / 1.3, high * 1.3)
        } else {
            (0.1, 1.0)
        };
        let connectivity = group[0].connectivity;
        let percolation = percolation_density(connectivity);
        let mut legend: Vec<(String, Mark)> = present
            .iter()
            .map(|&variant| (variant.to_string(), Mark::Line(colour(variant))))
            .collect();
        legend.push((
            format!("percolation d={percolation}"),
            Mark::Dashed(REFERENCE),
        ));
        TimeFigure {
            title: format!("{heading}: median time per image"),
            panels,
            legend,
            range,
            ticks: log_ticks(range),
            percolation: f64::from(percolation),
        }
    }
}

impl Figure for TimeFigure {
    fn draw(&self, canvas: &mut impl Canvas) {
        let areas = layout(canvas, &self.title, self.panels.len(), &self.legend);
        let (low, high) = self.range;
        for (i, ((granularity, lines), area)) in self.panels.iter().zip(areas).enumerate() {
            let x = Axis::linear(0.0, 100.0, 11, |d| format!("{d:.0}")).described("density (%)");
            let y = Axis::log(self.range, &self.ticks, tick);
            // The panels share the y axis: the first one describes it.
            let y = if i == 0 {
                y.described("median time (ms)")
            } else {
                y
            };
            let axes = Axes::new(area, &format!("g = {granularity}"), x, y);
            axes.draw(canvas);
            let ((x, bottom), (_, top)) = (
                axes.at((self.percolation, low)),
                axes.at((self.percolation, high)),
            );
            canvas.dashed(
                &[(crisp(x), bottom), (crisp(x), top)],
                6.0,
                4.0,
                Stroke::new(REFERENCE, 1.0),
            );
            for line in lines {
                draw_series(canvas, &axes, &line.points, line.colour, false);
            }
        }
    }
}
