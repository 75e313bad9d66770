//! `--color auto|always|never`. Auto means stderr is a TTY and `NO_COLOR` is unset.

use std::io::IsTerminal;
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
    /// Resolve against the environment.
    pub fn resolve(self) -> bool {
        match self {
            Self::Always => true,
            Self::Never => false,
            Self::Auto => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::io::stderr().is_terminal()
            }
        }
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
