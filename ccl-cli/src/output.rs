//! Standard output for the commands' results. A write that fails says so in
//! one `error:` line (a full disk, `> /dev/full`), and a reader that stops
//! early (`ccl … | head`) ends the command quietly: neither is a panic.

use std::fmt;
use std::io::{self, StdoutLock, Write};

/// A failed write to standard output.
#[derive(Debug)]
pub(crate) struct StdoutError(pub(crate) io::Error);

impl fmt::Display for StdoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot write to standard output: {}", self.0)
    }
}

impl std::error::Error for StdoutError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

impl StdoutError {
    /// Whether the reader went away (a closed pipe): not an error to report.
    pub(crate) fn is_broken_pipe(&self) -> bool {
        self.0.kind() == io::ErrorKind::BrokenPipe
    }
}

/// Standard output, locked for a command's results; every write's error is
/// a [`StdoutError`].
pub(crate) struct Stdout(StdoutLock<'static>);

impl Stdout {
    /// Locks standard output.
    pub(crate) fn lock() -> Self {
        Self(io::stdout().lock())
    }

    /// Writes `args` and a newline.
    pub(crate) fn line(&mut self, args: fmt::Arguments<'_>) -> Result<(), StdoutError> {
        self.0.write_fmt(args).map_err(StdoutError)?;
        self.0.write_all(b"\n").map_err(StdoutError)
    }

    /// Writes `text` as it is (its own newlines, if any).
    pub(crate) fn text(&mut self, text: &str) -> Result<(), StdoutError> {
        self.0.write_all(text.as_bytes()).map_err(StdoutError)
    }

    /// Writes what is buffered: a failure surfaces here, not at exit.
    pub(crate) fn flush(&mut self) -> Result<(), StdoutError> {
        self.0.flush().map_err(StdoutError)
    }
}

/// `out!(stdout, "…", args)`: one line on a [`Stdout`], `?`-able.
macro_rules! out {
    ($stdout:expr, $($arg:tt)*) => {
        $stdout.line(format_args!($($arg)*))
    };
}
pub(crate) use out;
