//! Time per stage: a panel per granularity, in it a bar per variant that
//! stacks, bottom-up in the variant's own stage order, each stage's median
//! time averaged over the densities.
//!
//! A panel for every granularity, not g = 4 alone: granularity moves time
//! between stages (as components grow, strip labeling and border merging
//! shrink several-fold, the per-pixel relabel and feature passes much
//! less), and showing where the time goes is what the split is for. The
//! panels share their y axis so that they compare.
//!
//! The axis is linear, so that stacks add up. It fits the bars up to
//! [`OFF_SCALE`] times the median bar: a taller one (a peer many times
//! slower) would flatten the others, so it is drawn broken (see
//! [`Bar::fitted`]). Every bar is labelled with its total.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{Figure, Mark, PALETTE, distinct, font, granularities, layout, milliseconds, tick};
use crate::sweep::Measurement;

/// Bars taller than this many times the median bar are cut.
const OFF_SCALE: f64 = 3.0;
/// Width of a variant's place on the x axis. The axis counts in whole units
/// (plotters formats custom key points only on integer axes): a bar is
/// centred on `index × SLOT`.
const SLOT: i32 = 100;
/// Half the width of a bar, in x units.
const HALF_BAR: i32 = 30;

/// The stage plot of one task and connectivity.
pub(super) struct StageFigure {
    title: String,
    /// The variants, in the order of the bars.
    variants: Vec<String>,
    /// Per granularity, (variant index, bar).
    panels: Vec<(u32, Vec<(usize, Bar)>)>,
    legend: Vec<(String, Mark)>,
    /// The tallest bar drawn whole.
    fit: f64,
}

/// One variant's stages at one granularity.
struct Bar {
    /// Colour and mean time in ms of each stage, bottom-up.
    segments: Vec<(RGBColor, f64)>,
    total: f64,
}

impl StageFigure {
    /// The plot of `group`, one task and connectivity.
    pub(super) fn new(heading: &str, group: &[&Measurement]) -> Self {
        let variants = distinct(group.iter().map(|m| m.variant.as_str()));
        // Stage names in order of first appearance, each with its colour.
        let mut stages: Vec<&str> = Vec::new();
        for m in group {
            for stage in &m.stages {
                if !stages.contains(&stage.stage.as_str()) {
                    stages.push(&stage.stage);
                }
            }
        }
        let colour = |stage: &str| {
            let index = stages.iter().position(|&s| s == stage).unwrap_or(0);
            PALETTE[index % PALETTE.len()]
        };
        let panels: Vec<(u32, Vec<(usize, Bar)>)> = granularities(group)
            .into_iter()
            .map(|g| {
                let bars = variants
                    .iter()
                    .enumerate()
                    .filter_map(|(index, &variant)| {
                        let runs: Vec<&Measurement> = group
                            .iter()
                            .copied()
                            .filter(|m| m.granularity == g && m.variant == variant)
                            .collect();
                        let bar = mean_stages(&runs, colour)?;
                        Some((index, bar))
                    })
                    .collect();
                (g, bars)
            })
            .collect();
        let mut totals: Vec<f64> = panels
            .iter()
            .flat_map(|(_, bars)| bars.iter().map(|(_, bar)| bar.total))
            .collect();
        totals.sort_by(f64::total_cmp);
        let median = totals.get(totals.len() / 2).copied().unwrap_or(0.0);
        let fit = totals
            .iter()
            .copied()
            .filter(|&total| total <= OFF_SCALE * median)
            .fold(0.0, f64::max);
        StageFigure {
            title: format!("{heading}: time per stage, mean over densities"),
            variants: variants.iter().map(|v| v.to_string()).collect(),
            panels,
            legend: stages
                .iter()
                .map(|&stage| (stage.to_string(), Mark::Square(colour(stage))))
                .collect(),
            // An axis of some height even where every time is 0.
            fit: if fit > 0.0 { fit } else { 1.0 },
        }
    }
}

/// The bar of one variant's `runs` (its measurements at one granularity):
/// each stage's median time, averaged over the runs; `None` for no runs.
fn mean_stages(runs: &[&Measurement], colour: impl Fn(&str) -> RGBColor) -> Option<Bar> {
    let first = runs.first()?;
    let segments: Vec<(RGBColor, f64)> = first
        .stages
        .iter()
        .map(|stage| {
            let sum: f64 = runs
                .iter()
                .flat_map(|m| m.stages.iter().filter(|s| s.stage == stage.stage))
                .map(|s| s.ms)
                .sum();
            (colour(&stage.stage), sum / runs.len() as f64)
        })
        .collect();
    let total = segments.iter().map(|&(_, ms)| ms).sum();
    Some(Bar { segments, total })
}

impl Bar {
    /// The segments to draw within `height`, and where a break goes across
    /// them. A bar that fits is drawn whole. A taller one loses the excess
    /// from its largest stage, which the break crosses, so that its other
    /// stages keep their scale; where the largest stage is smaller than the
    /// excess, the bar's top is cut instead.
    fn fitted(&self, height: f64) -> (Vec<(RGBColor, f64)>, Option<f64>) {
        let excess = self.total - height;
        let mut segments = self.segments.clone();
        if excess <= 0.0 {
            return (segments, None);
        }
        let largest = (0..segments.len()).max_by(|&a, &b| segments[a].1.total_cmp(&segments[b].1));
        match largest {
            Some(largest) if segments[largest].1 > excess => {
                segments[largest].1 -= excess;
                let below: f64 = segments[..largest].iter().map(|&(_, ms)| ms).sum();
                let cut_at = below + segments[largest].1 / 2.0;
                (segments, Some(cut_at))
            }
            _ => {
                let mut bottom = 0.0;
                for (_, ms) in &mut segments {
                    let whole = *ms;
                    *ms = (height - bottom).clamp(0.0, whole);
                    bottom += whole;
                }
                (segments, Some(0.9 * height))
            }
        }
    }
}

impl Figure for StageFigure {
    fn draw<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        let areas = layout(root, &self.title, self.panels.len(), &self.legend)?;
        let count = self.variants.len() as i32;
        let centres: Vec<i32> = (0..count).map(|i| i * SLOT).collect();
        // Cut bars reach a little above the tallest whole one; labels need
        // room above both.
        let cut_height = 1.08 * self.fit;
        let top = 1.2 * self.fit;
        let label = font(13).pos(Pos::new(HPos::Center, VPos::Bottom));
        let variant_at = |x: &i32| {
            let index = usize::try_from(x / SLOT).unwrap_or(usize::MAX);
            self.variants.get(index).cloned().unwrap_or_default()
        };
        for (i, ((granularity, bars), area)) in self.panels.iter().zip(&areas).enumerate() {
            let mut chart = ChartBuilder::on(area)
                .caption(format!("g = {granularity}"), font(18))
                .margin(10)
                .x_label_area_size(30)
                .y_label_area_size(if i == 0 { 60 } else { 45 })
                .build_cartesian_2d(
                    (-SLOT / 2..count * SLOT - SLOT / 2).with_key_points(centres.clone()),
                    0f64..top,
                )?;
            let mut mesh = chart.configure_mesh();
            mesh.disable_x_mesh()
                .x_label_formatter(&variant_at)
                .y_label_formatter(&|ms| tick(*ms))
                .max_light_lines(0)
                .label_style(font(15))
                .axis_desc_style(font(16));
            if i == 0 {
                mesh.y_desc("time (ms)");
            }
            mesh.draw()?;
            for (index, bar) in bars {
                let x = *index as i32 * SLOT;
                let height = bar.total.min(cut_height);
                let (segments, cut_at) = bar.fitted(height);
                let mut bottom = 0.0;
                for (colour, ms) in segments {
                    chart.draw_series([Rectangle::new(
                        [(x - HALF_BAR, bottom), (x + HALF_BAR, bottom + ms)],
                        colour.filled(),
                    )])?;
                    bottom += ms;
                }
                if let Some(at) = cut_at {
                    // The break: a white band across the bar.
                    let half_band = 0.012 * self.fit;
                    chart.draw_series([Rectangle::new(
                        [
                            (x - HALF_BAR - 3, at - half_band),
                            (x + HALF_BAR + 3, at + half_band),
                        ],
                        WHITE.filled(),
                    )])?;
                }
                chart.draw_series([Text::new(
                    format!("{} ms", milliseconds(bar.total)),
                    (x, height + 0.01 * self.fit),
                    label.clone(),
                )])?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bar(segments: &[f64]) -> Bar {
        Bar {
            segments: segments.iter().map(|&ms| (BLACK, ms)).collect(),
            total: segments.iter().sum(),
        }
    }

    fn times(segments: &[(RGBColor, f64)]) -> Vec<f64> {
        segments.iter().map(|&(_, ms)| ms).collect()
    }

    #[test]
    fn a_bar_that_fits_is_whole() {
        let (segments, cut_at) = bar(&[1.0, 2.0]).fitted(3.0);
        assert_eq!((times(&segments), cut_at), (vec![1.0, 2.0], None));
    }

    #[test]
    fn a_tall_bar_loses_the_excess_from_its_largest_stage() {
        let (segments, cut_at) = bar(&[1.0, 10.0, 1.0]).fitted(4.0);
        assert_eq!(times(&segments), [1.0, 2.0, 1.0]);
        assert_eq!(cut_at, Some(2.0));
    }

    #[test]
    fn an_evenly_split_tall_bar_is_cut_at_the_top() {
        let (segments, cut_at) = bar(&[3.0, 3.0, 3.0]).fitted(4.0);
        assert_eq!(times(&segments), [3.0, 1.0, 0.0]);
        assert_eq!(cut_at, Some(3.6));
    }
}
