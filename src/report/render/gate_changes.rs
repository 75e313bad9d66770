//! "Changes to the gate, effective after merge": where the rules that decided a
//! compare came from and what the pull request changes in them, at the top of
//! the comment and the terminal output, never folded (issue 25).

use std::fmt::Write as _;

use crate::model::compare::{CompareReport, SourceKind};
use crate::model::rules::{ChangeKind, GateChange, RulesInfo};
use crate::output::escape::{md_code, terminal};

/// Changes listed before "… and N more (see the JSON report)".
const MAX_LISTED: usize = 30;

fn short(rev: &str) -> String {
    rev.chars().take(12).collect()
}

fn why(rules: &RulesInfo) -> &'static str {
    if rules.chosen_by == "pull request base" {
        "the pull request's base commit"
    } else {
        "`--rules-ref`"
    }
}

/// The Markdown section; nothing when the rules were not chosen (outside a pull request).
pub(crate) fn markdown(md: &mut String, r: &CompareReport) {
    let Some(rules) = &r.rules else {
        return;
    };
    if rules.kind == SourceKind::Worktree {
        let _ = writeln!(
            md,
            "> [!CAUTION]\n> Judged by this pull request's own rules (`--rules-ref worktree`): its suites, gates and `agenteval.yaml` decided this verdict.\n"
        );
        return;
    }
    let rev = md_code(&short(rules.rev.as_deref().unwrap_or_default()));
    if rules.changes.is_empty() && rules.removed_suites.is_empty() {
        let _ = writeln!(
            md,
            "Rules read from {rev} ({}); this pull request does not change them.\n",
            why(rules)
        );
        return;
    }
    let weakening = rules
        .changes
        .iter()
        .filter(|c| matches!(c.kind, ChangeKind::Weakened | ChangeKind::Removed))
        .count();
    let _ = writeln!(
        md,
        "### ⚠️ Changes to the gate, effective after merge\n\nThis verdict uses the rules at {rev} ({}). This pull request changes them ({} change{}, {weakening} weakening or removing); they apply once it merges:\n",
        why(rules),
        rules.changes.len(),
        if rules.changes.len() == 1 { "" } else { "s" },
    );
    for c in rules.changes.iter().take(MAX_LISTED) {
        let _ = writeln!(md, "- {}", md_line(c));
    }
    let more = rules.changes.len().saturating_sub(MAX_LISTED);
    if more > 0 {
        let _ = writeln!(md, "- … and {more} more (the JSON report has them all)");
    }
    md.push('\n');
}

fn md_line(c: &GateChange) -> String {
    let place = c.suite.as_deref().map_or_else(
        || md_code("agenteval.yaml"),
        |s| format!("suite {}", md_code(s)),
    );
    let value = |v: &Option<String>| v.as_deref().map_or_else(|| "—".to_owned(), md_code);
    format!(
        "**{}** {place} {}: {} → {}",
        c.kind.as_str(),
        md_code(&c.path),
        value(&c.before),
        value(&c.after)
    )
}

/// The terminal lines.
pub(crate) fn text(out: &mut String, r: &CompareReport) {
    let Some(rules) = &r.rules else {
        return;
    };
    if rules.kind == SourceKind::Worktree {
        out.push_str("rules: this working tree's own (--rules-ref worktree)\n");
        return;
    }
    let rev = short(rules.rev.as_deref().unwrap_or_default());
    out.push_str(&format!(
        "rules read from git `{}` ({}){}\n",
        terminal(&rev),
        terminal(&rules.chosen_by),
        if rules.changes.is_empty() {
            "; unchanged by the working tree"
        } else {
            ""
        }
    ));
    if rules.changes.is_empty() {
        return;
    }
    out.push_str("changes to the gate, effective after merge (not used for this verdict):\n");
    for c in rules.changes.iter().take(MAX_LISTED) {
        let value = |v: &Option<String>| {
            v.as_deref()
                .map_or_else(|| "-".to_owned(), |s| terminal(s).into_owned())
        };
        out.push_str(&format!(
            "  {:<12} {} {}: {} -> {}\n",
            c.kind.as_str(),
            c.suite
                .as_deref()
                .map_or_else(|| "agenteval.yaml".into(), terminal),
            terminal(&c.path),
            value(&c.before),
            value(&c.after)
        ));
    }
    let more = rules.changes.len().saturating_sub(MAX_LISTED);
    if more > 0 {
        out.push_str(&format!("  … and {more} more (JSON report)\n"));
    }
}
