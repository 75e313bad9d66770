//! Command glue: turn parsed CLI structs into settings, call the domain
//! modules, and print. No evaluation logic lives here.

use crate::app::cli::{Cli, CliCommand};
use crate::app::config::Config;
use crate::app::error::Result;
use crate::exit_code::ExitCode;

mod baseline;
mod calibrate;
mod comment;
mod common;
mod compare;
mod completions;
mod config_show;
mod init;
mod lint;
mod merge;
mod publish;
mod report;
mod rubric;
mod rules;
mod run;
mod schema;
mod trace;
mod trace_events;
mod trace_json;

pub(crate) fn dispatch(cli: Cli) -> Result<ExitCode> {
    let quiet = cli.global.quiet;
    // Commands that print something built in need no `agenteval.yaml`.
    let config = || Config::discover(&cli.global);
    match cli.command {
        CliCommand::Schema => schema::run(),
        CliCommand::Completions(args) => completions::completions(args.shell),
        CliCommand::Man(args) => completions::man(args.out_dir.as_deref()),
        CliCommand::Run(args) => run::run(&args, &config()?, quiet),
        CliCommand::Compare(args) => compare::run(&args, &config()?, quiet),
        CliCommand::Lint(args) => lint::run(&args, &config()?),
        CliCommand::Report(args) => {
            config()?;
            report::run(&args)
        }
        CliCommand::Trace(args) => trace::run(&args, &config()?),
        CliCommand::Init(args) => init::run(&args, &config()?),
        CliCommand::Comment(args) => {
            config()?;
            comment::run(&args, quiet)
        }
        CliCommand::Baseline(cmd) => baseline::run(&cmd, &config()?, quiet),
        CliCommand::Config(crate::app::cli::CliConfig::Show(args)) => {
            config_show::run(&args, &config()?)
        }
        CliCommand::Merge(args) => merge::run(&args, &config()?, quiet),
        CliCommand::Calibrate(args) => calibrate::run(&args, &config()?, quiet),
        CliCommand::Rubric(cmd) => rubric::run(&cmd, &config()?, quiet),
    }
}
