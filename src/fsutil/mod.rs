//! File-system helpers: bounded reading of input files (regular files only,
//! a size cap, UTF-8 checked with a location), atomic and write-through
//! output, and a directory lock.

mod atomic;
pub mod git;
mod lock;
mod memory;
mod read;

pub use atomic::{
    AtomicFile, CappedWriter, TEMP_SUFFIX, check_directories_stay_inside, fits_read_cap,
    sweep_temp_files, write_atomic, write_json_to, write_output, write_output_with, write_to,
};
pub use lock::DirLock;
pub use memory::{Reservation, memory_budget, reserve, set_max_memory};
pub use read::{
    DEFAULT_MAX_INPUT_BYTES, InputError, max_input_bytes, open_input_text, parse_size, read_input,
    read_input_text, set_max_input_bytes, text_from_bytes,
};
pub(crate) use read::{human, human_ceiling};
