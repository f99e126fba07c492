//! A deliberately wrong variant, to show that checks catch wrong answers.

use ccl_core::{
    Algorithm, Analyzer, Backend, BinaryImage, ComponentStats, Connectivity, HostTimedRun,
    LabelImage, Labeler, Result,
};

/// Puts every foreground pixel in one component: wrong on any image with
/// two or more components.
pub struct MergeAll;

impl Labeler for MergeAll {
    fn label(&mut self, image: &BinaryImage<'_>, _: Connectivity) -> Result<LabelImage> {
        let labels = image
            .to_buf()
            .pixels()
            .iter()
            .map(|&p| u32::from(p))
            .collect();
        LabelImage::new(image.width(), image.height(), labels)
    }
}

impl Analyzer for MergeAll {
    fn analyze(&mut self, image: &BinaryImage<'_>, c: Connectivity) -> Result<Vec<ComponentStats>> {
        Ok(ComponentStats::from_labels(&self.label(image, c)?))
    }
}

/// [`MergeAll`] as a registry entry (not registered).
pub const MERGE_ALL: Algorithm = Algorithm {
    name: "merge-all",
    aliases: &[],
    crate_name: env!("CARGO_PKG_NAME"),
    backend: Backend::Cpu,
    connectivities: &[Connectivity::Four, Connectivity::Eight],
    summary: "every foreground pixel in one component (wrong on purpose)",
    priority: 0,
    preferred_for: &[],
    probe: || Ok(()),
    labeler: Some(|| Ok(Box::new(MergeAll))),
    analyzer: Some(|| Ok(Box::new(MergeAll))),
    timed: || Ok(Box::new(HostTimedRun::new(MergeAll))),
};
