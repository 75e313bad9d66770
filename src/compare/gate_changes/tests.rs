use super::*;

const BASE: &str = r#"
suite: s
spec_version: "1"
traces: traces/
checkpoints:
  - {id: C1, instruction: "refund only with approval", severity: critical, tier: 2,
     sequence: {never: {tool: refund}}}
  - {id: C2, instruction: "look up first", severity: high, tier: 2,
     sequence: {never: {tool: delete}}}
gates:
  fail_on: critical
  alpha: 0.05
  metrics:
    compliance_percent: {severity: critical, min_effect: 2.0}
  absolute:
    compliance_percent: {min: 70}
cases:
  - {id: a, input: "hi"}
  - {id: b, input: "yo"}
"#;

fn loaded(text: &str) -> LoadedSuite {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("traces")).unwrap();
    let path = dir.path().join("suite.yaml");
    std::fs::write(&path, text).unwrap();
    crate::spec::load::load_suite(&path).unwrap()
}

fn changes(head: &str) -> Vec<(ChangeKind, String)> {
    let (a, b) = (loaded(BASE), loaded(head));
    gate_changes(&[&a], &[&b], None, None)
        .into_iter()
        .map(|c| (c.kind, c.path))
        .collect()
}

fn edited(from: &str, to: &str) -> String {
    assert!(BASE.contains(from), "{from}");
    BASE.replacen(from, to, 1)
}

#[test]
fn the_same_rules_have_no_changes() {
    assert!(changes(BASE).is_empty());
    // A reformatted file and the agent's own description are not rule changes.
    let restyled = edited(
        "suite: s\n",
        "suite: s\ndescription: other words\nconfig_tags: {model: x}\n",
    );
    assert!(changes(&restyled).is_empty(), "{:?}", changes(&restyled));
}

#[test]
fn loosening_edits_are_weakened() {
    use ChangeKind::{Strengthened, Weakened};
    let cases = [
        (
            "fail_on: critical",
            "fail_on: never",
            Weakened,
            "gates.fail_on",
        ),
        (
            "fail_on: critical",
            "fail_on: low",
            Strengthened,
            "gates.fail_on",
        ),
        ("alpha: 0.05", "alpha: 0.0001", Weakened, "gates.alpha"),
        (
            "alpha: 0.05",
            "alpha: 0.05\n  min_cases: 1000",
            Weakened,
            "gates.min_cases",
        ),
        (
            "min_effect: 2.0",
            "min_effect: 50",
            Weakened,
            "gates.metrics.compliance_percent.min_effect",
        ),
        (
            "{severity: critical, min_effect",
            "{severity: low, min_effect",
            Weakened,
            "gates.metrics.compliance_percent.severity",
        ),
        (
            "{min: 70}",
            "{min: 10}",
            Weakened,
            "gates.absolute.compliance_percent.min",
        ),
        (
            "severity: high",
            "severity: critical",
            Strengthened,
            "checkpoints[C2].severity",
        ),
        (
            "alpha: 0.05",
            "alpha: 0.05\n  inconclusive: warn",
            Weakened,
            "gates.inconclusive",
        ),
        (
            "alpha: 0.05",
            "alpha: 0.05\n  may_be_vacuous: [C1]",
            Weakened,
            "gates.may_be_vacuous",
        ),
        (
            "severity: critical, tier",
            "severity: low, tier",
            Weakened,
            "checkpoints[C1].severity",
        ),
    ];
    for (from, to, kind, path) in cases {
        let got = changes(&edited(from, to));
        assert_eq!(got, [(kind, path.to_owned())], "{from} -> {to}");
    }
}

#[test]
fn a_deleted_checkpoint_weakens_and_a_reworded_one_changes() {
    let deleted = edited(
        "  - {id: C2, instruction: \"look up first\", severity: high, tier: 2,\n     sequence: {never: {tool: delete}}}\n",
        "",
    );
    assert_eq!(
        changes(&deleted),
        [(ChangeKind::Weakened, "checkpoints[C2]".to_owned())]
    );
    let reworded = edited("look up first", "look up first, if convenient");
    assert_eq!(
        changes(&reworded),
        [(
            ChangeKind::Changed,
            "checkpoints[C2].instruction".to_owned()
        )]
    );
}

#[test]
fn cases_added_removed_and_redefined_are_listed() {
    let head = edited(
        "  - {id: b, input: \"yo\"}\n",
        "  - {id: c, input: \"new\"}\n",
    );
    assert_eq!(
        changes(&head),
        [
            (ChangeKind::Removed, "cases".to_owned()),
            (ChangeKind::Added, "cases".to_owned())
        ]
    );
    let redefined = edited("input: \"hi\"", "input: \"hello\"");
    assert_eq!(
        changes(&redefined),
        [(ChangeKind::Changed, "cases".to_owned())]
    );
}

#[test]
fn suites_and_config_changes_are_listed() {
    let (a, b) = (loaded(BASE), loaded(&edited("suite: s", "suite: s2")));
    let got = gate_changes(
        &[&a],
        &[&b],
        Some("fail_on: critical\nbaselines_dir: baselines\n"),
        Some(
            "fail_on: never\nbaselines_dir: nowhere\njudge: {provider: openai, base_url: 'http://127.0.0.1:9/v1'}\n",
        ),
    );
    let got: Vec<(ChangeKind, Option<&str>, &str)> = got
        .iter()
        .map(|c| (c.kind, c.suite.as_deref(), c.path.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (ChangeKind::Weakened, None, "fail_on"),
            (ChangeKind::Removed, Some("s"), "suite"),
            (ChangeKind::Changed, None, "baselines_dir"),
            (ChangeKind::Added, None, "judge"),
            (ChangeKind::Added, Some("s2"), "suite"),
        ]
    );
}
