//! One component's features as the device stores them.

use ccl_core::ComponentStats;
use cudarc::driver::{DeviceRepr, ValidAsZeroBits};

/// One component's features in device memory; the layout of `CclStats` in
/// `ccl_device.cuh`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DeviceStats {
    /// Number of pixels.
    pub area: u32,
    /// Smallest column.
    pub x_min: u32,
    /// Smallest row.
    pub y_min: u32,
    /// Largest column.
    pub x_max: u32,
    /// Largest row.
    pub y_max: u32,
    /// Keeps the sums 8-byte aligned, as in C.
    pub padding: u32,
    /// Sum of columns.
    pub sum_x: u64,
    /// Sum of rows.
    pub sum_y: u64,
}

// SAFETY: plain old data with C layout.
unsafe impl DeviceRepr for DeviceStats {}
// SAFETY: all-zero bytes are a valid value of every field.
unsafe impl ValidAsZeroBits for DeviceStats {}

impl From<DeviceStats> for ComponentStats {
    fn from(s: DeviceStats) -> Self {
        ComponentStats {
            area: s.area,
            x_min: s.x_min,
            y_min: s.y_min,
            x_max: s.x_max,
            y_max: s.y_max,
            sum_x: s.sum_x,
            sum_y: s.sum_y,
        }
    }
}
