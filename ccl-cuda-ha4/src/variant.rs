//! The three registered HA variants.

use ccl_core::{Algorithm, Backend, Connectivity, Labeler};
use ccl_cuda::inventory;

use crate::Ha;

/// Which HA kernels run: word width and connectivity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HaVariant {
    /// `ha4-32`: 4-connectivity, 32-pixel words (one pixel per lane).
    Ha4W32,
    /// `ha4-64`: 4-connectivity, 64-pixel words (two pixels per lane).
    Ha4W64,
    /// `ha8-32`: 8-connectivity, 32-pixel words.
    Ha8W32,
    /// `ha8`: 8-connectivity, 64-pixel words.
    Ha8,
}

impl HaVariant {
    /// Every variant.
    pub const ALL: [HaVariant; 4] = [
        HaVariant::Ha4W32,
        HaVariant::Ha4W64,
        HaVariant::Ha8W32,
        HaVariant::Ha8,
    ];

    /// Registry name.
    pub const fn name(self) -> &'static str {
        match self {
            HaVariant::Ha4W32 => "ha4-32",
            HaVariant::Ha4W64 => "ha4-64",
            HaVariant::Ha8W32 => "ha8-32",
            HaVariant::Ha8 => "ha8",
        }
    }

    /// Pixels per word: 32 or 64.
    pub fn word_bits(self) -> u32 {
        match self {
            HaVariant::Ha4W32 | HaVariant::Ha8W32 => 32,
            HaVariant::Ha4W64 | HaVariant::Ha8 => 64,
        }
    }

    /// The one connectivity it implements.
    pub const fn connectivity(self) -> Connectivity {
        match self {
            HaVariant::Ha4W32 | HaVariant::Ha4W64 => Connectivity::Four,
            HaVariant::Ha8W32 | HaVariant::Ha8 => Connectivity::Eight,
        }
    }

    pub(crate) const fn connectivities(self) -> &'static [Connectivity] {
        match self {
            HaVariant::Ha4W32 | HaVariant::Ha4W64 => &[Connectivity::Four],
            HaVariant::Ha8W32 | HaVariant::Ha8 => &[Connectivity::Eight],
        }
    }

    /// Kernel name prefix of the labeling kernels, e.g. `ha_w64_c4`.
    pub(crate) fn label_kernels(self) -> String {
        format!("ha_w{}_c{}", self.word_bits(), self.connectivity())
    }

    /// Kernel name prefix of the per-word kernels, e.g. `ha_w64`.
    pub(crate) fn word_kernels(self) -> String {
        format!("ha_w{}", self.word_bits())
    }
}

fn boxed(variant: HaVariant) -> ccl_core::Result<Box<Ha>> {
    Ok(Box::new(Ha::new(variant)?))
}

// Priorities follow the H200 sweep of bench/2026-11-22-h200: the 32-pixel
// words are faster there, so they are the CLI's default.
macro_rules! register {
    ($variant:expr, $summary:literal, $priority:literal) => {
        inventory::submit! {
            Algorithm {
                name: $variant.name(),
                backend: Backend::Cuda,
                connectivities: $variant.connectivities(),
                summary: $summary,
                priority: $priority,
                probe: ccl_cuda::probe,
                labeler: Some(|| Ok(boxed($variant)? as Box<dyn Labeler>)),
                analyzer: Some(|| Ok(boxed($variant)? as Box<dyn ccl_core::Analyzer>)),
                timed: || Ok(boxed($variant)? as Box<dyn ccl_core::TimedRun>),
            }
        }
    };
}

register!(
    HaVariant::Ha4W32,
    "HA4, strips of 4 rows, one warp per row, 32-pixel words (Hennequin et al., DASIP 2018)",
    60
);
register!(
    HaVariant::Ha4W64,
    "HA4 with 64-pixel words, two pixels per lane (Hennequin et al., DASIP 2018, Alg. 7)",
    55
);
register!(
    HaVariant::Ha8W32,
    "HA8 with 32-pixel words, one pixel per lane (after Hennequin et al., DASIP 2018)",
    60
);
register!(
    HaVariant::Ha8,
    "HA8: HA4 extended to 8-connectivity, 64-pixel words (after Hennequin et al., DASIP 2018)",
    55
);
