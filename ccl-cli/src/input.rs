//! The input of `label` and `analyze`: an image or a volume, read and
//! binarized as the options say.
//!
//! The connectivity says which, when it is given (4 or 8: an image; 6, 18
//! or 26: a volume, an image being one of depth 1), as Python's
//! `ccl.label` decides; without it the file's first bytes do: a 3-D `.npy`
//! or a TIFF of several pages is a volume (labeled in 26-connectivity),
//! anything else an image (in 8). What cannot be looked at before it is
//! read (standard input, a pipe) is read as a volume and taken for an image
//! when it has one slice.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use ccl_core::{Algorithm, BinaryImageBuf, BinaryVolumeBuf, Connectivity, Task};
use ccl_io::{Binarization, Channel, ReadOptions, Threshold};

use crate::args::{
    choose_algorithm, parse_any_connectivity, parse_max_pixels, parse_page, parse_threshold,
};

/// The file, its binarization, the algorithm and the connectivity that
/// `label` and `analyze` take.
#[derive(clap::Args)]
pub(crate) struct Input {
    /// Input image or volume, or - for standard input. Images: PNG,
    /// PGM/PBM/PPM/PAM, TIFF, or a 2-D NumPy .npy. Volumes: a TIFF of
    /// several pages (a stack, one page a slice) or a 3-D .npy of shape
    /// (depth, height, width). By default every nonzero pixel is foreground
    /// (masks): in a colour image, a pixel with any colour channel nonzero,
    /// whatever its alpha (--alpha reads the alpha channel instead). Gray
    /// photos and scans need --threshold or --otsu.
    #[arg(value_name = "INPUT")]
    pub path: PathBuf,
    /// Foreground where the gray value is above T (0..=255, or 0..=65535
    /// for 16-bit images), as OpenCV's THRESH_BINARY.
    #[arg(
        long,
        value_name = "T",
        conflicts_with = "otsu",
        allow_negative_numbers = true,
        value_parser = parse_threshold
    )]
    pub threshold: Option<u32>,
    /// Foreground above Otsu's threshold of the gray values (the automatic
    /// choice, as OpenCV's THRESH_OTSU; of every slice's values together
    /// for a volume).
    #[arg(long)]
    pub otsu: bool,
    /// Swap foreground and background after thresholding: dark objects on
    /// a light background (scans, bright-field microscopy).
    #[arg(long)]
    pub invert: bool,
    /// Use the alpha channel as the mask: every pixel that is not fully
    /// transparent is foreground (with --threshold or --otsu, the alpha
    /// values are thresholded). For RGBA and gray + alpha images.
    #[arg(long)]
    pub alpha: bool,
    /// Read page N of a multi-page TIFF as an image, counted from 0 (as
    /// tifffile and ImageMagick count; ImageJ's slice N is page N-1).
    /// Without --page a TIFF of several pages is a volume (which -c 4 or 8
    /// refuses); --page with -c 6, 18 or 26 is an error.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_page)]
    pub page: Option<usize>,
    /// The most pixels (or voxels) the input may have, checked from its
    /// header before anything is decoded: a guard against decompression
    /// bombs and typos (reading and labelling take 5 bytes a pixel or
    /// more; the default, 2^30 = 32768x32768 or 1024x1024x1024, about 6
    /// GiB). 32-bit labels allow at most 4294967294 whatever this says.
    /// Not applied with --max-gpu-memory, which holds only strips in host
    /// memory, whatever the input's size.
    #[arg(
        long,
        value_name = "N",
        default_value_t = ccl_io::DEFAULT_MAX_PIXELS,
        allow_negative_numbers = true,
        value_parser = parse_max_pixels
    )]
    pub max_pixels: u64,
    /// Algorithm (see `ccl list`); default: the preferred one available here.
    #[arg(short, long)]
    pub algorithm: Option<String>,
    /// Connectivity: 4 or 8 for an image, 6, 18 or 26 for a volume. It says
    /// how the input is read: 6, 18 or 26 as a volume (a 2-D image is one
    /// of depth 1), 4 or 8 as an image [default: 26 for a volume (a 3-D
    /// .npy, a TIFF of several pages), else 8].
    #[arg(short, long, value_name = "4|8|6|18|26", value_parser = parse_any_connectivity)]
    pub connectivity: Option<Connectivity>,
}

/// How an input is read, decided before it is: [`Input::plan`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Plan {
    /// An image, by ccl-io's image reader: PNG, PNM, a TIFF of one page, a
    /// TIFF's page.
    Image,
    /// An image, by ccl-io's volume reader, the only one that reads a
    /// `.npy` (a 2-D array, or standard input under -c 4 or 8); a volume of
    /// more than one slice is refused, naming the volumes' connectivities.
    ImageFromVolume,
    /// A volume.
    Volume,
    /// By the volume reader, then a volume when it has other than one
    /// slice, else an image: what cannot be looked at before it is read,
    /// when no connectivity says which.
    ByDepth,
}

impl Plan {
    /// 2 or 3 where the plan knows before reading, else `None`.
    pub(crate) fn dimensions(self) -> Option<usize> {
        match self {
            Plan::Image | Plan::ImageFromVolume => Some(2),
            Plan::Volume => Some(3),
            Plan::ByDepth => None,
        }
    }
}

/// What was read.
pub(crate) enum Data {
    /// A binary image.
    Image(BinaryImageBuf),
    /// A binary volume.
    Volume(BinaryVolumeBuf),
}

/// The binarized input, the connectivity to use on it and the variant that
/// runs the task.
pub(crate) struct Loaded {
    /// The image or volume.
    pub data: Data,
    /// The connectivity given, or the default of the input's kind.
    pub connectivity: Connectivity,
    /// The variant named, or the preferred one for the task and connectivity.
    pub algorithm: &'static Algorithm,
}

/// What a file's first bytes say it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Probe {
    /// A NumPy `.npy` and its number of dimensions (`None`: a header not
    /// understood here; the reader says what is wrong with it).
    Npy(Option<usize>),
    /// A TIFF, and whether it has more than one page.
    Tiff { several: bool },
    /// Any other file: an image, or what the image reader refuses.
    Other,
    /// Standard input, a pipe or a device: looking at it would consume it.
    Unseen,
}

impl Input {
    /// How the input will be read: from the connectivity when it is given,
    /// and from the file's first bytes.
    ///
    /// # Errors
    /// An image's connectivity (4 or 8) for a 3-D `.npy` or a TIFF of
    /// several pages without `--page`.
    pub(crate) fn plan(&self) -> Result<Plan, crate::Error> {
        if self.connectivity.is_some_and(|c| c.dimensions() == 3) {
            return Ok(Plan::Volume);
        }
        let probe = probe(&self.path);
        if self.page.is_some() {
            // A page is a TIFF's 2-D image; the volume reader refuses a page
            // of a `.npy`, saying why.
            return Ok(match probe {
                Probe::Npy(_) => Plan::ImageFromVolume,
                _ => Plan::Image,
            });
        }
        let name = self.path.display();
        Ok(match (self.connectivity, probe) {
            (None, Probe::Npy(Some(3)) | Probe::Tiff { several: true }) => Plan::Volume,
            (None, Probe::Npy(Some(2))) => Plan::ImageFromVolume,
            (None, Probe::Npy(_) | Probe::Unseen) => Plan::ByDepth,
            (Some(c), Probe::Npy(Some(3))) => {
                return Err(format!(
                    "{name} is a 3-D .npy array, a volume: {c}-connectivity is for images; \
                     give -c 6, 18 or 26 (or no -c: 26)"
                )
                .into());
            }
            (Some(c), Probe::Tiff { several: true }) => {
                return Err(format!(
                    "{name} is a TIFF of several pages, a volume (one page a slice): \
                     {c}-connectivity is for images; give -c 6, 18 or 26 (or no -c: 26) to \
                     label it as a volume, or --page N to read page N as an image"
                )
                .into());
            }
            (Some(_), Probe::Npy(_) | Probe::Unseen) => Plan::ImageFromVolume,
            (_, Probe::Tiff { several: false } | Probe::Other) => Plan::Image,
        })
    }

    /// Reads the input as `plan` says and chooses the variant for `task`.
    /// Says on stderr when a gray image (or alpha channel) is read with the
    /// nonzero rule, when the default rule ignored transparent pixels, and
    /// which threshold Otsu's method chose.
    ///
    /// # Errors
    /// A variant that cannot run `task` in the connectivity here (refused
    /// before the file is read, but for [`Plan::ByDepth`], whose
    /// connectivity only the file says); what the readers refuse; a volume
    /// of several slices read as an image.
    pub(crate) fn load(&self, plan: Plan, task: Task) -> Result<Loaded, crate::Error> {
        let options = self.read_options();
        let image_connectivity = self.connectivity.unwrap_or(Connectivity::Eight);
        let volume_connectivity = self.connectivity.unwrap_or(Connectivity::TwentySix);
        let loaded = match plan {
            Plan::Image => {
                let algorithm = self.choose(task, image_connectivity)?;
                let decoded = ccl_io::read_image(&self.path, &options)?;
                self.note("pixel", decoded.gray_levels, decoded.threshold);
                self.note_translucent(decoded.translucent);
                Loaded {
                    data: Data::Image(decoded.image),
                    connectivity: image_connectivity,
                    algorithm,
                }
            }
            Plan::ImageFromVolume => {
                let algorithm = self.choose(task, image_connectivity)?;
                let decoded = ccl_io::read_volume(&self.path, &options)?;
                if decoded.volume.depth() != 1 {
                    let name = if self.path == Path::new("-") {
                        "standard input".into()
                    } else {
                        self.path.display().to_string()
                    };
                    return Err(format!(
                        "{name} is a volume of {} slices: {image_connectivity}-connectivity is \
                         for images; give -c 6, 18 or 26 (or no -c: 26)",
                        decoded.volume.depth()
                    )
                    .into());
                }
                self.note("pixel", decoded.gray_levels, decoded.threshold);
                self.note_translucent(decoded.translucent);
                Loaded {
                    data: Data::Image(single_slice(&decoded.volume)?),
                    connectivity: image_connectivity,
                    algorithm,
                }
            }
            Plan::Volume => {
                let algorithm = self.choose(task, volume_connectivity)?;
                let decoded = ccl_io::read_volume(&self.path, &options)?;
                self.note("voxel", decoded.gray_levels, decoded.threshold);
                self.note_translucent(decoded.translucent);
                Loaded {
                    data: Data::Volume(decoded.volume),
                    connectivity: volume_connectivity,
                    algorithm,
                }
            }
            Plan::ByDepth => {
                // A name that is not registered is refused before the input
                // is read; whether the variant takes the input's
                // connectivity, once it is known.
                if let Some(name) = &self.algorithm {
                    ccl::find(name)?;
                }
                let decoded = ccl_io::read_volume(&self.path, &options)?;
                let (data, connectivity, unit) = if decoded.volume.depth() == 1 {
                    let image = single_slice(&decoded.volume)?;
                    (Data::Image(image), image_connectivity, "pixel")
                } else {
                    (Data::Volume(decoded.volume), volume_connectivity, "voxel")
                };
                let algorithm = self.choose(task, connectivity)?;
                self.note(unit, decoded.gray_levels, decoded.threshold);
                self.note_translucent(decoded.translucent);
                Loaded {
                    data,
                    connectivity,
                    algorithm,
                }
            }
        };
        Ok(loaded)
    }

    /// The variant for `task` in `connectivity`.
    fn choose(
        &self,
        task: Task,
        connectivity: Connectivity,
    ) -> ccl_core::Result<&'static Algorithm> {
        choose_algorithm(self.algorithm.as_deref(), task, connectivity)
    }

    /// The threshold rule the options say.
    pub(crate) fn threshold(&self) -> Threshold {
        match (self.threshold, self.otsu) {
            (Some(t), _) => Threshold::Above(t),
            (None, true) => Threshold::Otsu,
            (None, false) => Threshold::Nonzero,
        }
    }

    /// The readers' options.
    fn read_options(&self) -> ReadOptions {
        ReadOptions {
            binarization: Binarization {
                threshold: self.threshold(),
                invert: self.invert,
                channel: if self.alpha {
                    Channel::Alpha
                } else {
                    Channel::Colour
                },
            },
            page: self.page,
            max_pixels: self.max_pixels,
        }
    }

    /// The notes on a gray input read by the nonzero rule and on Otsu's
    /// threshold; `unit` is `pixel` or `voxel`.
    fn note(&self, unit: &str, gray_levels: usize, threshold: Option<u32>) {
        let name = self.path.display();
        match (self.threshold(), threshold) {
            (Threshold::Nonzero, _) if gray_levels > 2 && self.alpha => eprintln!(
                "note: the alpha channel of {name} is not binary (it has more than two \
                 levels); every {unit} that is not fully transparent is foreground. Use \
                 --threshold T or --otsu to binarize it."
            ),
            (Threshold::Nonzero, _) if gray_levels > 2 => eprintln!(
                "note: {name} is not a binary mask (it has more than two gray levels); every \
                 nonzero {unit} is foreground. Use --threshold T or --otsu to binarize it, with \
                 --invert for dark objects on a light background."
            ),
            (Threshold::Otsu, Some(t)) => eprintln!("note: Otsu's threshold for {name} is {t}"),
            _ => {}
        }
    }

    /// The note on transparency that the default rule ignored.
    fn note_translucent(&self, translucent: bool) {
        if translucent && !self.alpha {
            eprintln!(
                "note: {} has transparent pixels; the alpha channel is ignored (the colour \
                 channels decide, and transparent pixels with colour are foreground). Use \
                 --alpha to make the alpha channel the mask.",
                self.path.display()
            );
        }
    }
}

/// The one slice of a volume of depth 1, as an image.
fn single_slice(volume: &BinaryVolumeBuf) -> ccl_core::Result<BinaryImageBuf> {
    BinaryImageBuf::from_pixels(volume.voxels().to_vec(), volume.width(), volume.height())
}

/// Looks at a regular file's first bytes (never at standard input, a pipe
/// or a device, which looking at would consume); a file that cannot be
/// opened or read is [`Probe::Other`], for the reader to name the error.
fn probe(path: &Path) -> Probe {
    if path == Path::new("-") {
        return Probe::Unseen;
    }
    match std::fs::metadata(path) {
        Ok(metadata) if metadata.is_file() => {}
        Ok(_) => return Probe::Unseen,
        Err(_) => return Probe::Other,
    }
    let Ok(mut file) = File::open(path) else {
        return Probe::Other;
    };
    let mut head = Vec::with_capacity(16);
    if (&mut file).take(16).read_to_end(&mut head).is_err() {
        return Probe::Other;
    }
    if head.starts_with(b"\x93NUMPY") {
        return Probe::Npy(npy_dimensions(&mut file, &head));
    }
    if let Some(several) = tiff_has_several_pages(&mut file, &head) {
        return Probe::Tiff { several };
    }
    // The readers fall back on the extension too: a `.npy` that is not one
    // is the volume reader's to refuse.
    let npy = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("npy"));
    if npy { Probe::Npy(None) } else { Probe::Other }
}

/// The number of dimensions of a `.npy` array (the length of its header's
/// `shape` tuple), or `None` where the header is not read here.
fn npy_dimensions(file: &mut File, head: &[u8]) -> Option<usize> {
    // Format 1.0 has a 2-byte header length, 2.0 and 3.0 a 4-byte one.
    let (length, start) = match head.get(6)? {
        1 => (
            u64::from(u16::from_le_bytes(head.get(8..10)?.try_into().ok()?)),
            10,
        ),
        2 | 3 => (
            u64::from(u32::from_le_bytes(head.get(8..12)?.try_into().ok()?)),
            12,
        ),
        _ => return None,
    };
    file.seek(SeekFrom::Start(start)).ok()?;
    // numpy writes headers of a few hundred bytes; a longer one is left to
    // the reader, which bounds it.
    let mut header = Vec::new();
    file.take(length.min(1 << 16))
        .read_to_end(&mut header)
        .ok()?;
    shape_dimensions(&String::from_utf8_lossy(&header))
}

/// The length of the `shape` tuple of a `.npy` header's dictionary:
/// `(2, 3, 4)` is 3, `(5,)` is 1, `()` is 0.
fn shape_dimensions(header: &str) -> Option<usize> {
    let key = header
        .find("'shape'")
        .or_else(|| header.find("\"shape\""))?;
    let rest = &header[key..];
    let open = rest.find('(')?;
    let close = open + rest[open..].find(')')?;
    Some(
        rest[open + 1..close]
            .split(',')
            .filter(|side| !side.trim().is_empty())
            .count(),
    )
}

/// For a TIFF (classic or BigTIFF, either byte order), whether its first
/// directory links to another, i.e. it has more than one page; `None` when
/// `head` is not a TIFF's. A directory that cannot be read is taken for the
/// last: the reader then says what is wrong with the file.
fn tiff_has_several_pages(file: &mut File, head: &[u8]) -> Option<bool> {
    let little = match head.get(..2)? {
        b"II" => true,
        b"MM" => false,
        _ => return None,
    };
    let u16_of = |bytes: [u8; 2]| {
        if little {
            u16::from_le_bytes(bytes)
        } else {
            u16::from_be_bytes(bytes)
        }
    };
    let u32_of = |bytes: [u8; 4]| {
        if little {
            u32::from_le_bytes(bytes)
        } else {
            u32::from_be_bytes(bytes)
        }
    };
    let u64_of = |bytes: [u8; 8]| {
        if little {
            u64::from_le_bytes(bytes)
        } else {
            u64::from_be_bytes(bytes)
        }
    };
    let big = match u16_of(head.get(2..4)?.try_into().ok()?) {
        42 => false,
        43 => true,
        _ => return None,
    };
    let mut next = || -> Option<u64> {
        // Classic: a 4-byte offset of the first directory, which holds a
        // 2-byte entry count, 12-byte entries and a 4-byte next offset;
        // BigTIFF: 8, 8, 20 and 8 bytes.
        let first = if big {
            u64_of(head.get(8..16)?.try_into().ok()?)
        } else {
            u64::from(u32_of(head.get(4..8)?.try_into().ok()?))
        };
        file.seek(SeekFrom::Start(first)).ok()?;
        let entries = if big {
            let mut count = [0; 8];
            file.read_exact(&mut count).ok()?;
            u64_of(count).checked_mul(20)?
        } else {
            let mut count = [0; 2];
            file.read_exact(&mut count).ok()?;
            u64::from(u16_of(count)) * 12
        };
        file.seek(SeekFrom::Current(i64::try_from(entries).ok()?))
            .ok()?;
        if big {
            let mut offset = [0; 8];
            file.read_exact(&mut offset).ok()?;
            Some(u64_of(offset))
        } else {
            let mut offset = [0; 4];
            file.read_exact(&mut offset).ok()?;
            Some(u64::from(u32_of(offset)))
        }
    };
    Some(next().is_some_and(|offset| offset != 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `bytes` to `dir/name`.
    fn scratch(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn shapes_count_their_sides() {
        let dict =
            |shape: &str| format!("{{'descr': '|u1', 'fortran_order': False, 'shape': {shape}, }}");
        assert_eq!(shape_dimensions(&dict("(2, 3, 4)")), Some(3));
        assert_eq!(shape_dimensions(&dict("(3, 4)")), Some(2));
        assert_eq!(shape_dimensions(&dict("(5,)")), Some(1));
        assert_eq!(shape_dimensions(&dict("()")), Some(0));
        assert_eq!(shape_dimensions("{'descr': '|u1'}"), None);
    }

    #[test]
    fn files_are_probed_by_their_first_bytes() {
        let dir = std::env::temp_dir().join(format!("ccl-cli-probe-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let volume = BinaryVolumeBuf::from_fn(3, 2, 2, |x, _, z| x == z).unwrap();
        let slice = BinaryVolumeBuf::from_fn(3, 2, 1, |x, _, _| x == 1).unwrap();
        for (name, data, expected) in [
            ("v.npy", &volume, Probe::Npy(Some(3))),
            ("v.tif", &volume, Probe::Tiff { several: true }),
            ("s.tif", &slice, Probe::Tiff { several: false }),
        ] {
            ccl_io::save_volume(data, &dir.join(name)).unwrap();
            assert_eq!(probe(&dir.join(name)), expected, "{name}");
        }
        // numpy.save("i.npy", numpy.zeros((2, 3), numpy.uint8))
        let mut npy = b"\x93NUMPY\x01\x00\x76\x00".to_vec();
        let dict = "{'descr': '|u1', 'fortran_order': False, 'shape': (2, 3), }";
        npy.extend(format!("{dict:<117}\n").bytes());
        npy.extend([0; 6]);
        assert_eq!(probe(&scratch(&dir, "i.npy", &npy)), Probe::Npy(Some(2)));
        assert_eq!(
            probe(&scratch(&dir, "cut.npy", &npy[..9])),
            Probe::Npy(None)
        );
        assert_eq!(
            probe(&scratch(&dir, "fake.npy", b"hello")),
            Probe::Npy(None)
        );
        assert_eq!(probe(&scratch(&dir, "a.png", b"hello")), Probe::Other);
        // A TIFF whose directory lies past its end: one page, as far as
        // looking goes; the reader says what is wrong.
        assert_eq!(
            probe(&scratch(&dir, "cut.tif", b"II*\0\xff\0\0\0")),
            Probe::Tiff { several: false }
        );
        assert_eq!(probe(&dir.join("missing.npy")), Probe::Other);
        assert_eq!(probe(&dir), Probe::Unseen);
        assert_eq!(probe(Path::new("-")), Probe::Unseen);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
