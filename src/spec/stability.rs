//! ID stability against baselines: checkpoint IDs are immutable and
//! append-only. Same ID with a changed instruction is an error; an ID the
//! baseline has but the suite lost is a warning (its history ends).

use crate::diagnostic::FileDiagnostic;
use crate::model::run::CheckpointInfo;
use crate::spec::load::LoadedSuite;

/// Compare the suite's checkpoints with those recorded in each baseline.
pub(crate) fn check_id_stability(
    loaded: &LoadedSuite,
    baselines: &[(String, Vec<CheckpointInfo>)],
) -> Vec<FileDiagnostic> {
    let mut out = Vec::new();
    for (name, catalog) in baselines {
        for old in catalog {
            match loaded
                .file
                .checkpoints
                .iter()
                .find(|c| c.id.value == old.id)
            {
                Some(cp) if normalize(&cp.instruction) != normalize(&old.instruction) => {
                    let origin = LoadedSuite::yaml_origin(cp.id.referenced);
                    out.push(
                        loaded
                            .diagnostic_at(
                                &origin,
                                true,
                                format!(
                                    "checkpoint `{}` changed its instruction since baseline `{name}` (was: \"{}\")",
                                    old.id, old.instruction
                                ),
                            )
                            .with_label("this id is immutable")
                            .with_help(format!(
                                "restore the original text, or keep `{}` and add the new wording as a new checkpoint with a new id",
                                old.id
                            )),
                    );
                }
                Some(_) => {}
                None => {
                    let origin = LoadedSuite::yaml_origin(loaded.file.suite.referenced);
                    out.push(
                        loaded
                            .diagnostic_at(&origin, false, format!("checkpoint `{}` of baseline `{name}` was removed from the suite", old.id))
                            .with_help("IDs are append-only: its history ends here; keep it if it was removed by mistake"),
                    );
                }
            }
        }
    }
    out
}

/// Whitespace differences are not changes of meaning.
fn normalize(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
