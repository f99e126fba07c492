//! NumPy's `.npy` format, versions 1.0 to 3.0: the header before an
//! array's bytes, written (format 1.0, as `numpy.save` writes a small
//! header) and read back.
//!
//! The header is a Python dict literal, `{'descr': '<u4', 'fortran_order':
//! False, 'shape': (2, 3), }`; it is parsed here, strictly (numpy reads it
//! with `ast.literal_eval` and refuses keys other than these three), never
//! evaluated.

use std::io::{self, Read, Write};

/// The first bytes of every `.npy` file.
pub(crate) const MAGIC: &[u8] = b"\x93NUMPY";

/// The longest header read. numpy's own loader refuses headers over 10,000
/// bytes unless told otherwise; one of three keys needs far fewer, and the
/// bound keeps a corrupt length from reading a large file as text.
const MAX_HEADER: u64 = 1 << 16;

/// The element types read: numpy's `bool`, integers of 8 to 64 bits and
/// floats of 32 and 64.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dtype {
    Bool,
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    U64,
    I64,
    F32,
    F64,
}

impl Dtype {
    /// The type of a descr's code (`u2` of `<u2`).
    fn of(code: &str) -> Option<Self> {
        Some(match code {
            "b1" => Dtype::Bool,
            "u1" => Dtype::U8,
            "i1" => Dtype::I8,
            "u2" => Dtype::U16,
            "i2" => Dtype::I16,
            "u4" => Dtype::U32,
            "i4" => Dtype::I32,
            "u8" => Dtype::U64,
            "i8" => Dtype::I64,
            "f4" => Dtype::F32,
            "f8" => Dtype::F64,
            _ => return None,
        })
    }

    /// Bytes an element.
    pub(crate) fn size(self) -> usize {
        match self {
            Dtype::Bool | Dtype::U8 | Dtype::I8 => 1,
            Dtype::U16 | Dtype::I16 => 2,
            Dtype::U32 | Dtype::I32 | Dtype::F32 => 4,
            Dtype::U64 | Dtype::I64 | Dtype::F64 => 8,
        }
    }

    /// The smallest and largest values of an integer type (bool: 0 and 1);
    /// `None` for the types whose values reach past every `u32`.
    pub(crate) fn range(self) -> Option<(i64, u64)> {
        Some(match self {
            Dtype::Bool => (0, 1),
            Dtype::U8 => (0, u8::MAX.into()),
            Dtype::I8 => (i8::MIN.into(), i8::MAX as u64),
            Dtype::U16 => (0, u16::MAX.into()),
            Dtype::I16 => (i16::MIN.into(), i16::MAX as u64),
            Dtype::U32 => (0, u32::MAX.into()),
            Dtype::I32 => (i32::MIN.into(), i32::MAX as u64),
            Dtype::U64 | Dtype::I64 | Dtype::F32 | Dtype::F64 => return None,
        })
    }

    /// numpy's name of the type.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Dtype::Bool => "bool",
            Dtype::U8 => "uint8",
            Dtype::I8 => "int8",
            Dtype::U16 => "uint16",
            Dtype::I16 => "int16",
            Dtype::U32 => "uint32",
            Dtype::I32 => "int32",
            Dtype::U64 => "uint64",
            Dtype::I64 => "int64",
            Dtype::F32 => "float32",
            Dtype::F64 => "float64",
        }
    }
}

/// What a `.npy` header declares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Header {
    pub(crate) dtype: Dtype,
    /// The elements' bytes are big-endian (`>` in the descr).
    pub(crate) big_endian: bool,
    /// The first index varies fastest (Fortran order), not the last.
    pub(crate) fortran_order: bool,
    pub(crate) shape: Vec<u64>,
    /// Where the data starts: the bytes of the header.
    pub(crate) data_offset: u64,
}

/// Writes a format 1.0 header for a C-order array of `descr` (`<u4`,
/// `|u1`) and `shape`: magic, version, length, and the dict padded with
/// spaces and ended by a newline so that the data starts 64-byte aligned,
/// as numpy writes it.
pub(crate) fn write_header(out: &mut impl Write, descr: &str, shape: &[usize]) -> io::Result<()> {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    // A tuple of one element needs its comma: `(5,)`.
    let shape = match dims.len() {
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    };
    let dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    let unpadded = 10 + dict.len() + 1;
    let header = format!(
        "{dict}{}\n",
        " ".repeat(unpadded.next_multiple_of(64) - unpadded)
    );
    let length = u16::try_from(header.len())
        .map_err(|_| io::Error::other("a .npy header over 65535 bytes"))?;
    out.write_all(MAGIC)?;
    out.write_all(&[1, 0])?;
    out.write_all(&length.to_le_bytes())?;
    out.write_all(header.as_bytes())
}

/// Reads the header of the `.npy` that `input` holds from its current
/// position, leaving `input` at the first byte of the data.
///
/// # Errors
/// The I/O error (`UnexpectedEof` for a file that ends inside the header),
/// or a message when the bytes are not a `.npy` header of a supported type.
pub(crate) fn read_header(input: &mut impl Read) -> io::Result<Result<Header, String>> {
    let mut start = [0u8; 8];
    let mut read = 0;
    while read < start.len() {
        match input.read(&mut start[read..]) {
            Ok(0) => break,
            Ok(n) => read += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    // A few bytes that are not the magic are not a truncated .npy.
    let magic = read.min(MAGIC.len());
    if start[..magic] != MAGIC[..magic] {
        return Ok(Err(
            "not a NumPy .npy file (it does not start with \\x93NUMPY)".into(),
        ));
    }
    if read < start.len() {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    let (length, data_offset) = match start[6] {
        1 => {
            let mut length = [0u8; 2];
            input.read_exact(&mut length)?;
            let length = u64::from(u16::from_le_bytes(length));
            (length, 10 + length)
        }
        2 | 3 => {
            let mut length = [0u8; 4];
            input.read_exact(&mut length)?;
            let length = u64::from(u32::from_le_bytes(length));
            (length, 12 + length)
        }
        major => {
            return Ok(Err(format!(
                "a .npy of format version {major}.{}, not 1.0, 2.0 or 3.0",
                start[7]
            )));
        }
    };
    if length > MAX_HEADER {
        return Ok(Err(format!(
            "not a valid .npy file (its header declares {length} bytes, more than the \
             {MAX_HEADER} a header needs)"
        )));
    }
    let mut text = Vec::new();
    input.take(length).read_to_end(&mut text)?;
    if (text.len() as u64) < length {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    let Ok(text) = std::str::from_utf8(&text) else {
        return Ok(Err("not a valid .npy file (its header is not text)".into()));
    };
    Ok(parse(text, data_offset)
        .map_err(|what| format!("not a valid .npy header ({what}): {}", shown(text))))
}

/// The header as a message shows it: one line (control characters
/// escaped), at most 200 characters.
fn shown(text: &str) -> String {
    const MOST: usize = 200;
    let text = text.trim();
    let mut shown: String = text
        .chars()
        .take(MOST)
        .flat_map(char::escape_debug)
        .collect();
    if text.chars().count() > MOST {
        shown.push_str("...");
    }
    shown
}

/// A Python literal of the header.
#[derive(Debug)]
enum Value {
    Text(String),
    Bool(bool),
    Tuple(Vec<u64>),
}

/// Parses the header's dict (the data after it at `data_offset`).
fn parse(text: &str, data_offset: u64) -> Result<Header, String> {
    let mut parser = Parser {
        bytes: text.as_bytes(),
        at: 0,
    };
    let (mut descr, mut fortran_order, mut shape) = (None, None, None);
    parser.expect(b'{')?;
    loop {
        if parser.eat(b'}') {
            break;
        }
        let key = parser.text()?;
        let slot = match key.as_str() {
            "descr" => &mut descr,
            "fortran_order" => &mut fortran_order,
            "shape" => &mut shape,
            _ => return Err(format!("an unknown key '{}'", key.escape_debug())),
        };
        parser.expect(b':')?;
        if slot.replace(parser.value()?).is_some() {
            return Err(format!("the key '{}' twice", key.escape_debug()));
        }
        if !parser.eat(b',') {
            parser.expect(b'}')?;
            break;
        }
    }
    parser.skip_space();
    if parser.at < parser.bytes.len() {
        return Err("text after the dict".into());
    }
    let (Some(descr), Some(fortran_order), Some(shape)) = (descr, fortran_order, shape) else {
        return Err("it needs the keys 'descr', 'fortran_order' and 'shape'".into());
    };
    let Value::Text(descr) = descr else {
        return Err("'descr' is not a string".into());
    };
    let Value::Bool(fortran_order) = fortran_order else {
        return Err("'fortran_order' is not True or False".into());
    };
    let Value::Tuple(shape) = shape else {
        return Err("'shape' is not a tuple of integers".into());
    };
    let (dtype, big_endian) = descr_type(&descr)?;
    Ok(Header {
        dtype,
        big_endian,
        fortran_order,
        shape,
        data_offset,
    })
}

/// The element type and byte order of a descr (`<f4`, `|u1`, `>i2`).
fn descr_type(descr: &str) -> Result<(Dtype, bool), String> {
    let shown = descr.escape_debug();
    let unsupported = || {
        format!("dtype '{shown}': arrays of bool, (u)int8 to (u)int64, float32 or float64 are read")
    };
    let mut chars = descr.chars();
    let order = chars.next().ok_or_else(unsupported)?;
    let dtype = Dtype::of(chars.as_str()).ok_or_else(unsupported)?;
    // '|' (not applicable) and '=' (native) are only unambiguous for
    // one-byte types; numpy writes '<' or '>' for every other.
    let big_endian = match (order, dtype.size()) {
        ('<', _) => false,
        ('>', _) => true,
        ('|' | '=', 1) => false,
        _ => {
            return Err(format!(
                "dtype '{shown}' has no byte order ('<' or '>') for its {}-byte elements",
                dtype.size()
            ));
        }
    };
    Ok((dtype, big_endian))
}

/// A cursor over the header's bytes.
struct Parser<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn skip_space(&mut self) {
        while self.bytes.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    /// Takes `byte` (after any spaces) if it comes next.
    fn eat(&mut self, byte: u8) -> bool {
        self.skip_space();
        let found = self.bytes.get(self.at) == Some(&byte);
        self.at += usize::from(found);
        found
    }

    fn expect(&mut self, byte: u8) -> Result<(), String> {
        if self.eat(byte) {
            Ok(())
        } else {
            Err(format!("'{}' expected at byte {}", byte as char, self.at))
        }
    }

    /// A string in single or double quotes, without escapes.
    fn text(&mut self) -> Result<String, String> {
        self.skip_space();
        let quote = match self.bytes.get(self.at) {
            Some(&q @ (b'\'' | b'"')) => q,
            _ => return Err(format!("a string expected at byte {}", self.at)),
        };
        let start = self.at + 1;
        let Some(length) = self.bytes[start..].iter().position(|&b| b == quote) else {
            return Err("a string without its closing quote".into());
        };
        let text = &self.bytes[start..start + length];
        if text.contains(&b'\\') {
            return Err("a string with escapes".into());
        }
        self.at = start + length + 1;
        Ok(String::from_utf8_lossy(text).into_owned())
    }

    fn word(&mut self) -> &[u8] {
        let start = self.at;
        while self
            .bytes
            .get(self.at)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            self.at += 1;
        }
        &self.bytes[start..self.at]
    }

    fn value(&mut self) -> Result<Value, String> {
        self.skip_space();
        match self.bytes.get(self.at) {
            Some(b'\'' | b'"') => self.text().map(Value::Text),
            Some(b'(') => {
                self.at += 1;
                let mut items = Vec::new();
                loop {
                    if self.eat(b')') {
                        break;
                    }
                    self.skip_space();
                    items.push(self.integer()?);
                    if !self.eat(b',') {
                        self.expect(b')')?;
                        break;
                    }
                }
                Ok(Value::Tuple(items))
            }
            Some(b'[') => Err("a list: structured arrays are not read".into()),
            _ => match self.word() {
                b"True" => Ok(Value::Bool(true)),
                b"False" => Ok(Value::Bool(false)),
                _ => Err(format!("a value expected at byte {}", self.at)),
            },
        }
    }

    /// A non-negative integer; Python 2's long suffix `L` (in files that
    /// numpy wrote under Python 2) is allowed.
    fn integer(&mut self) -> Result<u64, String> {
        let word = self.word();
        let digits = word.strip_suffix(b"L").unwrap_or(word);
        std::str::from_utf8(digits)
            .ok()
            .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|d| d.parse().ok())
            .ok_or_else(|| {
                format!(
                    "'{}' is not a size",
                    String::from_utf8_lossy(word).into_owned()
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(dict: &str) -> Result<Header, String> {
        let mut bytes = MAGIC.to_vec();
        bytes.extend([1, 0]);
        bytes.extend((dict.len() as u16).to_le_bytes());
        bytes.extend(dict.as_bytes());
        read_header(&mut &bytes[..]).unwrap()
    }

    #[test]
    fn written_headers_read_back_and_align_the_data() {
        for shape in [&[][..], &[7], &[2, 3], &[4, 0, 9], &[1, 1, 100_000]] {
            let mut bytes = Vec::new();
            write_header(&mut bytes, "<u4", shape).unwrap();
            assert_eq!(bytes.len() % 64, 0);
            let read = read_header(&mut &bytes[..]).unwrap().unwrap();
            let shape: Vec<u64> = shape.iter().map(|&n| n as u64).collect();
            assert_eq!(read.shape, shape);
            assert_eq!((read.dtype, read.big_endian), (Dtype::U32, false));
        }
    }

    #[test]
    fn headers_in_other_spellings_are_read() {
        let read =
            header("{\"shape\": (3L, 4L), \"fortran_order\": True, \"descr\": \">f8\"}\n").unwrap();
        assert_eq!(read.shape, [3, 4]);
        assert!(read.fortran_order && read.big_endian);
        assert_eq!(read.dtype, Dtype::F64);
        let read = header("{'descr':'|b1','fortran_order':False,'shape':(5,),}").unwrap();
        assert_eq!((read.dtype, read.shape), (Dtype::Bool, vec![5]));
    }

    #[test]
    fn malformed_headers_are_refused_with_a_reason() {
        for (dict, reason) in [
            ("{'descr': '<u4', 'shape': (2,)}", "needs the keys"),
            (
                "{'descr': '<u4', 'fortran_order': False, 'shape': (2,), 'x': 1}",
                "unknown key",
            ),
            (
                "{'descr': '<c8', 'fortran_order': False, 'shape': (2,)}",
                "dtype '<c8'",
            ),
            (
                "{'descr': '|u2', 'fortran_order': False, 'shape': (2,)}",
                "no byte order",
            ),
            (
                "{'descr': [('a', '<u4')], 'fortran_order': False, 'shape': (2,)}",
                "structured",
            ),
            (
                "{'descr': '<u4', 'fortran_order': False, 'shape': (-2,)}",
                "not a size",
            ),
            (
                "{'descr': '<u4', 'fortran_order': False, 'shape': (99999999999999999999,)}",
                "not a size",
            ),
            (
                "{'descr': '<u4', 'fortran_order': 0, 'shape': (2,)}",
                "value expected",
            ),
            (
                "{'descr': '<u4', 'fortran_order': False, 'shape': (2,)} x",
                "text after",
            ),
            (
                "{'descr': '<u4', 'descr': '<u4', 'fortran_order': False, 'shape': (2,)}",
                "twice",
            ),
            ("{'descr' '<u4'}", "':' expected"),
            ("{'descr: '<u4'}", "unknown key"),
        ] {
            let error = header(dict).unwrap_err();
            assert!(error.contains(reason), "{dict}: {error}");
        }
        let error = read_header(&mut &b"\x93NUMPY\x04\x00\x00\x00"[..])
            .unwrap()
            .unwrap_err();
        assert!(error.contains("version 4.0"), "{error}");
        let error = read_header(&mut &b"\x93NUMPX\x01\x00\x00\x00"[..])
            .unwrap()
            .unwrap_err();
        assert!(error.contains("not a NumPy"), "{error}");
        let truncated = read_header(&mut &b"\x93NUMPY\x01\x00\x40\x00{'de"[..]).unwrap_err();
        assert_eq!(truncated.kind(), io::ErrorKind::UnexpectedEof);
    }
}
