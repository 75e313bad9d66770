//! `where:` predicates: Common Expression Language (CEL, the `cel` crate),
//! compiled once at lint time and evaluated per event (docs/suites.md,
//! "Expressions").
//!
//! CEL is not Turing-complete (no loops, no recursion, no user functions),
//! but its comprehension macros (`all`, `exists`, `map`, `filter`, …) over
//! data from a trace can still cost a lot, and the crate has no step
//! counter. So the cost is bounded in two places:
//!
//! - at compile time: at most [`MAX_EXPR_CHARS`] characters, nesting at most
//!   [`MAX_EXPR_DEPTH`] deep (brackets, unary operators and the expression
//!   tree), at most [`MAX_COMPREHENSIONS`] comprehensions and none inside
//!   another;
//! - before each evaluation: an upper bound on the work from the sizes of the
//!   values the expression reads ([`Expr::bound`]); over [`MAX_EXPR_STEPS`]
//!   the expression is not run and the caller gets the reason.

use std::collections::{BTreeMap, BTreeSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, LazyLock};

use cel::common::value::{CowVal, Val};
use cel::context::VariableResolver;
use cel::{Context, Env, Program};
use serde_json::Value;

mod values;
mod walk;
use values::UNREAD;
pub use values::{Converted, Members, Var, project, to_val, to_val_owned};
use walk::{Walk, prescan_depth};

/// Longest expression, in characters.
pub const MAX_EXPR_CHARS: usize = 1_000;
/// Deepest nesting: brackets, unary operators, and the expression tree
/// (`a + b + c` is 2 deep).
pub const MAX_EXPR_DEPTH: usize = 24;
/// Comprehension macros (`all`, `exists`, `exists_one`, `map`, `filter`)
/// per expression; none may sit inside another's range or body.
pub const MAX_COMPREHENSIONS: usize = 4;
/// Work an evaluation may do, in steps (one step: one value visited).
pub const MAX_EXPR_STEPS: u64 = 1_000_000;

/// The standard CEL environment, built once.
static ENV: LazyLock<Arc<Env>> = LazyLock::new(|| Arc::new(Env::stdlib()));

/// A compiled `where:` expression.
#[derive(Debug)]
pub struct Expr {
    pub source: String,
    program: Program,
    /// The free variables it reads.
    pub vars: BTreeSet<String>,
    /// `captures.NAME` references.
    pub captures: BTreeSet<String>,
    /// Whether it reads `captures` other than as `captures.NAME`.
    pub whole_captures: bool,
    /// The variables it reads only as `var.NAME`, with those names: only
    /// they need converting (see [`project`]).
    pub fields: BTreeMap<String, BTreeSet<String>>,
    /// `args.a.b` paths it reads, as JSON Pointers into the arguments (`/a/b`).
    pub arg_paths: BTreeSet<String>,
    /// `args.a <op> literal` comparisons: the pointer and the literal's JSON type
    /// (`string`, `number`, `boolean`, `null`), for lint against the tool's schema.
    pub arg_comparisons: BTreeSet<(String, &'static str)>,
    nodes: u64,
    comprehensions: Vec<Comprehension>,
}

#[derive(Debug)]
struct Comprehension {
    /// `var.a.b`, when the range is a variable path: its length is known
    /// before evaluation.
    pub(super) range: Option<(String, Vec<String>)>,
    pub(super) body_nodes: u64,
}

/// Why an expression does not compile, with its place in the expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileError {
    pub message: String,
    pub help: String,
    /// 1-based line and column inside the expression; 0 when unknown.
    pub line: usize,
    pub column: usize,
}

impl CompileError {
    pub(super) fn at(source: &str, char_offset: usize, message: String, help: &str) -> Self {
        let (line, column) = line_col(source, char_offset);
        Self {
            message,
            help: help.to_owned(),
            line,
            column,
        }
    }
}

fn line_col(source: &str, char_offset: usize) -> (usize, usize) {
    let mut line = 1;
    let mut column = 1;
    for c in source.chars().take(char_offset) {
        if c == '\n' {
            line += 1;
            column = 1;
        } else {
            column += 1;
        }
    }
    (line, column)
}

const SYNTAX_HELP: &str = "`where` is a CEL expression: `args.total >= captures.old_total`, `size(args.passengers) == 1`, `args.payment_id in captures.profile.payment_methods`, `args.items.all(i, i.qty > 0)`; see docs/suites.md";

/// Compile `source`, which may read the variables in `allowed`.
pub fn compile(source: &str, allowed: &[&str]) -> Result<Expr, CompileError> {
    let len = source.chars().count();
    if len > MAX_EXPR_CHARS {
        return Err(CompileError::at(
            source,
            MAX_EXPR_CHARS,
            format!("it is {len} characters long, over the limit of {MAX_EXPR_CHARS}"),
            "split the rule over several matchers or checkpoints",
        ));
    }
    if source.trim().is_empty() {
        return Err(CompileError::at(
            source,
            0,
            "it is empty".into(),
            SYNTAX_HELP,
        ));
    }
    prescan_depth(source)?;
    let parsed = catch_unwind(AssertUnwindSafe(|| ENV.compile(source)));
    let program = match parsed {
        Ok(Ok(p)) => p,
        Ok(Err(errors)) => {
            let first = errors.errors.first();
            let (line, col) = first.map_or((0, 0), |e| (e.pos.0, e.pos.1));
            let msg = first.map_or_else(|| "syntax error".to_owned(), |e| e.msg.clone());
            return Err(CompileError {
                message: format!("syntax error: {msg}"),
                help: SYNTAX_HELP.to_owned(),
                line: usize::try_from(line).unwrap_or(0),
                column: usize::try_from(col).map_or(0, |c| c + 1),
            });
        }
        Err(_) => {
            return Err(CompileError::at(
                source,
                0,
                "the CEL parser failed on it".into(),
                SYNTAX_HELP,
            ));
        }
    };
    let mut walk = Walk {
        source,
        program: &program,
        bound: Vec::new(),
        vars: BTreeSet::new(),
        nodes: 0,
        comprehensions: Vec::new(),
        inside: 0,
        error: None,
        arg_paths: BTreeSet::new(),
        arg_comparisons: BTreeSet::new(),
        idents: BTreeMap::new(),
        selects: BTreeMap::new(),
    };
    walk.visit(program.expression(), 1);
    if let Some(e) = walk.error {
        return Err(e);
    }
    if walk.comprehensions.len() > MAX_COMPREHENSIONS {
        return Err(CompileError::at(
            source,
            0,
            format!(
                "it has {} comprehensions (`all`, `exists`, `map`, `filter`…), over the limit of {MAX_COMPREHENSIONS}",
                walk.comprehensions.len()
            ),
            "split the rule over several matchers",
        ));
    }
    let captures = walk
        .selects
        .get("captures")
        .map(|(_, names)| names.clone())
        .unwrap_or_default();
    // The variables read only as `var.NAME`, with their names.
    let fields: BTreeMap<String, BTreeSet<String>> = walk
        .selects
        .into_iter()
        .filter(|(var, (n, _))| walk.idents.get(var) == Some(n))
        .map(|(var, (_, names))| (var, names))
        .collect();
    let whole_captures = walk.vars.contains("captures") && !fields.contains_key("captures");
    let (vars, nodes, comprehensions) = (walk.vars, walk.nodes, walk.comprehensions);
    let (arg_paths, arg_comparisons) = (walk.arg_paths, walk.arg_comparisons);
    if let Some(unknown) = vars.iter().find(|v| !allowed.contains(&v.as_str())) {
        return Err(CompileError::at(
            source,
            source
                .find(unknown.as_str())
                .map_or(0, |b| source[..b].chars().count()),
            format!("unknown variable `{unknown}`"),
            &format!(
                "the variables here are {}",
                allowed
                    .iter()
                    .map(|v| format!("`{v}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    Ok(Expr {
        source: source.to_owned(),
        program,
        vars,
        captures,
        whole_captures,
        fields,
        arg_paths,
        arg_comparisons,
        nodes,
        comprehensions,
    })
}

/// The size of a value for the cost bound: its JSON nodes, plus one per 64
/// bytes of text.
pub fn size_of(v: &Value) -> u64 {
    let mut total = 0u64;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        total += 1;
        match v {
            Value::String(s) => total += (s.len() / 64) as u64,
            Value::Array(a) => stack.extend(a.iter()),
            Value::Object(o) => {
                for (k, x) in o {
                    total += (k.len() / 64) as u64;
                    stack.push(x);
                }
            }
            _ => {}
        }
    }
    total
}

impl Expr {
    /// An upper bound on the steps an evaluation takes with these variable
    /// values: every node may visit every value once, and a comprehension
    /// repeats its body once per element of its range.
    pub fn bound(&self, vars: &BTreeMap<&str, &Value>) -> u64 {
        let sized: BTreeMap<&str, Var<'_>> = vars
            .iter()
            .map(|(k, v)| (*k, Var::sized(v, &UNREAD, size_of(v))))
            .collect();
        self.bound_sized(&sized)
    }

    /// [`Expr::bound`] with each value's [`size_of`] already known.
    fn bound_sized(&self, vars: &BTreeMap<&str, Var<'_>>) -> u64 {
        let size: u64 = vars.values().map(|v| v.size).sum::<u64>().max(1);
        let mut steps = self.nodes.saturating_mul(size);
        for c in &self.comprehensions {
            let len = c
                .range
                .as_ref()
                .and_then(|(root, fields)| {
                    let var = vars.get(root.as_str())?;
                    let (mut v, fields): (&Value, &[String]) =
                        match (var.members, fields.split_first()) {
                            (Some(m), Some((first, rest))) => (m.member(first)?, rest),
                            (Some(m), None) => return Some(m.count() as u64),
                            (None, _) => (var.json, fields),
                        };
                    for f in fields {
                        v = v.get(f)?;
                    }
                    Some(match v {
                        Value::Array(a) => a.len() as u64,
                        Value::Object(o) => o.len() as u64,
                        _ => 1,
                    })
                })
                .unwrap_or(size.saturating_mul(self.nodes));
            steps = steps.saturating_add(len.saturating_mul(c.body_nodes).saturating_mul(size));
        }
        steps
    }

    /// Evaluate with these variables (the ones it reads; a missing one is
    /// an error). `Ok` only for a boolean result.
    /// Only the variables it reads are converted to CEL; the others still
    /// count towards the cost bound.
    pub fn evaluate(&self, vars: &BTreeMap<&str, &Value>) -> Result<bool, String> {
        let converted: Vec<(&str, Option<Box<dyn Val + '_>>)> = vars
            .iter()
            .map(|(k, v)| (*k, self.vars.contains(*k).then(|| to_val(v))))
            .collect();
        let vars: BTreeMap<&str, Var<'_>> = converted
            .iter()
            .map(|(k, c)| {
                let json = vars[k];
                let var = match c {
                    Some(val) => Var::borrowed(json, val.as_ref()),
                    None => Var::borrowed(json, &UNREAD),
                };
                (*k, var)
            })
            .collect();
        self.evaluate_vars(&vars)
    }

    /// [`Expr::evaluate`] on values already converted to CEL (each event's
    /// fields are converted once, on first use, however many expressions
    /// read them): the context resolves the names to them, with no copy.
    pub fn evaluate_vars(&self, vars: &BTreeMap<&str, Var<'_>>) -> Result<bool, String> {
        self.evaluate_vars_with(vars, &[])
    }

    /// [`Expr::evaluate_vars`] with values for qualified names
    /// (`captures.wallet`), which the interpreter looks up before the
    /// variable they start with (`captures`); they count towards the cost
    /// bound through that variable's size.
    pub fn evaluate_vars_with(
        &self,
        vars: &BTreeMap<&str, Var<'_>>,
        qualified: &[(&str, &dyn Val)],
    ) -> Result<bool, String> {
        let bound = self.bound_sized(vars);
        if bound > MAX_EXPR_STEPS {
            return Err(format!(
                "not run: on these values it could take up to {bound} steps, over the cap of {MAX_EXPR_STEPS} (the values it reads are too large for it)"
            ));
        }
        let mut resolver = Resolver(Vec::with_capacity(self.vars.len() + qualified.len()));
        resolver.0.extend_from_slice(qualified);
        for name in &self.vars {
            let Some(v) = vars.get(name.as_str()) else {
                return Err(format!("variable `{name}` has no value here"));
            };
            resolver.0.push((name.as_str(), v.val));
        }
        let mut ctx = Context::with_env(Arc::clone(&ENV));
        ctx.set_variable_resolver(&resolver);
        let out = catch_unwind(AssertUnwindSafe(|| self.program.execute(&ctx)));
        match out {
            Ok(Ok(cel::Value::Bool(b))) => Ok(b),
            Ok(Ok(other)) => Err(format!(
                "it gave {}, not true or false",
                crate::output::truncate_chars(&format!("{other:?}"), 60)
            )),
            Ok(Err(e)) => Err(crate::output::truncate_chars(&e.to_string(), 200)),
            Err(_) => Err("the CEL interpreter failed on it".into()),
        }
    }
}

/// The variables of one evaluation, by name.
struct Resolver<'a>(Vec<(&'a str, &'a dyn Val)>);

impl VariableResolver for Resolver<'_> {
    fn resolve<'b>(&'b self, variable: &str) -> Option<CowVal<'b, 'b>> {
        self.0
            .iter()
            .find(|(name, _)| *name == variable)
            .map(|(_, v)| CowVal::Borrowed(*v))
    }
}

#[cfg(test)]
mod tests;
