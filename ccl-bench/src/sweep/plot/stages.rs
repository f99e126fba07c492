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
//! [`Bar::fitted`]) and marked so, as an axis break is. Every bar is
//! labelled with its total, a broken one with its true total.
//!
//! Every stage of a plot has a colour of its own (see [`super::colour`]):
//! the stages of all of its variants together can be more than ten.

use super::{Figure, Mark, colour, distinct, granularities, layout, milliseconds, tick};
use crate::chart::{
    Axes, Axis, Canvas, HAlign, Point, Rgb, Stroke, TextStyle, VAlign, WHITE, text_width,
};
use crate::sweep::Measurement;

/// Bars taller than this many times the median bar are cut.
const OFF_SCALE: f64 = 3.0;
/// Half the width of a bar, in x units: a variant's slot is 1 wide.
const HALF_BAR: f64 = 0.3;
/// Font size of a bar's total.
const TOTAL_SIZE: f64 = 10.5;
/// Dark grey of the lines of an axis break.
const BREAK: Rgb = Rgb(64, 64, 64);

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
    segments: Vec<(Rgb, f64)>,
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
        let colour = |stage: &str| colour(stages.iter().position(|&s| s == stage).unwrap_or(0));
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
fn mean_stages(runs: &[&Measurement], colour: impl Fn(&str) -> Rgb) -> Option<Bar> {
    let first = runs.first()?;
    let segments: Vec<(Rgb, f64)> = first
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
    fn fitted(&self, height: f64) -> (Vec<(Rgb, f64)>, Option<f64>) {
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
    fn draw(&self, canvas: &mut impl Canvas) {
        let areas = layout(canvas, &self.title, self.panels.len(), &self.legend);
        // Cut bars reach a little above the tallest whole one; labels need
        // room above both.
        let cut_height = 1.08 * self.fit;
        let top = 1.2 * self.fit;
        for (i, ((granularity, bars), area)) in self.panels.iter().zip(areas).enumerate() {
            let y = Axis::round(0.0, top, tick);
            // The panels share the y axis: the first one describes it.
            let y = if i == 0 { y.described("time (ms)") } else { y };
            let x = Axis::categories(&self.variants);
            let axes = Axes::new(area, &format!("g = {granularity}"), x, y);
            axes.draw(canvas);
            let slot = axes.x_width(1.0);
            for (index, bar) in bars {
                let x = *index as f64;
                let height = bar.total.min(cut_height);
                let (segments, cut_at) = bar.fitted(height);
                let mut bottom = 0.0;
                for (colour, ms) in segments {
                    if ms > 0.0 {
                        axes.bar(canvas, x, HALF_BAR, (bottom, bottom + ms), colour);
                    }
                    bottom += ms;
                }
                if let Some(at) = cut_at {
                    draw_break(canvas, axes.at((x, at)), HALF_BAR * slot);
                }
                let (centre, bar_top) = axes.at((x, height));
                canvas.text(
                    (centre, bar_top - 2.0),
                    &total(bar.total, slot),
                    TextStyle::new(TOTAL_SIZE, HAlign::Centre, VAlign::Bottom),
                );
            }
        }
    }
}

/// Draws the break across a cut bar at (`x`, `y`), the bar `half_width`
/// pixels to either side of `x`: two slanted lines with white between them,
/// reaching past the bar's sides, as an axis break is drawn, so that it
/// does not read as a gap between two stages.
fn draw_break(canvas: &mut impl Canvas, (x, y): Point, half_width: f64) {
    let reach = half_width + 4.0;
    let slanted = |shift: f64| [(x - reach, y + 3.0 + shift), (x + reach, y - 3.0 + shift)];
    canvas.polyline(&slanted(0.0), Stroke::new(WHITE, 6.0));
    for shift in [-3.0, 3.0] {
        canvas.polyline(&slanted(shift), Stroke::new(BREAK, 1.0));
    }
}

/// The label of a bar of `ms` in total, in a slot `slot` pixels wide: the
/// unit is dropped where it would not fit (the axis gives it).
fn total(ms: f64, slot: f64) -> String {
    let with_unit = format!("{} ms", milliseconds(ms));
    if text_width(&with_unit, TOTAL_SIZE) + 4.0 <= slot {
        with_unit
    } else {
        milliseconds(ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::BLACK;
    use crate::sweep::plot::tests::measurement;

    fn bar(segments: &[f64]) -> Bar {
        Bar {
            segments: segments.iter().map(|&ms| (BLACK, ms)).collect(),
            total: segments.iter().sum(),
        }
    }

    fn times(segments: &[(Rgb, f64)]) -> Vec<f64> {
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

    #[test]
    fn every_stage_has_its_own_colour_and_a_cut_bar_is_marked() {
        // Twelve stages over three variants: more than the palette's ten.
        let names: Vec<String> = (0..12).map(|i| format!("stage-{i}")).collect();
        let stages = |range: std::ops::Range<usize>, ms: f64| -> Vec<(&str, f64)> {
            names[range]
                .iter()
                .map(|name| (name.as_str(), ms))
                .collect()
        };
        let measurements = [
            measurement("a", 50, &stages(0..4, 1.0)),
            measurement("b", 50, &stages(4..8, 1.0)),
            // Forty times the others: cut.
            measurement("c", 50, &stages(8..12, 40.0)),
        ];
        let group: Vec<&Measurement> = measurements.iter().collect();
        let figure = StageFigure::new("test", &group);
        let colours: Vec<Rgb> = figure
            .legend
            .iter()
            .map(|(_, mark)| match *mark {
                Mark::Square(colour) => colour,
                _ => panic!("a stage is marked by a square"),
            })
            .collect();
        assert_eq!(colours.len(), 12);
        assert_eq!(distinct(colours.iter().map(|c| (c.0, c.1, c.2))).len(), 12);

        let mut svg = crate::chart::Svg::new(1280, 460);
        figure.draw(&mut svg);
        let svg = svg.finish();
        // One break, its white band between two dark lines; the true total
        // written above.
        assert_eq!(
            svg.matches("stroke=\"#FFFFFF\" stroke-width=\"6\"").count(),
            1
        );
        assert_eq!(svg.matches("stroke=\"#404040\"").count(), 2);
        assert!(svg.contains(">160 ms<"), "{svg}");
        assert!(svg.contains(">4.00 ms<"), "{svg}");
    }
}
