//! The `agenteval-gate` binary: parse, run, exit with the verdict's code.

fn main() -> std::process::ExitCode {
    // Before any thread starts: SIGINT/SIGTERM are handled by one watcher.
    agenteval_gate::interrupt::install();
    // Orphans of agents are reparented to the gate, which kills them at
    // the end of their case (Linux; issue 25).
    agenteval_gate::reaper::install();
    agenteval_gate::main_entry(std::env::args_os()).into()
}
