//! Baselines: `baselines/<name>/<suite>.json` and its append-only history,
//! updated as one unit under a lock; read from the working tree or from a
//! git revision (`--baseline-ref`).

mod error;
pub(crate) mod model;
pub(crate) mod name;
pub(crate) mod source;
pub(crate) mod store;

pub use error::{BaselineError, UnknownBaseline};
pub use name::{NameKind, check_name};

// The API the integration tests, benches and fuzz targets use.
pub use model::BaselineFile;
pub use model::HistoryLine;
pub use store::committed_history;
pub use store::parse_baseline;
pub use store::parse_history;
pub use store::read_baseline;
pub use store::read_history;
