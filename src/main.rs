//! The `agenteval-gate` binary: parse, run, exit with the verdict's code.

fn main() -> std::process::ExitCode {
    agenteval_gate::main_entry(std::env::args_os()).into()
}
