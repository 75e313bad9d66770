//! Issue 24 through the real binary: the airline rules written with `where`
//! (CEL), `any_of`/`all_of`/`not`, ordered `preceded_by` and per-turn
//! fields, each broken in a real tau-bench episode so that exactly its
//! checkpoint flips; and `where` expressions that would cost too much,
//! refused by lint or stopped at their cap.

#![expect(clippy::unwrap_used, reason = "test helpers fail loudly")]

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{bin, copy_dir, outputs, repo, run_report};

/// case id → checkpoint id → result.
fn states(report: &Value) -> BTreeMap<(String, String), String> {
    let mut out = BTreeMap::new();
    for c in report["cases"].as_array().unwrap() {
        for cp in c["checkpoints"].as_array().unwrap() {
            out.insert(
                (
                    c["id"].as_str().unwrap().to_owned(),
                    cp["id"].as_str().unwrap().to_owned(),
                ),
                cp["result"].as_str().unwrap().to_owned(),
            );
        }
    }
    out
}

type Flip = (String, String, String, String);

/// Copy airline-tau, apply `setup` (a valid variant of an episode), run;
/// apply `broken` (the same variant with the rule broken), run again; the
/// checkpoints whose result changed between the two.
fn flips(setup: impl FnOnce(&Path), broken: impl FnOnce(&Path)) -> Vec<Flip> {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("airline-tau");
    copy_dir(&repo().join("suites/airline-tau"), &suite);
    setup(&suite);
    let before = states(&run_report(dir.path(), "airline-tau"));
    broken(&suite);
    let after = states(&run_report(dir.path(), "airline-tau"));
    before
        .iter()
        .filter(|(k, v)| after[*k] != **v)
        .map(|((case, cp), v)| {
            (
                case.clone(),
                cp.clone(),
                v.clone(),
                after[&(case.clone(), cp.clone())].clone(),
            )
        })
        .collect()
}

fn one(case: &str, cp: &str, from: &str, to: &str) -> Vec<Flip> {
    vec![(case.into(), cp.into(), from.into(), to.into())]
}

/// Edit `traces/<episode>.json` of the suite at `suite`.
fn edit(suite: &Path, episode: &str, f: impl FnOnce(&mut Vec<Value>)) {
    let path = suite.join("traces").join(format!("{episode}.json"));
    let mut trace: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    f(trace["traj"].as_array_mut().unwrap());
    std::fs::write(&path, serde_json::to_string(&trace).unwrap()).unwrap();
}

/// Put the episode back as the repository has it.
fn restore(suite: &Path, episode: &str) {
    let name = format!("{episode}.json");
    let original = repo().join("suites/airline-tau/traces").join(&name);
    std::fs::copy(original, suite.join("traces").join(name)).unwrap();
}

/// The (single) tool call of message `i`.
fn call(traj: &mut [Value], i: usize) -> &mut Value {
    &mut traj[i]["tool_calls"][0]["function"]
}

/// A tool message's JSON content, edited.
fn result(traj: &mut [Value], i: usize, f: impl FnOnce(&mut Value)) {
    let mut v: Value = serde_json::from_str(traj[i]["content"].as_str().unwrap()).unwrap();
    f(&mut v);
    traj[i]["content"] = Value::String(v.to_string());
}

fn set_call(traj: &mut [Value], i: usize, name: &str, args: &Value) {
    let c = call(traj, i);
    c["name"] = json!(name);
    c["arguments"] = Value::String(args.to_string());
}

fn nothing(_: &Path) {}

// task-31 (reward 1) cancels 9HBUV8: basic economy, booked 2024-05-12, with
// insurance (message 25 is the read, 31 the user's yes, 32 the cancel).

/// Gap 2, "or" across events and pointers: without insurance the
/// reservation is not eligible, unless the user says the airline cancelled.
#[test]
fn a2_15_cancelling_an_ineligible_reservation_flips_only_a2_15() {
    let no_insurance = |s: &Path| {
        edit(s, "task-31", |t| {
            result(t, 25, |r| r["insurance"] = json!("no"));
        });
    };
    assert_eq!(
        flips(nothing, no_insurance),
        one("task-31", "A2-15", "PASS", "FAIL")
    );
    // The other branch of the `any_of`: another event, another pointer.
    let airline_said = |s: &Path| {
        edit(s, "task-31", |t| {
            t[29]["content"] =
                json!("The airline cancelled that DEN to BOS flight, so let's cancel it instead.");
        });
    };
    assert_eq!(
        flips(no_insurance, airline_said),
        one("task-31", "A2-15", "FAIL", "PASS")
    );
}

/// Gap 2, a negated `applies_to` condition: task-18 transfers to a human,
/// which its gold (no tools) does not call for. With the transfer in its
/// gold the checkpoint does not apply.
#[test]
fn a2_16_a_transfer_the_gold_does_not_call_for_flips_only_a2_16() {
    let gold = |with: bool| {
        move |s: &Path| {
            let path = s.join("cases.jsonl");
            let text = std::fs::read_to_string(&path).unwrap();
            let lines: Vec<String> = text
                .lines()
                .map(|l| {
                    let mut c: Value = serde_json::from_str(l).unwrap();
                    if c["id"] == "task-18" {
                        c["expected_tools"] = if with {
                            json!(["transfer_to_human_agents"])
                        } else {
                            json!([])
                        };
                    }
                    c.to_string()
                })
                .collect();
            std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        }
    };
    assert_eq!(
        flips(gold(true), gold(false)),
        one("task-18", "A2-16", "N/A", "FAIL")
    );
}

// task-6 (reward 1) reads M05KNL at message 9 and updates it at message 20;
// the tests turn that update into another write.

/// Gap 3, numeric comparison between captured values.
#[test]
fn a2_17_removing_checked_bags_flips_only_a2_17() {
    let bags = |n: u32| {
        move |s: &Path| {
            edit(s, "task-6", |t| {
                result(t, 9, |r| r["total_baggages"] = json!(2));
                let args = json!({"reservation_id": "M05KNL", "total_baggages": n, "nonfree_baggages": 0, "payment_id": "gift_card_8887175"});
                set_call(t, 20, "update_reservation_baggages", &args);
            });
        }
    };
    assert_eq!(
        flips(bags(3), bags(1)),
        one("task-6", "A2-17", "PASS", "FAIL")
    );
}

/// Gap 3, the length of a captured array.
#[test]
fn a2_18_changing_the_number_of_passengers_flips_only_a2_18() {
    let pax = |extra: bool| {
        move |s: &Path| {
            edit(s, "task-6", |t| {
                let mut passengers =
                    vec![json!({"first_name": "Aarav", "last_name": "Ito", "dob": "1992-09-13"})];
                if extra {
                    passengers.push(
                        json!({"first_name": "Lei", "last_name": "Ito", "dob": "1990-12-07"}),
                    );
                }
                let args = json!({"reservation_id": "M05KNL", "passengers": passengers});
                set_call(t, 20, "update_reservation_passengers", &args);
            });
        }
    };
    assert_eq!(
        flips(pax(false), pax(true)),
        one("task-6", "A2-18", "PASS", "FAIL")
    );
}

/// Gap 3, inequality between captures: a basic-economy reservation
/// upgraded and given other flights in the same call.
#[test]
fn a2_19_upgrading_and_reflighting_basic_economy_in_one_call_flips_only_a2_19() {
    let basic = |s: &Path| {
        edit(s, "task-6", |t| {
            result(t, 9, |r| r["cabin"] = json!("basic_economy"));
        });
    };
    let upgrade_only = |s: &Path| {
        basic(s);
        edit(s, "task-6", |t| {
            let args = json!({"reservation_id": "M05KNL", "cabin": "economy", "flights": [
                {"flight_number": "HAT227", "date": "2024-05-23"}, {"flight_number": "HAT139", "date": "2024-05-23"}],
                "payment_id": "gift_card_8887175"});
            set_call(t, 20, "update_reservation_flights", &args);
        });
    };
    // `basic` alone keeps the agent's real call: economy on other flights.
    let reflighted = |s: &Path| {
        restore(s, "task-6");
        basic(s);
    };
    assert_eq!(
        flips(upgrade_only, reflighted),
        one("task-6", "A2-19", "PASS", "FAIL")
    );
}

// task-11 (reward 1) books at message 32, paying 128 with gift_card_8516878
// (balance 128) and 247 with credit_card_3563913.

/// Gap 3, a captured balance against an amount.
#[test]
fn a2_20_overdrawing_a_gift_card_flips_only_a2_20() {
    let overdrawn = |s: &Path| {
        edit(s, "task-11", |t| {
            let f = call(t, 32);
            let mut args: Value = serde_json::from_str(f["arguments"].as_str().unwrap()).unwrap();
            args["payment_methods"] = json!([{"payment_id": "gift_card_8516878", "amount": 129}, {"payment_id": "credit_card_3563913", "amount": 246}]);
            f["arguments"] = Value::String(args.to_string());
        });
    };
    assert_eq!(
        flips(nothing, overdrawn),
        one("task-11", "A2-20", "PASS", "FAIL")
    );
}

/// Gap 4, membership of every element of an array in a captured object.
#[test]
fn a2_21_paying_with_a_method_not_in_the_profile_flips_only_a2_21() {
    let foreign = |s: &Path| {
        edit(s, "task-11", |t| {
            let f = call(t, 32);
            let text = f["arguments"]
                .as_str()
                .unwrap()
                .replace("gift_card_8516878", "gift_card_0000001");
            f["arguments"] = Value::String(text);
        });
    };
    assert_eq!(
        flips(nothing, foreign),
        one("task-11", "A2-21", "PASS", "FAIL")
    );
}

/// Gap 3, arithmetic: a certificate of $100 × passengers after the
/// cancellation is allowed, $120 (no multiple of $50) is not.
#[test]
fn a2_22_a_certificate_of_the_wrong_amount_flips_only_a2_22() {
    let certificate = |amount: u32| {
        move |s: &Path| {
            restore(s, "task-31");
            edit(s, "task-31", |t| {
                let mut asked = t[32].clone();
                asked["tool_calls"][0]["id"] = json!("call_cert");
                let f = &mut asked["tool_calls"][0]["function"];
                f["name"] = json!("send_certificate");
                f["arguments"] = Value::String(
                    json!({"user_id": "mohamed_hernandez_5188", "amount": amount}).to_string(),
                );
                let answer = json!({"role": "tool", "tool_call_id": "call_cert", "name": "send_certificate",
                    "content": format!("Certificate certificate_1 added to user mohamed_hernandez_5188 with amount {amount}.")});
                t.insert(34, answer);
                t.insert(34, asked);
            });
        }
    };
    assert_eq!(
        flips(certificate(100), certificate(120)),
        one("task-31", "A2-22", "PASS", "FAIL")
    );
}

/// Gap 5, per-turn structure: text and a tool call in one LLM turn.
#[test]
fn a2_23_a_reply_and_a_call_in_one_turn_flips_only_a2_23() {
    let chatty = |s: &Path| {
        edit(s, "task-31", |t| {
            t[32]["content"] = json!("Cancelling it now.");
        });
    };
    assert_eq!(
        flips(nothing, chatty),
        one("task-31", "A2-23", "PASS", "FAIL")
    );
    // Two calls in one turn.
    let parallel = |s: &Path| {
        edit(s, "task-31", |t| {
            let mut second = t[24]["tool_calls"][0].clone();
            second["id"] = json!("call_again");
            t[24]["tool_calls"].as_array_mut().unwrap().push(second);
            let mut answer = t[25].clone();
            answer["tool_call_id"] = json!("call_again");
            t.insert(26, answer);
        });
    };
    assert_eq!(
        flips(nothing, parallel),
        one("task-31", "A2-23", "PASS", "FAIL")
    );
}

/// Gap 1: the ordered pair "the agent asks, then the user says yes". A2-08
/// (the user's last message has a yes-word) cannot tell these apart.
#[test]
fn a2_24_a_no_or_a_yes_nobody_asked_for_flips_only_a2_24() {
    for reply in [
        "No, don't proceed.",
        "I said yes earlier but actually no",
        "Yes... wait, hold on, not that one.",
    ] {
        let said = move |s: &Path| edit(s, "task-31", |t| t[31]["content"] = json!(reply));
        assert_eq!(
            flips(nothing, said),
            one("task-31", "A2-24", "PASS", "FAIL"),
            "{reply}"
        );
    }
    // The user's "go ahead" without the agent having listed anything and
    // asked (tau-bench task 17): the listing removed.
    let unasked = |s: &Path| {
        edit(s, "task-31", |t| {
            t.remove(30);
        });
    };
    assert_eq!(
        flips(nothing, unasked),
        one("task-31", "A2-24", "PASS", "FAIL")
    );
}

/// A suite with one `where` checkpoint over a tool call whose `l` argument
/// has `n` elements.
fn expr_suite(dir: &Path, expr: &str, n: usize) {
    let suite = dir.join("costly");
    std::fs::create_dir_all(suite.join("traces")).unwrap();
    let yaml = format!(
        r#"suite: costly
spec_version: "1"
traces: traces/
tools:
  - name: pick
    schema: {{type: object, properties: {{l: {{type: array}}}}}}
checkpoints:
  - id: X2-01
    tier: 2
    instruction: No pick repeats a value
    severity: critical
    evidence_sources: [trace]
    sequence:
      never:
        tool: pick
        where: "{expr}"
cases:
  - {{id: c1}}
"#
    );
    std::fs::write(suite.join("suite.yaml"), yaml).unwrap();
    let l: Vec<usize> = (0..n).collect();
    let trace = json!({"messages": [
        {"role": "user", "content": "pick"},
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "pick", "arguments": json!({"l": l}).to_string()}}]},
        {"role": "tool", "tool_call_id": "c1", "name": "pick", "content": "ok"}
    ]});
    std::fs::write(suite.join("traces/c1.json"), trace.to_string()).unwrap();
}

/// Issue 24: an unbounded `where` never hangs: nested comprehensions and
/// deep nesting are lint errors with `file:line:col`; a quadratic check on
/// a large argument is stopped before it runs, N/A with its reason, which
/// the gate counts as unevaluated.
#[test]
fn costly_where_expressions_are_refused_or_stopped_at_their_cap() {
    let dir = tempfile::tempdir().unwrap();
    for (expr, message) in [
        (
            "args.l.exists(x, args.l.exists(y, x == y))",
            "inside another one could take quadratic time",
        ),
        (
            &format!("{}true{}", "(".repeat(40), ")".repeat(40)),
            "nests deeper than 24 levels",
        ),
        ("args.l.size( > 1", "syntax error"),
    ] {
        expr_suite(dir.path(), expr, 3);
        let output = bin()
            .args(["lint", "--suites-dir"])
            .arg(dir.path())
            .args(["--suite", "costly"])
            .output()
            .unwrap();
        let (stdout, stderr) = outputs(&output);
        let all = format!("{stdout}{stderr}");
        assert_eq!(output.status.code(), Some(78), "{all}");
        assert!(all.contains("`where` in `X2-01` does not compile"), "{all}");
        assert!(all.contains(message), "{all}");
        // The location points into the expression on its line.
        assert!(all.contains("suite.yaml:16:"), "{all}");
    }
    // The column points at the error inside the expression: `foo` is at
    // column 17 of the file (`        where: "` is 16 characters).
    expr_suite(dir.path(), "args.l == [] || foo == 1", 3);
    let output = bin()
        .args(["lint", "--suites-dir"])
        .arg(dir.path())
        .args(["--suite", "costly"])
        .output()
        .unwrap();
    let (stdout, stderr) = outputs(&output);
    let all = format!("{stdout}{stderr}");
    assert!(all.contains("unknown variable `foo`"), "{all}");
    assert!(all.contains("suite.yaml:16:33]"), "{all}");

    // Quadratic in the argument: fine on 3 elements, not run on 5,000.
    let quadratic = "args.l.exists(x, x in args.l && x < 0)";
    expr_suite(dir.path(), quadratic, 3);
    let report = run_report(dir.path(), "costly");
    let cp = &report["cases"][0]["checkpoints"][0];
    assert_eq!(cp["result"], "PASS", "{cp}");
    expr_suite(dir.path(), quadratic, 5_000);
    let started = Instant::now();
    let report = run_report(dir.path(), "costly");
    assert!(started.elapsed() < Duration::from_secs(20));
    let cp = &report["cases"][0]["checkpoints"][0];
    assert_eq!(cp["result"], "N/A", "{cp}");
    assert_eq!(cp["na_kind"], "expr_error", "{cp}");
    let notes = cp["notes"].as_str().unwrap();
    assert!(
        notes.starts_with("could not be evaluated: `where: args.l.exists"),
        "{notes}"
    );
    assert!(notes.contains("over the cap of 1000000"), "{notes}");
}

/// Issue 24: `where` is type-checked at lint where the tool's schema gives the types. An
/// argument the tool does not have, and a comparison of a string argument with a number
/// (CEL compares values of one type only: the rule would never fire, or never be
/// evaluated), are lint errors at the matcher; the converted forms lint clean.
#[test]
fn where_is_checked_against_the_tool_schema_at_lint() {
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("suites/stable");
    copy_dir(&crate::common::fixture("suites/stable"), &suite);
    let text = std::fs::read_to_string(suite.join("suite.yaml")).unwrap();
    let lint = |expr: &str| {
        let rule = format!(
            "  - id: P2-09\n    tier: 2\n    instruction: Look up real accounts only\n    severity: high\n    evidence_sources: [trace]\n    sequence: {{never: {{tool: lookup_account, where: \"{expr}\"}}}}\ncases:\n"
        );
        std::fs::write(
            suite.join("suite.yaml"),
            text.replacen("cases:\n", &rule, 1),
        )
        .unwrap();
        let out = bin()
            .current_dir(dir.path())
            .args(["lint", "--suite", "stable"])
            .output()
            .unwrap();
        let (stdout, stderr) = outputs(&out);
        (out.status.code(), format!("{stdout}{stderr}"))
    };
    let (code, out) = lint("args.acount_id == 'A-0'");
    assert_eq!(code, Some(78), "{out}");
    assert!(
        out.contains("`where` in `P2-09` reads `args.acount_id`, which `lookup_account` never has: `/acount_id` is not an argument (did you mean `account_id`?)"),
        "{out}"
    );
    let (code, out) = lint("args.account_id > 3");
    assert_eq!(code, Some(78), "{out}");
    assert!(
        out.contains("`where` in `P2-09` compares `args.account_id` (string in the schema of `lookup_account`) with a number"),
        "{out}"
    );
    assert!(out.contains("convert it: `int(args.account_id)`"), "{out}");
    for fine in [
        "int(args.account_id) > 3",
        "args.account_id == 'A-0'",
        "has(args.account_id)",
    ] {
        let (code, out) = lint(fine);
        assert_eq!(code, Some(0), "{fine}: {out}");
    }
}

/// The free-bag allowance: task-6's user is a gold member and M05KNL one
/// business passenger (3 free bags); message 20 becomes a baggage update to
/// 5 bags, 2 of them paid (allowed), then 1 paid (one free bag too many).
#[test]
fn a2_25_too_few_paid_bags_flips_only_a2_25() {
    let bags = |nonfree: u32| {
        move |s: &Path| {
            edit(s, "task-6", |t| {
                let args = json!({"reservation_id": "M05KNL", "total_baggages": 5, "nonfree_baggages": nonfree, "payment_id": "gift_card_8887175"});
                set_call(t, 20, "update_reservation_baggages", &args);
                result(t, 21, |r| {
                    r["total_baggages"] = json!(5);
                    r["nonfree_baggages"] = json!(nonfree);
                });
            });
        }
    };
    assert_eq!(
        flips(bags(2), bags(1)),
        one("task-6", "A2-25", "PASS", "FAIL")
    );
}
