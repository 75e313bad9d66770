//! The suite's `judge:` block: ranges (shared with `agenteval.yaml` and the
//! flags, see [`crate::spec::judge::limits`]) and the prompt-override directory.

use super::context::{Ctx, loc};

pub(super) fn validate(cx: &mut Ctx<'_>) {
    let Some(spec) = cx.loaded.file.judge.clone() else {
        return;
    };
    let at = loc(&cx.loaded.file.suite);
    for p in spec.problems() {
        cx.error(at, p.message, p.help);
    }
    if spec.prompts.is_some() {
        // Read at load, from where the rules come from (the base commit in a pull request).
        let problem = match &cx.loaded.prompt_files {
            Ok(files) => crate::spec::prompts::TemplateSet::build(files)
                .err()
                .map(|e| e.to_string()),
            Err(e) => Some(e.to_string()),
        };
        if let Some(e) = problem {
            cx.error(
                at,
                format!("`judge.prompts`: {e}"),
                format!(
                    "the directory holds minijinja templates named like the built-in ones: {}",
                    crate::spec::prompts::TEMPLATE_NAMES.join(", ")
                ),
            );
        }
    }
}
