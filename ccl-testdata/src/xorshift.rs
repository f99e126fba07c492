//! Marsaglia's xorshift generators ("Xorshift RNGs", Journal of Statistical
//! Software 2003): a few cheap numbers for a unit test, the same on every
//! platform and with no state beyond one word. Test images follow the
//! benchmark's MT19937 rule instead ([`random_image`](crate::random_image)).

/// The 32-bit xorshift with shifts 13, 17, 5.
///
/// ```
/// let mut numbers = ccl_testdata::Xorshift32::new(0x9e37_79b9);
/// let dice: Vec<u32> = (0..4).map(|_| numbers.below(6)).collect();
/// assert!(dice.iter().all(|&d| d < 6));
/// assert_eq!(dice, {
///     let mut again = ccl_testdata::Xorshift32::new(0x9e37_79b9);
///     (0..4).map(|_| again.below(6)).collect::<Vec<_>>()
/// });
/// ```
#[derive(Clone, Debug)]
pub struct Xorshift32(u32);

impl Xorshift32 {
    /// The stream from `seed` (0 is taken as 1: zero stays zero).
    pub fn new(seed: u32) -> Self {
        Self(seed.max(1))
    }

    /// The next number.
    pub fn next_u32(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 17;
        self.0 ^= self.0 << 5;
        self.0
    }

    /// The next number modulo `bound` (nonzero).
    pub fn below(&mut self, bound: u32) -> u32 {
        self.next_u32() % bound
    }
}

/// The 64-bit xorshift with shifts 13, 7, 17.
#[derive(Clone, Debug)]
pub struct Xorshift64(u64);

impl Xorshift64 {
    /// The stream from `seed` (0 is taken as 1: zero stays zero).
    pub fn new(seed: u64) -> Self {
        Self(seed.max(1))
    }

    /// The next number.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// The next number modulo `bound` (nonzero).
    pub fn below(&mut self, bound: u64) -> u64 {
        self.next_u64() % bound
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first numbers of the generators as Marsaglia defines them,
    /// computed by hand from the shifts.
    #[test]
    fn streams_follow_the_shifts() {
        let mut x = Xorshift32::new(1);
        // 1 ^ 1 << 13 = 0x2001; ^ >> 17 = 0x2001; ^ << 5 = 0x42021.
        assert_eq!(x.next_u32(), 0x0004_2021);
        let mut y = Xorshift64::new(1);
        // 1 ^ 1 << 13 = 0x2001; ^ >> 7 = 0x2041; ^ << 17 = 0x4082_2041.
        assert_eq!(y.next_u64(), 0x4082_2041);
        assert_eq!(Xorshift32::new(0).next_u32(), Xorshift32::new(1).next_u32());
    }
}
