//! `--color auto|always|never` for the tool's own stderr, decided by
//! anstream (the crate clap itself uses): `always`/`never` win; `auto` means
//! no `NO_COLOR`, then `CLICOLOR_FORCE` forces colour, `CLICOLOR=0` turns it
//! off, and otherwise colour needs a terminal that supports it
//! (<https://no-color.org>, <https://bixense.com/clicolors/>).

use std::sync::atomic::{AtomicBool, Ordering};

static COLOR: AtomicBool = AtomicBool::new(false);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Resolve against the environment and stderr, and make it anstream's
    /// global choice (so `anstream::stderr()` strips colour when it is off).
    pub fn resolve(self) -> bool {
        let choice = match self {
            Self::Always => anstream::ColorChoice::Always,
            Self::Never => anstream::ColorChoice::Never,
            Self::Auto => anstream::ColorChoice::Auto,
        };
        choice.write_global();
        anstream::AutoStream::choice(&std::io::stderr()) != anstream::ColorChoice::Never
    }
}

/// Set once at start-up.
pub fn set_color(enabled: bool) {
    COLOR.store(enabled, Ordering::Relaxed);
}

pub fn color_enabled() -> bool {
    COLOR.load(Ordering::Relaxed)
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum Paint {
    Yellow,
    Cyan,
    Red,
}

/// Wrap `text` in an ANSI colour when colour is on.
pub(crate) fn paint(text: &str, paint: Paint) -> String {
    if !color_enabled() {
        return text.to_owned();
    }
    let code = match paint {
        Paint::Yellow => "33;1",
        Paint::Cyan => "36;1",
        Paint::Red => "31;1",
    };
    format!("\x1b[{code}m{text}\x1b[0m")
}
