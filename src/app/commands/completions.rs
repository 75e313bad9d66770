//! `agenteval-gate completions <shell>` and `agenteval-gate man`: generated
//! from the clap definitions (`clap_complete`, `clap_mangen`), so they never
//! drift from the real flags.

use clap::CommandFactory;

use crate::app::cli::Cli;
use crate::app::error::{Error, Result};
use crate::exit_code::ExitCode;

pub(crate) fn completions(shell: clap_complete::Shell) -> Result<ExitCode> {
    let mut cmd = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, "agenteval-gate", &mut script);
    crate::output::write_stdout(&String::from_utf8_lossy(&script))?;
    Ok(ExitCode::Success)
}

pub(crate) fn man(out_dir: Option<&std::path::Path>) -> Result<ExitCode> {
    if let Some(dir) = out_dir {
        let io = |action: &'static str| {
            move |source| Error::Io {
                action,
                path: dir.to_path_buf(),
                source,
            }
        };
        std::fs::create_dir_all(dir).map_err(io("create the man page directory"))?;
        clap_mangen::generate_to(Cli::command(), dir).map_err(io("write man pages into"))?;
        let mut pages: Vec<String> = std::fs::read_dir(dir)
            .map_err(io("list"))?
            .filter_map(std::result::Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("agenteval-gate") && n.ends_with(".1"))
            .collect();
        pages.sort();
        let mut out = String::new();
        for p in pages {
            out.push_str(&crate::output::escape::terminal(
                &dir.join(p).display().to_string(),
            ));
            out.push('\n');
        }
        crate::output::write_stdout(&out)?;
        return Ok(ExitCode::Success);
    }
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut page)
        .map_err(Error::Stdout)?;
    crate::output::write_stdout(&String::from_utf8_lossy(&page))?;
    Ok(ExitCode::Success)
}
