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
    if let Some(dir) = &spec.prompts {
        let path = cx.loaded.dir.join(dir);
        match crate::spec::prompts::TemplateSet::load(Some(&path)) {
            Ok(_) => {}
            Err(e) => cx.error(
                at,
                format!("`judge.prompts`: {e}"),
                format!(
                    "the directory holds minijinja templates named like the built-in ones: {}",
                    crate::spec::prompts::TEMPLATE_NAMES.join(", ")
                ),
            ),
        }
    }
}
