//! Division by a value fixed for a launch (a row's slots, an image's rows),
//! as kernels divide item indices by it item after item: a multiply and
//! shifts in place of the dozen or more instructions of an integer
//! division by a value known only at run time. After Granlund and
//! Montgomery, "Division by invariant integers using multiplication"
//! (PLDI 1994); the form of Warren's *Hacker's Delight* (10-8), exact for
//! every 32-bit dividend. `ccl_divide` in `ccl_device.cuh` is the device
//! side.

use ccl_core::{Error, Result};
use cudarc::driver::DeviceRepr;

/// `CclDivisor`: a divisor and the multiplier and shift that divide by it.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Divisor {
    divisor: u32,
    /// 0 for a power of two, which `shift` alone divides by.
    multiplier: u32,
    shift: u32,
}

// SAFETY: plain old data with C layout, matching CclDivisor.
unsafe impl DeviceRepr for Divisor {}

impl Divisor {
    /// The multiplier and shift of `divisor`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for 0.
    pub fn new(divisor: u32) -> Result<Self> {
        if divisor == 0 {
            return Err(Error::InvalidArgument("a division by 0".into()));
        }
        if divisor.is_power_of_two() {
            return Ok(Self {
                divisor,
                multiplier: 0,
                shift: divisor.trailing_zeros(),
            });
        }
        // l = ceil(log2 d) >= 2; m = floor(2^32 (2^l - d) / d) + 1 < 2^32,
        // as 2^l - d < d.
        let l = u32::BITS - (divisor - 1).leading_zeros();
        let d = u128::from(divisor);
        let multiplier = ((1u128 << 32) * ((1u128 << l) - d) / d + 1) as u32;
        Ok(Self {
            divisor,
            multiplier,
            shift: l - 1,
        })
    }

    /// `n / divisor`, as `ccl_divide` computes it on the device.
    pub fn divide(&self, n: u32) -> u32 {
        if self.multiplier == 0 {
            return n >> self.shift;
        }
        let t = ((u64::from(n) * u64::from(self.multiplier)) >> 32) as u32;
        (t + ((n - t) >> 1)) >> self.shift
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every divisor's edges: dividends near 0, near its multiples and near
    /// 2^32.
    #[test]
    fn divides_exactly_at_the_edges() {
        let divisors = (1..=1100)
            .chain([
                (1 << 31) - 1,
                1 << 31,
                (1 << 31) + 1,
                3_000_000_019,
                u32::MAX - 1,
                u32::MAX,
            ])
            .chain((2..32).flat_map(|k| [(1u32 << k) - 1, (1u32 << k) + 1]));
        for d in divisors {
            let divisor = Divisor::new(d).unwrap();
            let mut dividends: Vec<u32> = (0..64).collect();
            dividends.extend((u32::MAX - 64)..=u32::MAX);
            for k in [1u64, 2, 3, 1000, u64::from(u32::MAX / d)] {
                let multiple = k * u64::from(d);
                for delta in [-1i64, 0, 1] {
                    if let Ok(n) = u32::try_from(multiple as i64 + delta) {
                        dividends.push(n);
                    }
                }
            }
            for n in dividends {
                assert_eq!(divisor.divide(n), n / d, "{n} / {d}");
            }
        }
    }

    #[test]
    fn refuses_zero() {
        assert!(Divisor::new(0).is_err());
    }

    proptest! {
        #[test]
        fn divides_exactly(n in any::<u32>(), d in 1u32..) {
            prop_assert_eq!(Divisor::new(d).unwrap().divide(n), n / d);
        }
    }
}
