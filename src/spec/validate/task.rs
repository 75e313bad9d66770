//! `task.success`: task success from ground truth.

use std::collections::BTreeSet;

use crate::spec::suite::TaskSuccess;

use super::assert::state_assert;
use super::context::{Ctx, did_you_mean, loc};

pub(super) fn task_success(cx: &mut Ctx<'_>, declared: &BTreeSet<String>) -> Option<TaskSuccess> {
    let spanned = cx.loaded.file.task.as_ref()?.success.as_ref()?;
    let spec = &spanned.value;
    if spec.evidence.is_none() && spec.checkpoints.is_empty() {
        cx.error(
            loc(spanned),
            "`task.success` names no source",
            "give `evidence: {path: /reward, equals: 1}` or `checkpoints: [<id>, …]`",
        );
        return None;
    }
    let mut ok = true;
    for id in &spec.checkpoints {
        if !declared.contains(&id.value) {
            cx.error(
                loc(id),
                format!(
                    "`task.success` names unknown checkpoint `{}`{}",
                    id.value,
                    did_you_mean(&id.value, declared.iter().map(String::as_str))
                ),
                "list checkpoint ids defined under `checkpoints:`",
            );
            ok = false;
        }
    }
    let evidence = match &spec.evidence {
        Some(a) => Some(state_assert(cx, a, "task.success")?),
        None => None,
    };
    ok.then(|| TaskSuccess {
        evidence,
        checkpoints: spec.checkpoints.iter().map(|c| c.value.clone()).collect(),
    })
}
