//! Print macros. `outln!` returns a `crate::Result` so a write error on
//! stdout propagates (and a closed pipe can exit 0); the stderr macros never fail.
//! The formatted text passes [`crate::output::escape::terminal_text`]: a
//! control character that slipped into a message (ESC from a trace) is
//! shown as an escape, never sent to the terminal.

/// Write a line to stdout.
macro_rules! outln {
    () => { $crate::output::write_stdout("\n") };
    ($($arg:tt)*) => { $crate::output::write_stdout(&format!("{}\n", format_args!($($arg)*))) };
}

/// A warning on stderr, prefixed `warning:`.
macro_rules! warnln {
    ($($arg:tt)*) => {
        $crate::output::write_stderr(&format!(
            "{} {}\n",
            $crate::output::color::paint("warning:", $crate::output::color::Paint::Yellow),
            $crate::output::escape::terminal_text(&format!($($arg)*))
        ))
    };
}

/// A note on stderr, prefixed `note:`.
macro_rules! noteln {
    ($($arg:tt)*) => {
        $crate::output::write_stderr(&format!(
            "{} {}\n",
            $crate::output::color::paint("note:", $crate::output::color::Paint::Cyan),
            $crate::output::escape::terminal_text(&format!($($arg)*))
        ))
    };
}

/// A plain status line on stderr.
macro_rules! statusln {
    ($($arg:tt)*) => {
        $crate::output::write_stderr(&format!(
            "{}\n",
            $crate::output::escape::terminal_text(&format!($($arg)*))
        ))
    };
}
