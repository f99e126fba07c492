//! The shared CCL / CCA back end that every CUDA variant builds on, over
//! the [`runtime`](crate::runtime): the bit front end ([`BitImage`]: a byte
//! image packed into words of 32 pixels), the variant layer ([`DeviceVariant`],
//! [`CudaVariant`], [`register_variant!`](crate::register_variant)), the
//! numbering and analysis of any forest of the contract in `ccl_device.cuh`
//! ([`Features`]: root flags, ranking in raster order, canonical labels,
//! features), the forest compression ([`Flatten`]), the clean-up of
//! canonical labels by a `Filter` ([`DeviceFilter`]), the labeling of class
//! maps ([`ClassLabeler`]), rounds until a fixed point ([`ChangeFlag`]), and
//! variants made by name on a caller's stream ([`variant_on`]).

mod bits;
mod by_name;
mod classes;
mod features;
mod filter;
mod rounds;
mod stats;
mod variant;
mod volume;

pub use bits::{BitImage, BitImageArgs};
pub use by_name::{DeviceRegistration, variant_on};
pub use classes::{
    ClassLabeler, ClassPlugin, ClassShape, PluggedClassLabeling, class_value_size_index,
};
pub use features::{
    Analyzed, DeviceNode, Features, FilterVotes, Filtered, FlagRoots, Flatten, Numbered,
    ROOT_GROUP_WORDS, Ranked, RanksOnly, RootIndexArgs, RootLayout, RootTargets, RootsFlagged,
    StatsOutArgs, check_forest,
};
pub use filter::{Cleanup, DeviceFilter, FilterOutput, Kept, LabelShape, RankedFeatures};
pub use rounds::ChangeFlag;
pub use stats::DeviceStats;
pub use variant::{CudaVariant, DeviceVariant, DynVariant, Run, VariantInfo};
pub use volume::{DeviceVolumeStats, Slices, VolumeFeatures, VolumeStatsOutArgs, with_rows};
