//! Pixel connectivity.

/// Which neighbours of a pixel belong to its component.
///
/// Parses from `4`, `four`, `8` or `eight` (any case) and prints as `4` / `8`.
///
/// ```
/// use ccl_core::Connectivity;
/// assert_eq!("eight".parse::<Connectivity>()?, Connectivity::Eight);
/// assert_eq!(Connectivity::Four.to_string(), "4");
/// # Ok::<(), strum::ParseError>(())
/// ```
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    strum::EnumString,
    strum::Display,
    strum::EnumIter,
    strum::IntoStaticStr,
)]
#[strum(ascii_case_insensitive)]
pub enum Connectivity {
    /// Left, right, up and down neighbours.
    #[strum(to_string = "4", serialize = "four")]
    Four,
    /// The four of [`Connectivity::Four`] and the four diagonals.
    #[strum(to_string = "8", serialize = "eight")]
    Eight,
}

impl Connectivity {
    /// Both connectivities, 4 first.
    pub const ALL: [Connectivity; 2] = [Connectivity::Four, Connectivity::Eight];

    /// 4 or 8.
    pub fn neighbours(self) -> u32 {
        match self {
            Connectivity::Four => 4,
            Connectivity::Eight => 8,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_spelling() {
        for (text, c) in [
            ("4", Connectivity::Four),
            ("four", Connectivity::Four),
            ("FOUR", Connectivity::Four),
            ("8", Connectivity::Eight),
            ("Eight", Connectivity::Eight),
        ] {
            assert_eq!(text.parse::<Connectivity>().unwrap(), c, "{text}");
        }
        assert!("6".parse::<Connectivity>().is_err());
    }
}
