//! Agent logs without span ids: Who&When multi-agent chats and SWE-agent
//! trajectories.

use std::collections::BTreeSet;

use agenteval_gate::trace::{SpanKind, StatusCode, Tokens, TraceFormat};
use serde_json::{Value, json};

use super::{count, load_one, root, span, tool_names};

/// (file, messages, speakers, mistake agent, mistake step, failed terminal runs).
type Labelled = (
    &'static str,
    usize,
    &'static [&'static str],
    &'static str,
    usize,
    usize,
);

const WHO_AND_WHEN: [Labelled; 12] = [
    (
        "algorithm-generated_100",
        10,
        &[
            "Computer_terminal",
            "Movie_Expert",
            "StreamingService_Expert",
        ],
        "Movie_Expert",
        2,
        0,
    ),
    (
        "algorithm-generated_101",
        8,
        &[
            "Budgeting_Expert",
            "Computer_terminal",
            "Tickets_Pricing_Expert",
            "Verification_Expert",
        ],
        "Tickets_Pricing_Expert",
        2,
        0,
    ),
    (
        "algorithm-generated_102",
        10,
        &[
            "Computer_terminal",
            "Filmography_Expert",
            "IMDB_Ratings_Expert",
            "StreamingAvailability_Expert",
        ],
        "Filmography_Expert",
        1,
        0,
    ),
    (
        "algorithm-generated_103",
        10,
        &[
            "Computer_terminal",
            "DataVerification_Expert",
            "Eateries_Expert",
            "Location-Based_Services_Expert",
        ],
        "DataVerification_Expert",
        3,
        1,
    ),
    (
        "algorithm-generated_104",
        10,
        &[
            "Computer_terminal",
            "DebuggingOptimization_Expert",
            "PythonDebugging_Expert",
            "Validation_Expert",
        ],
        "PythonDebugging_Expert",
        0,
        1,
    ),
    (
        "algorithm-generated_99",
        7,
        &[
            "AnalyticalReasoning_Expert",
            "Computer_terminal",
            "Ticket_Pricing_Expert",
            "Verification_Expert",
        ],
        "Verification_Expert",
        2,
        0,
    ),
    (
        "hand-crafted_1",
        29,
        &["Orchestrator", "WebSurfer", "human"],
        "WebSurfer",
        12,
        0,
    ),
    (
        "hand-crafted_10",
        44,
        &["Orchestrator", "WebSurfer", "human"],
        "Orchestrator",
        9,
        0,
    ),
    (
        "hand-crafted_2",
        86,
        &["Orchestrator", "WebSurfer", "human"],
        "WebSurfer",
        4,
        0,
    ),
    (
        "hand-crafted_4",
        17,
        &["Orchestrator", "WebSurfer", "human"],
        "WebSurfer",
        8,
        0,
    ),
    (
        "hand-crafted_6",
        8,
        &["Orchestrator", "WebSurfer", "human"],
        "Orchestrator",
        5,
        0,
    ),
    (
        "hand-crafted_8",
        129,
        &["FileSurfer", "Orchestrator", "WebSurfer", "human"],
        "WebSurfer",
        8,
        0,
    ),
];

#[test]
fn who_and_when_speakers_labels_and_terminal_runs() {
    for (file, messages, speakers, mistake_agent, mistake_step, failed_runs) in WHO_AND_WHEN {
        let trace = load_one(&format!("who-and-when/{file}.json"));
        assert_eq!(trace.format, TraceFormat::MultiAgentChat, "{file}");
        assert_eq!(trace.spans.len(), messages + 1, "{file}");
        assert!(trace.warnings.is_empty(), "{file}: {:?}", trace.warnings);
        let agents: BTreeSet<&str> = trace
            .spans
            .iter()
            .skip(1)
            .filter_map(|s| s.agent.as_deref())
            .collect();
        assert_eq!(agents.into_iter().collect::<Vec<_>>(), speakers, "{file}");
        assert_eq!(
            trace.metadata["mistake_agent"],
            json!(mistake_agent),
            "{file}"
        );
        assert_eq!(
            trace.metadata["mistake_step"],
            json!(mistake_step.to_string()),
            "{file}"
        );
        assert!(
            trace.metadata["mistake_reason"]
                .as_str()
                .is_some_and(|r| !r.is_empty()),
            "{file}"
        );
        assert!(
            trace.metadata["ground_truth"].is_string() && trace.metadata["question"].is_string(),
            "{file}"
        );
        // The labelled step is spoken by the labelled agent.
        let blamed = span(&trace, &format!("m{mistake_step}"));
        assert_eq!(trace.metadata["mistake_span"], json!(blamed.id), "{file}");
        assert_eq!(blamed.agent.as_deref(), Some(mistake_agent), "{file}");
        let terminal_errors = trace
            .tool_spans()
            .filter(|s| s.status.code == StatusCode::Error)
            .count();
        assert_eq!(terminal_errors, failed_runs, "{file}");
        let humans = count(&trace, SpanKind::User);
        assert_eq!(
            humans,
            usize::from(file.starts_with("hand-crafted")),
            "{file}"
        );
    }
}

#[test]
fn who_and_when_roles_split_into_speaker_and_recipient() {
    let trace = load_one("who-and-when/hand-crafted_8.json");
    let to_file_surfer = trace
        .spans
        .iter()
        .filter(|s| s.attributes.get("recipient").and_then(|v| v.as_str()) == Some("FileSurfer"))
        .count();
    assert_eq!(to_file_surfer, 3);
    let m3 = span(&trace, "m3");
    assert_eq!(
        (m3.name.as_str(), m3.agent.as_deref()),
        ("Orchestrator (-> WebSurfer)", Some("Orchestrator"))
    );
    assert_eq!(m3.attributes["recipient"], json!("WebSurfer"));
    assert_eq!(span(&trace, "m1").attributes["channel"], json!("thought"));
    assert_eq!(span(&trace, "m0").kind, SpanKind::User);

    let captain = load_one("who-and-when/algorithm-generated_103.json");
    let failed = span(&captain, "m4");
    assert_eq!(
        (failed.kind, failed.name.as_str()),
        (SpanKind::Tool, "Computer_terminal")
    );
    assert_eq!(
        failed.status.message.as_deref(),
        Some("exitcode: 1 (execution failed): TypeError: 'NoneType' object is not iterable")
    );
    // The terminal ran the code of the turn before it, and says so.
    assert_eq!(failed.attributes["requested_by"], json!("m3"));
    let code = failed
        .tool
        .as_ref()
        .and_then(|t| t.arguments.as_ref())
        .unwrap()
        .value()
        .into_owned();
    assert!(
        code["code"]
            .as_str()
            .is_some_and(|c| c.starts_with("from functions import perform_web_search")),
        "{code}"
    );
    assert_eq!(span(&captain, "m2").status.code, StatusCode::Ok);
    assert_eq!(captain.metadata["is_correct"], json!(false));
    assert!(
        captain.metadata["system_prompt"]
            .get("DataVerification_Expert")
            .is_some()
    );
    // "no code to execute" replies are neither ok nor failed.
    let idle = load_one("who-and-when/algorithm-generated_104.json");
    assert_eq!(span(&idle, "m1").status.code, StatusCode::Unset);
}

#[test]
fn swe_agent_new_format_uses_tool_call_functions() {
    let trace =
        load_one("swe-agent/marshmallow-code__marshmallow-1867.function_calling_replace.traj");
    assert_eq!(trace.format, TraceFormat::SweAgent);
    assert_eq!(trace.spans.len(), 23);
    assert_eq!(
        tool_names(&trace),
        [
            "create",
            "insert",
            "bash",
            "bash",
            "find_file",
            "open",
            "edit",
            "edit",
            "bash",
            "bash",
            "submit"
        ]
    );
    assert_eq!(count(&trace, SpanKind::Llm), 11);
    let find = span(&trace, "o4").tool.as_ref().unwrap();
    assert_eq!(
        find.arguments,
        Some(json!({"file_name": "fields.py", "dir": "src"}).into())
    );
    assert_eq!(
        find.call_id.as_deref(),
        Some("call_ahToD2vM0aQWJPkRmy5cumru")
    );
    assert_eq!(span(&trace, "o6").status.code, StatusCode::Error);
    assert_eq!(span(&trace, "o7").status.code, StatusCode::Unset);
    // Call ids repeat in this replayed run; each observation names its step.
    assert_eq!(span(&trace, "o8").requested_by(), Some("s8"));
    assert_eq!(
        span(&trace, "o2").tool.as_ref().unwrap().call_id,
        span(&trace, "o8").tool.as_ref().unwrap().call_id
    );
    assert_eq!(
        span(&trace, "o2").attributes["state"]["open_file"],
        json!("/testbed/reproduce.py")
    );
    assert!(
        span(&trace, "o2").attributes["execution_time_s"]
            .as_f64()
            .is_some_and(|t| t > 0.3)
    );
    let root = root(&trace);
    assert_eq!(
        (root.agent.as_deref(), root.status.code),
        (Some("main"), StatusCode::Ok)
    );
    assert_eq!(
        root.tokens(),
        Some(Tokens {
            input: 0,
            output: 0
        })
    );
    assert_eq!(trace.metadata["exit_status"], json!("submitted"));
    assert_eq!(trace.metadata["model_stats"]["api_calls"], json!(11));
    assert!(
        trace
            .final_output
            .as_deref()
            .is_some_and(|p| p.contains("diff --git a/src/marshmallow/fields.py"))
    );
    assert!(!trace.metadata.contains_key("submission"));
}

#[test]
fn swe_agent_old_format_names_tools_by_command_word() {
    let trace = load_one("swe-agent/pydicom__pydicom-1458.gpt4.traj");
    assert_eq!(trace.spans.len(), 25);
    assert_eq!(
        tool_names(&trace),
        [
            "create",
            "edit",
            "python",
            "find_file",
            "open",
            "edit",
            "edit",
            "edit",
            "edit",
            "python",
            "rm",
            "submit"
        ]
    );
    let errors: Vec<&str> = trace
        .tool_spans()
        .filter(|s| s.status.code == StatusCode::Error)
        .map(|s| s.id.as_str())
        .collect();
    assert_eq!(errors, ["o5", "o6", "o7"]);
    assert_eq!(
        span(&trace, "o0").tool.as_ref().unwrap().arguments,
        Some(Value::String("reproduce_bug.py".into()).into())
    );
    let s0 = span(&trace, "s0");
    // System prompt, demonstration and issue precede the first action.
    assert_eq!(s0.input_messages.len(), 3);
    assert_eq!(s0.input_messages[0].role, "system");
    assert_eq!(span(&trace, "s1").input_messages.len(), 1);
    assert_eq!(
        s0.requested_tool_calls().next().map(|c| c.name.as_str()),
        Some("create")
    );
    assert_eq!(s0.attributes["action"], json!("create reproduce_bug.py\n"));
    let root = root(&trace);
    assert_eq!(root.agent.as_deref(), Some("primary"));
    assert_eq!(
        root.tokens(),
        Some(Tokens {
            input: 122_612,
            output: 1369
        })
    );
    assert_eq!(root.cost(), Some(1.26719));
    assert_eq!(
        span(&trace, "o2").attributes["state"]["working_dir"],
        json!("/pydicom__pydicom")
    );
    assert!(
        trace
            .final_output
            .as_deref()
            .is_some_and(|p| p.contains("numpy_handler.py"))
    );
}
