//! Pixel and voxel connectivity.

/// Which neighbours of a pixel (2-D) or voxel (3-D) belong to its component.
///
/// 4 and 8 are the images' connectivities, 6, 18 and 26 the volumes': the
/// connectivity says how many dimensions the input has, and a variant
/// declares which of the five it implements. Parses from `4`, `four`, `8`,
/// `eight`, `6`, `six`, `18`, `eighteen`, `26` or `twenty-six` (any case)
/// and prints as the number.
///
/// ```
/// use ccl_core::Connectivity;
/// assert_eq!("eight".parse::<Connectivity>()?, Connectivity::Eight);
/// assert_eq!(Connectivity::Four.to_string(), "4");
/// assert_eq!("26".parse::<Connectivity>()?.dimensions(), 3);
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
    /// Voxels that share a face: ±1 along one axis.
    #[strum(to_string = "6", serialize = "six")]
    Six,
    /// Voxels that share a face or an edge: ±1 along at most two axes.
    #[strum(to_string = "18", serialize = "eighteen")]
    Eighteen,
    /// Voxels that share a face, an edge or a corner.
    #[strum(to_string = "26", serialize = "twenty-six", serialize = "twentysix")]
    TwentySix,
}

impl Connectivity {
    /// The connectivities of 2-D images, 4 first.
    pub const PLANE: [Connectivity; 2] = [Connectivity::Four, Connectivity::Eight];

    /// The connectivities of 3-D volumes, 6 first.
    pub const VOLUME: [Connectivity; 3] = [
        Connectivity::Six,
        Connectivity::Eighteen,
        Connectivity::TwentySix,
    ];

    /// The number of neighbours: 4, 8, 6, 18 or 26.
    pub fn neighbours(self) -> u32 {
        match self {
            Connectivity::Four => 4,
            Connectivity::Eight => 8,
            Connectivity::Six => 6,
            Connectivity::Eighteen => 18,
            Connectivity::TwentySix => 26,
        }
    }

    /// 2 for the images' connectivities, 3 for the volumes'.
    pub fn dimensions(self) -> usize {
        match self {
            Connectivity::Four | Connectivity::Eight => 2,
            Connectivity::Six | Connectivity::Eighteen | Connectivity::TwentySix => 3,
        }
    }

    /// The connectivity numbered `neighbours` (4, 8, 6, 18 or 26), if any.
    pub fn from_neighbours(neighbours: u32) -> Option<Connectivity> {
        Connectivity::PLANE
            .into_iter()
            .chain(Connectivity::VOLUME)
            .find(|c| c.neighbours() == neighbours)
    }

    /// For an image's connectivity, whether diagonal neighbours count (8)
    /// or not (4); for a volume's, the error of
    /// [`check_dimensions`](Self::check_dimensions)`(2)`. What a 2-D
    /// labeler branches on.
    pub fn image_diagonals(self) -> crate::Result<bool> {
        self.check_dimensions(2)?;
        Ok(self == Connectivity::Eight)
    }

    /// `Ok` when this connectivity is one of `dimensions`-D inputs, else an
    /// error saying which ones are (a volume labeled with 4, an image with 26).
    pub fn check_dimensions(self, dimensions: usize) -> crate::Result<()> {
        if self.dimensions() == dimensions {
            return Ok(());
        }
        let (input, accepted) = if dimensions == 3 {
            ("a volume (3-D)", "6, 18 or 26")
        } else {
            ("an image (2-D)", "4 or 8")
        };
        Err(crate::Error::InvalidArgument(format!(
            "{self}-connectivity is for {}-D inputs; {input} takes {accepted}",
            self.dimensions()
        )))
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
            ("6", Connectivity::Six),
            ("18", Connectivity::Eighteen),
            ("twenty-six", Connectivity::TwentySix),
            ("26", Connectivity::TwentySix),
        ] {
            assert_eq!(text.parse::<Connectivity>().unwrap(), c, "{text}");
        }
        assert!("12".parse::<Connectivity>().is_err());
    }

    #[test]
    fn dimensions_follow_the_connectivity() {
        for c in Connectivity::PLANE {
            assert_eq!(c.dimensions(), 2);
            assert!(c.check_dimensions(3).is_err());
            assert_eq!(Connectivity::from_neighbours(c.neighbours()), Some(c));
        }
        for c in Connectivity::VOLUME {
            assert_eq!(c.dimensions(), 3);
            assert!(c.check_dimensions(3).is_ok());
            let message = c.check_dimensions(2).unwrap_err().to_string();
            assert!(message.contains("4 or 8"), "{message}");
            assert_eq!(Connectivity::from_neighbours(c.neighbours()), Some(c));
        }
        assert_eq!(Connectivity::from_neighbours(5), None);
    }
}
