//! The conformance kit of `ccl`: what every registered variant is checked
//! with, by this crate's own tests (over the whole registry, through the
//! `ccl` facade), by `ccl verify` and by the benchmark sweep.
//!
//! ```
//! use ccl_core::{BinaryImageBuf, Connectivity};
//! use ccl_testkit::{cases, conformance, verify};
//!
//! // The reference's answer for an image, and a variant checked against it.
//! let image = BinaryImageBuf::from_fn(5, 3, |x, y| (x + y) % 2 == 0)?;
//! let expected = verify::Expected::compute(&image.view(), Connectivity::Four)?;
//! assert_eq!(expected.components(), 8);
//!
//! // The conformance checks of one variant (here the reference itself) on
//! // some verification images: host calls, strided input, the timed path.
//! let reference = ccl_core::find(verify::REFERENCE)?;
//! let mut kit = conformance::Conformance::new(reference).expect("cpu-uf constructs");
//! for case in cases::random_cases(8) {
//!     kit.check(&case?);
//! }
//! assert_eq!(kit.failures(), &[] as &[String]);
//! # Ok::<(), ccl_core::Error>(())
//! ```
//!
//! - [`cases`]: the verification images (random, patterns, real) and how to
//!   make each again from the command line;
//! - [`verify`]: the reference's answer and the comparison of a variant's;
//! - [`conformance`]: every check a variant must pass, on any image;
//! - [`policy`]: when a variant that cannot run here is skipped and when it
//!   is a failure (`CCL_REQUIRE_GPU=1`, CI);
//! - [`volumes`]: the same for variants that label volumes (cases, the
//!   reference's answer, every check);
//! - [`wrong`]: a deliberately wrong variant, to show that checks fail.

pub mod batches;
pub mod cases;
pub mod conformance;
pub mod policy;
pub mod verify;
pub mod volumes;
pub mod wrong;
