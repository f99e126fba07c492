//! `ccl-bench`: the benchmark harness of `ccl` and the `ccl` command-line
//! tool. [`sweep`] times every chosen variant over the benchmark's densities
//! and granularities through its timed path, checks every answer against the
//! reference, and writes, reads back and plots the results. Verification
//! images and checks come from `ccl-testkit`; the algorithms from the `ccl`
//! facade, which links them all. [`updates`] holds the atomic feature
//! update counts of `ccl-cuda-flsl`'s analyses against density (`ccl
//! updates`), as CSV and as a plot. [`volume_sweep`] times the variants
//! that label volumes on random volumes in 6-, 18- and 26-connectivity
//! (`ccl sweep --volume`), with its own CSV and summary.

mod chart;
pub mod sweep;
pub mod updates;
pub mod volume_sweep;
