//! The registered HA variants.

use ccl_core::Connectivity;
use ccl_cuda::backend::VariantInfo;

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
    /// `ha8-64` (formerly `ha8`): 8-connectivity, 64-pixel words.
    Ha8W64,
}

impl HaVariant {
    /// Registry name.
    pub const fn name(self) -> &'static str {
        match self {
            HaVariant::Ha4W32 => "ha4-32",
            HaVariant::Ha4W64 => "ha4-64",
            HaVariant::Ha8W32 => "ha8-32",
            HaVariant::Ha8W64 => "ha8-64",
        }
    }

    /// Pixels per word: 32 or 64.
    pub const fn word_bits(self) -> u32 {
        match self {
            HaVariant::Ha4W32 | HaVariant::Ha8W32 => 32,
            HaVariant::Ha4W64 | HaVariant::Ha8W64 => 64,
        }
    }

    /// The one connectivity it implements, as the registry declares it.
    pub const fn connectivities(self) -> &'static [Connectivity] {
        match self {
            HaVariant::Ha4W32 | HaVariant::Ha4W64 => &[Connectivity::Four],
            HaVariant::Ha8W32 | HaVariant::Ha8W64 => &[Connectivity::Eight],
        }
    }

    /// What the variant layer checks calls against.
    pub const fn info(self) -> VariantInfo {
        VariantInfo {
            name: self.name(),
            connectivities: self.connectivities(),
            analyzes: true,
        }
    }

    /// Kernel name prefix of the labeling kernels, e.g. `ha_w64_c4`.
    pub(crate) fn label_kernels(self) -> String {
        let connectivity = self.connectivities()[0];
        format!("ha_w{}_c{connectivity}", self.word_bits())
    }

    /// Kernel name prefix of the per-word kernels, e.g. `ha_w64`.
    pub(crate) fn word_kernels(self) -> String {
        format!("ha_w{}", self.word_bits())
    }
}

// Priorities follow the H200 sweep of bench/2026-11-22-h200: the 32-pixel
// words are faster there. `ha4-32` is the fastest 4-connectivity labeler of
// bench/2026-11-23-h200-structure (65.9 / 83.6 / 110.5 Gpx/s at g = 1 / 4 /
// 16, `flsl-cd` 58.6 / 85.0 / 98.6): the default for it.
macro_rules! register {
    ($variant:expr, $aliases:expr, $summary:literal, $priority:literal $(, $preferred_for:expr)?) => {
        ccl_cuda::register_variant! {
            name: $variant.name(),
            aliases: $aliases,
            connectivities: $variant.connectivities(),
            analyzes: $variant.info().analyzes,
            summary: $summary,
            priority: $priority,
            $(preferred_for: $preferred_for,)?
            new: |gpu, _| Ha::new(gpu, $variant),
        }
    };
}

register!(
    HaVariant::Ha4W32,
    &[],
    "HA4, strips of 4 rows, one warp per row, 32-pixel words (Hennequin et al., DASIP 2018)",
    60
);
register!(
    HaVariant::Ha4W64,
    &[],
    "HA4 with 64-pixel words, two pixels per lane (Hennequin et al., DASIP 2018, Alg. 7)",
    55
);
register!(
    HaVariant::Ha8W32,
    &[],
    "HA8: HA4 extended to 8-connectivity, 32-pixel words (after Hennequin et al., DASIP 2018)",
    60
);
register!(
    HaVariant::Ha8W64,
    &["ha8"],
    "HA8 with 64-pixel words, two pixels per lane (after Hennequin et al., DASIP 2018)",
    55
);
