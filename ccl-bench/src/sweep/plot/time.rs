//! Median time against density: one panel per granularity, one line per
//! variant, on a log scale (peers can be a hundred times slower on empty
//! or full images), with the percolation density marked.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{Figure, Mark, PALETTE, font, granularities, layout, log_ticks, tick};
use crate::sweep::Measurement;
use crate::sweep::summary::percolation_density;

/// Grey of the percolation line.
const REFERENCE: RGBColor = RGBColor(150, 150, 150);

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
    colour: RGBColor,
    points: Vec<(f64, f64)>,
}

impl TimeFigure {
    /// The plot of `group` (one task and connectivity, not empty);
    /// `variants` are all of the sweep's, which fix each one's colour.
    pub(super) fn new(heading: &str, group: &[&Measurement], variants: &[&str]) -> Self {
        let colour = |variant: &str| {
            let index = variants.iter().position(|&v| v == variant).unwrap_or(0);
            PALETTE[index % PALETTE.len()]
        };
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
    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        let areas = layout(root, &self.title, self.panels.len(), &self.legend)?;
        let (low, high) = self.range;
        for (i, ((granularity, lines), area)) in self.panels.iter().zip(&areas).enumerate() {
            let mut chart = ChartBuilder::on(area)
                .caption(format!("g = {granularity}"), font(18))
                .margin(10)
                .x_label_area_size(40)
                .y_label_area_size(if i == 0 { 60 } else { 45 })
                .build_cartesian_2d(
                    0f64..100f64,
                    (low..high).log_scale().with_key_points(self.ticks.clone()),
                )?;
            let mut mesh = chart.configure_mesh();
            mesh.x_labels(11)
                .x_label_formatter(&|d| format!("{d:.0}"))
                .y_label_formatter(&|ms| tick(*ms))
                .max_light_lines(0)
                .label_style(font(15))
                .axis_desc_style(font(16))
                .x_desc("density (%)");
            if i == 0 {
                mesh.y_desc("median time (ms)");
            }
            mesh.draw()?;
            chart.draw_series(DashedLineSeries::new(
                [(self.percolation, low), (self.percolation, high)],
                6,
                4,
                REFERENCE.stroke_width(1),
            ))?;
            for line in lines {
                chart.draw_series(LineSeries::new(
                    line.points.iter().copied(),
                    line.colour.stroke_width(2),
                ))?;
                chart.draw_series(
                    line.points
                        .iter()
                        .map(|&point| Circle::new(point, 3, line.colour.filled())),
                )?;
            }
        }
        Ok(())
    }
}
