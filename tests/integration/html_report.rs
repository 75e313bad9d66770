//! The HTML report (issue 15): structure of the drawn views, escaping of
//! hostile labels, and no external resources. These read the HTML as text:
//! they count elements and look for what must never appear.

#![expect(clippy::unwrap_used, reason = "test helpers fail loudly")]

use std::sync::LazyLock;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::common::{REGRESSED_INPUTS, bin, outputs, regressed_compare_args, repo};

/// `compare` on the regressed support-bot example, saved as JSON.
fn regressed_compare(dir: &std::path::Path) -> std::path::PathBuf {
    let out_path = dir.join("compare.json");
    let out = bin()
        .current_dir(repo())
        .args(regressed_compare_args(&["--format", "json", "--out"]))
        .arg(&out_path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{:?}", outputs(&out));
    out_path
}

fn render(report: &std::path::Path) -> String {
    let out = bin()
        .args(["report", "--format", "html"])
        .arg(report)
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&out);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    stdout
}

fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

/// The text between the first `start` after `from` and the next `end`.
fn section<'a>(html: &'a str, from: &str, start: &str, end: &str) -> &'a str {
    let at = html.find(from).unwrap();
    let s = at + html[at..].find(start).unwrap();
    let e = s + html[s..].find(end).unwrap();
    &html[s..e + end.len()]
}

/// No resource is fetched from anywhere: no URL in a `src`/`href`, no
/// `<link>`, no CSS import, and a CSP that forbids it anyway.
fn assert_self_contained(html: &str) {
    for bad in [
        "src=\"http",
        "href=\"http",
        "src='http",
        "href='http",
        "<link",
        "@import",
        "url(http",
        "<iframe",
        "<object",
        "<embed",
    ] {
        assert!(!html.contains(bad), "found `{bad}`");
    }
    for tag in tags(html) {
        let names = attribute_names(&tag);
        assert!(
            !names
                .iter()
                .any(|n| ["src", "srcset", "action", "xlink:href"].contains(&n.as_str())),
            "no element loads a source: {tag}"
        );
        assert!(
            !names.iter().any(|n| n.starts_with("on")),
            "no event handler: {tag}"
        );
        if names.iter().any(|n| n == "href") {
            assert!(
                tag.contains("href=\"#"),
                "links stay inside the page: {tag}"
            );
        }
    }
    assert!(html.contains("content=\"default-src 'none';"), "CSP");
    // The page's one script is allowed by its hash, and only it.
    assert_eq!(count(html, "<script>"), 1);
    let s = html.find("<script>").unwrap() + "<script>".len();
    let e = html.find("</script>").unwrap();
    let digest = Sha256::digest(&html.as_bytes()[s..e]);
    let b64 = base64(&digest);
    assert!(
        html.contains(&format!(
            "script-src 'sha256-{}'",
            b64.replace('/', "&#x2f;")
        )) || html.contains(&format!("script-src 'sha256-{b64}'")),
        "the CSP hash matches the inline script"
    );
}

/// Every start tag of the page, as written.
fn tags(html: &str) -> Vec<String> {
    let re = regex::Regex::new(r"<[a-zA-Z][^<>]*>").unwrap();
    re.find_iter(html).map(|m| m.as_str().to_owned()).collect()
}

/// The attribute names of a start tag. Values are double-quoted and cannot
/// hold a raw `"` (it is escaped), so removing them leaves only names.
fn attribute_names(tag: &str) -> Vec<String> {
    static VALUES: LazyLock<regex::Regex> =
        LazyLock::new(|| regex::Regex::new(r#""[^"]*""#).unwrap());
    static NAME: LazyLock<regex::Regex> =
        LazyLock::new(|| regex::Regex::new(r"\s([a-zA-Z:-]+)\s*=").unwrap());
    let bare = VALUES.replace_all(tag, "");
    NAME.captures_iter(&bare)
        .map(|c| c[1].to_ascii_lowercase())
        .collect()
}

fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            out.push(if i <= chunk.len() {
                char::from(A[((n >> (18 - 6 * i)) & 63) as usize])
            } else {
                '='
            });
        }
    }
    out
}

#[test]
fn the_regressed_compare_report_draws_what_fell_and_where() {
    let dir = tempfile::tempdir().unwrap();
    let path = regressed_compare(dir.path());
    let report: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let html = render(&path);
    assert!(html.starts_with("<!doctype html>"));
    assert_self_contained(&html);
    assert!(
        !html.contains("http://") && !html.contains("https://"),
        "no URL at all"
    );

    // The verdict and the first finding: the checkpoint that fell, by how much, with its CI.
    assert!(html.contains("<div class=\"word\">FAIL</div>"));
    let hero = section(&html, "<h2>What fell</h2>", "<div class=\"hero", "<h2>");
    assert!(hero.contains("<code>checkpoint:P2-02</code>"), "{hero}");
    assert!(hero.contains("Never issue a refund without a supervisor approval first"));
    assert!(hero.contains("100.0% → 0.0%"));
    assert!(hero.contains("Δ −100.0 pp"));
    assert!(hero.contains("95% CI −100.0 pp … −100.0 pp"));
    // … in which cases, and the broken step drawn: sb-003's DAG with s8 as the root cause.
    assert!(hero.contains("Where it broke: <a href=\"#case-0-0\"><code>sb-003</code></a>"));
    let views = &report["views"]["suites"][0];
    let first = &views["details"][0]["head"];
    assert_eq!(first["id"], "sb-003");
    let steps = first["steps"].as_array().unwrap();
    let edges = first["dag"]["edges"].as_array().unwrap();
    let dag = section(hero, "data-focus-root", "<svg class=\"dag\"", "</svg>");
    assert_eq!(
        count(dag, "<g class=\"node "),
        steps.len(),
        "one group per step"
    );
    assert_eq!(count(dag, "<rect class=\"box\""), steps.len());
    assert_eq!(
        count(dag, "<path class=\"edge "),
        edges.len(),
        "one path per edge"
    );
    assert_eq!(count(dag, "</g>"), steps.len());
    // The root cause the report names is the node drawn red, with its failure label.
    let root = steps.iter().find(|s| s["root_cause"] == true).unwrap();
    let (id, kind) = (
        root["id"].as_str().unwrap(),
        root["type"].as_str().unwrap().to_ascii_lowercase(),
    );
    assert!(
        dag.contains(&format!(
            "<g class=\"node {kind} root\" data-step=\"{id}\">"
        )),
        "{dag}"
    );
    assert_eq!(
        count(dag, " root\" data-step="),
        1,
        "one root cause in this case"
    );
    let l3 = root["taxonomy"]["l3"].as_str().unwrap();
    // Notes beside a node are clipped to one short line.
    let shown: String = format!("◀ root cause: {l3}").chars().take(29).collect();
    assert!(dag.contains(&shown), "{shown}");
    assert_eq!(
        count(dag, " propagated\" data-step="),
        steps
            .iter()
            .filter(|s| s.get("propagated_from").is_some())
            .count()
    );
    assert!(
        dag.contains("⚑ cited by P2-02"),
        "the failing checkpoint's cited span is flagged"
    );

    // The forest plot: one row per metric.
    let metrics = report["metrics"].as_array().unwrap();
    assert_eq!(count(&html, "<g class=\"fp-row\""), metrics.len());
    let regressions = metrics
        .iter()
        .filter(|m| m["status"] == "regression")
        .count();
    assert_eq!(count(&html, "data-status=\"regression\""), regressions);

    // The matrix: every case, one cell per checkpoint, flipped cells marked.
    let cases = views["cases"].as_array().unwrap();
    let columns = views["checkpoints"].as_array().unwrap().len();
    let matrix = section(&html, "data-matrix", "<tbody>", "</tbody>");
    assert_eq!(count(matrix, "<tr data-id="), cases.len());
    assert_eq!(count(matrix, "<td class=\"st-"), cases.len() * columns);
    let worse: usize = cases
        .iter()
        .map(|c| {
            let (h, b) = (
                c["head"].as_str().unwrap(),
                c["base"].as_str().unwrap_or(""),
            );
            h.chars()
                .zip(b.chars())
                .filter(|(h, b)| *h == 'F' && *b == 'P')
                .count()
        })
        .sum();
    assert!(worse >= 5, "the five refund cases at least");
    assert_eq!(
        count(matrix, " worse\" title=\"baseline PASS → head FAIL\""),
        worse
    );

    // Case details: the worst regressed case opens first.
    let details = views["details"].as_array().unwrap();
    assert_eq!(count(&html, "<details class=\"case\""), details.len());
    let first_case = section(&html, "<h2>Cases in detail", "<details class=\"case\"", ">");
    assert_eq!(first_case, "<details class=\"case\" id=\"case-0-0\" open>");
    let open = regex::Regex::new(r#"<details class="case" id="case-\d+-\d+" open>"#).unwrap();
    assert_eq!(
        open.find_iter(&html).count(),
        1,
        "only the worst case starts open"
    );
    // Every SVG is closed.
    assert_eq!(count(&html, "<svg"), count(&html, "</svg>"));
}

#[test]
fn the_html_report_is_deterministic_and_old_reports_still_render() {
    let dir = tempfile::tempdir().unwrap();
    let path = regressed_compare(dir.path());
    assert_eq!(render(&path), render(&path));
    // A report saved before `views` existed renders, and says what is missing.
    let mut report: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    report.as_object_mut().unwrap().remove("views");
    let old = dir.path().join("old.json");
    std::fs::write(&old, serde_json::to_string(&report).unwrap()).unwrap();
    let html = render(&old);
    assert!(html.contains("saved without its <code>views</code> block"));
    assert_eq!(
        count(&html, "<g class=\"fp-row\""),
        report["metrics"].as_array().unwrap().len()
    );
    assert!(!html.contains("<details class=\"case\""));
}

const HOSTILE: &str = "</text><script>alert(1)</script>";
const ATTR: &str = "\"><img src=x onerror=alert(2)>";
const URL: &str = "https://evil.example/x.js";

/// Put hostile text into every kind of string the page shows.
fn poison_case(case: &mut Value) {
    case["id"] = Value::from(format!("{HOSTILE}{ATTR}"));
    for s in case["steps"].as_array_mut().unwrap() {
        s["name"] = Value::from(HOSTILE);
        s["notes"] = Value::from(format!("{ATTR} {URL}"));
        s["agent"] = Value::from(ATTR);
    }
    for c in case["checkpoints"].as_array_mut().unwrap() {
        c["notes"] = Value::from(format!("{HOSTILE} {URL}"));
        c["cited_spans"] = Value::from(vec![ATTR]);
    }
}

fn assert_inert(html: &str) {
    assert_self_contained(html);
    assert!(
        !html.contains("<script>alert"),
        "a label never becomes a script"
    );
    assert!(!html.contains("<img"), "a label never becomes an element");
    assert!(
        html.contains("&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"),
        "a label never closes an attribute"
    );
    assert!(!html.contains("href=\"https://evil"));
    // The text is still there, escaped, as text.
    assert!(html.contains("&lt;&#x2f;text&gt;&lt;script&gt;alert(1)&lt;&#x2f;script&gt;"));
}

#[test]
fn hostile_labels_stay_text_in_a_run_report() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run.json");
    let out = bin()
        .current_dir(repo())
        .arg("run")
        .args(REGRESSED_INPUTS)
        .args(["--deterministic", "--out"])
        .arg(&run)
        .output()
        .unwrap();
    assert!(
        out.status.success() || out.status.code() == Some(2),
        "{:?}",
        outputs(&out)
    );
    let mut report: Value = serde_json::from_str(&std::fs::read_to_string(&run).unwrap()).unwrap();
    report["suite"] = Value::from(HOSTILE);
    report["checkpoint_catalog"][0]["instruction"] = Value::from(format!("{HOSTILE}{ATTR}"));
    report["checkpoint_catalog"][0]["id"] = Value::from(ATTR);
    for case in report["cases"].as_array_mut().unwrap() {
        poison_case(case);
    }
    std::fs::write(&run, serde_json::to_string(&report).unwrap()).unwrap();
    let html = render(&run);
    assert_inert(&html);
    // The drawn DAGs are still there: labels were escaped, not dropped.
    assert!(count(&html, "<svg class=\"dag\"") >= 3);
    assert!(html.contains("<text class=\"nm\""));
}

#[test]
fn hostile_labels_stay_text_in_a_compare_report() {
    let dir = tempfile::tempdir().unwrap();
    let path = regressed_compare(dir.path());
    let mut report: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    for m in report["metrics"].as_array_mut().unwrap() {
        m["name"] = Value::from(format!("checkpoint:{HOSTILE}"));
        m["suite"] = Value::from(ATTR);
    }
    report["reasons"] = Value::from(vec![HOSTILE]);
    report["baseline"]["name"] = Value::from(ATTR);
    let views = &mut report["views"]["suites"][0];
    views["history"]["labels"] = Value::from(vec![HOSTILE; 6]);
    for c in views["cases"].as_array_mut().unwrap() {
        c["id"] = Value::from(HOSTILE);
    }
    for d in views["details"].as_array_mut().unwrap() {
        poison_case(&mut d["head"]);
        d["reasons"] = Value::from(vec![ATTR]);
    }
    std::fs::write(&path, serde_json::to_string(&report).unwrap()).unwrap();
    let html = render(&path);
    assert_inert(&html);
    assert!(html.contains("<svg class=\"dag\""));
}
