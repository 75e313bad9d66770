use super::*;
use serde_json::json;

const VARS: &[&str] = &["args", "captures", "result"];

fn run(src: &str, vars: &[(&str, Value)]) -> Result<bool, String> {
    let e = compile(src, VARS).unwrap();
    let map: BTreeMap<&str, &Value> = vars.iter().map(|(k, v)| (*k, v)).collect();
    e.evaluate(&map)
}

#[test]
fn the_issue_examples_evaluate() {
    let args = json!({"total_baggages": 3, "passengers": [{"n": 1}, {"n": 2}],
        "payment_id": "gc_1", "payment_methods": [{"payment_id": "gc_1"}, {"payment_id": "cc_2"}]});
    let captures = json!({"old_bags": 2, "pax": [1, 2],
        "profile": {"payment_methods": {"gc_1": {}, "cc_2": {}}}});
    let vars = [("args", args), ("captures", captures)];
    assert_eq!(
        run("int(args.total_baggages) >= captures.old_bags", &vars),
        Ok(true)
    );
    assert_eq!(
        run("args.total_baggages < captures.old_bags", &vars),
        Ok(false)
    );
    assert_eq!(
        run("size(args.passengers) == size(captures.pax)", &vars),
        Ok(true)
    );
    assert_eq!(
        run("args.payment_id in captures.profile.payment_methods", &vars),
        Ok(true)
    );
    assert_eq!(
        run(
            "args.payment_methods.all(p, p.payment_id in captures.profile.payment_methods)",
            &vars
        ),
        Ok(true)
    );
    assert_eq!(run("args.payment_id in ['a', 'b']", &vars), Ok(false));
}

#[test]
fn errors_are_results_not_panics() {
    let vars = [("args", json!({"a": 1}))];
    let err = run("args.missing > 1", &vars).unwrap_err();
    assert!(err.contains("missing"), "{err}");
    assert!(
        run("args.a", &vars)
            .unwrap_err()
            .contains("not true or false")
    );
    assert!(run("args.a / 0 == 1", &vars).is_err());
    assert!(
        run("captures.x == 1", &vars)
            .unwrap_err()
            .contains("no value here")
    );
}

#[test]
fn compile_errors_say_where() {
    let e = compile("args.a >", VARS).unwrap_err();
    assert!(e.message.starts_with("syntax error"), "{e:?}");
    assert_eq!(e.line, 1);
    assert!(e.column > 0, "{e:?}");
    let e = compile("argz.a == 1", VARS).unwrap_err();
    assert_eq!(e.message, "unknown variable `argz`");
    assert_eq!((e.line, e.column), (1, 1));
    let e = compile("args.a == 1 &&\n  foo == 2", VARS).unwrap_err();
    assert_eq!((e.line, e.column), (2, 3), "{e:?}");
    // Comprehension variables are not free variables.
    let e = compile("args.l.exists(x, x == 1)", VARS).unwrap();
    assert_eq!(e.vars, BTreeSet::from(["args".to_owned()]));
    assert_eq!(
        compile("captures.a == captures.b", VARS).unwrap().captures,
        BTreeSet::from(["a".to_owned(), "b".to_owned()])
    );
}

#[test]
fn expensive_shapes_are_refused_at_compile_time() {
    let long = format!("args.a == '{}'", "x".repeat(MAX_EXPR_CHARS));
    assert!(
        compile(&long, VARS)
            .unwrap_err()
            .message
            .contains("over the limit of 1000")
    );
    for deep in [
        format!("{}1{}", "(".repeat(200), ")".repeat(200)),
        format!("{}true", "!".repeat(500)),
        format!("{}1 > 0", "-".repeat(500)),
        format!("{}1{}", "[".repeat(300), "]".repeat(300)),
        vec!["1"; 480].join("+") + ">0",
        vec!["a"; 490].join(".") + ">0",
    ] {
        let e = compile(&deep, VARS).unwrap_err();
        assert!(
            e.message.contains("nests deeper than 24"),
            "{}: {e:?}",
            &deep[..20]
        );
    }
    let nested = compile("args.l.all(x, args.l.exists(y, x == y))", VARS).unwrap_err();
    assert!(nested.message.contains("inside another"), "{nested:?}");
    let many = compile(
        "args.l.all(x, x > 0) && args.l.all(x, x > 0) && args.l.all(x, x > 0) && args.l.all(x, x > 0) && args.l.all(x, x > 0)",
        VARS,
    )
    .unwrap_err();
    assert!(many.message.contains("over the limit of 4"), "{many:?}");
}

#[test]
fn evaluation_over_its_cap_is_not_run() {
    let big: Vec<i64> = (0..200_000).collect();
    let vars = [("args", json!({"l": big}))];
    let err = run("args.l.all(x, x in args.l)", &vars).unwrap_err();
    assert!(
        err.starts_with("not run: on these values it could take up to"),
        "{err}"
    );
    assert!(err.contains("over the cap of 1000000"), "{err}");
    // The same expression on a small list runs.
    assert_eq!(
        run(
            "args.l.all(x, x in args.l)",
            &[("args", json!({"l": [1, 2, 3]}))]
        ),
        Ok(true)
    );
}

/// An expression that reads a variable only as `var.NAME` sees the same
/// through [`project`] (only those fields, borrowed) as through the whole
/// conversion: the same answers and the same errors.
#[test]
fn a_projection_evaluates_as_the_whole_value() {
    let results = [
        json!({"cabin": "business", "passengers": [{"n": 1}, {"n": 2}], "created_at": "2024-05-14T16:00:00",
               "flights": [{"flight_number": "HAT1", "date": "2024-05-20"}], "other": {"deep": [1, 2, 3]}}),
        json!({"cabin": "economy", "passengers": []}),
        json!({}),
        json!("a string result"),
        json!([1, 2]),
        json!(null),
    ];
    let sources = [
        "result.cabin == 'business'",
        "size(result.passengers) == 2 && result.created_at >= '2024-05-14T15:00:00'",
        "has(result.insurance) || result.cabin != 'basic_economy'",
        "has(result.flights) && result.flights.map(f, f.flight_number + '/' + f.date) == ['HAT1/2024-05-20']",
        "result.passengers.all(p, p.n > 0)",
        "result.missing == 1",
    ];
    for src in sources {
        let e = compile(src, VARS).unwrap();
        assert!(e.fields.contains_key("result"), "{src}: read only by field");
        for result in &results {
            let whole = to_val(result);
            let whole_var = Var::borrowed(result, whole.as_ref());
            let projection = project(result, &e.fields["result"]);
            assert_eq!(
                projection.is_some(),
                result.is_object(),
                "{src} on {result}"
            );
            let Some(projection) = projection else {
                continue;
            };
            let projected_var = Var::borrowed(result, projection.as_ref());
            let a = e.evaluate_vars(&BTreeMap::from([("result", whole_var)]));
            let b = e.evaluate_vars(&BTreeMap::from([("result", projected_var)]));
            assert_eq!(a, b, "{src} on {result}");
        }
    }
    // Read whole (`size(result)`, `'k' in result`, `result == {...}`): no projection.
    for src in [
        "size(result) > 1",
        "'cabin' in result",
        "result.cabin == 'x' || result == {}",
    ] {
        let e = compile(src, VARS).unwrap();
        assert!(!e.fields.contains_key("result"), "{src}");
    }
    // Comprehension variables named like a free variable are not it.
    let e = compile("result.passengers.exists(args, args.n == 1)", VARS).unwrap();
    assert_eq!(
        e.fields.get("result"),
        Some(&BTreeSet::from(["passengers".to_owned()]))
    );
    assert!(!e.vars.contains("args"));
}

/// A comprehension over a capture finds its range's length in the
/// bindings (no JSON of `captures` is built): the same bound as with it.
#[test]
fn the_bound_finds_a_captured_range_in_the_bindings() {
    let e = compile("captures.ids.all(i, i > 0)", VARS).unwrap();
    let ids = Arc::new(json!([1, 2, 3, 4, 5, 6, 7, 8]));
    let members = BTreeMap::from([("ids".to_owned(), Arc::clone(&ids))]);
    let json = json!({"ids": *ids});
    let with_json = e.bound_sized(&BTreeMap::from([(
        "captures",
        Var::sized(&json, &UNREAD, 10),
    )]));
    let with_members = e.bound_sized(&BTreeMap::from([(
        "captures",
        Var::sized(&Value::Null, &UNREAD, 10).with_members(&members),
    )]));
    assert_eq!(with_json, with_members);
    // The range's length counts: 8 elements bound more than 1.
    let one = BTreeMap::from([("ids".to_owned(), Arc::new(json!([1])))]);
    let with_one = e.bound_sized(&BTreeMap::from([(
        "captures",
        Var::sized(&Value::Null, &UNREAD, 10).with_members(&one),
    )]));
    assert!(with_one < with_members, "{with_one} vs {with_members}");
}
