//! The compile-time checks of an expression: nesting before parsing, then
//! one walk over the parsed tree for depth, free variables, `captures.NAME`
//! references and comprehensions.

use cel::common::ast::{EntryExpr, Expr as Ast};
use cel::{IdedExpr, Program};

use super::{CompileError, Comprehension, MAX_EXPR_DEPTH};
use std::collections::{BTreeMap, BTreeSet};

/// Nesting of brackets and unary operators, before the parser sees the
/// text (its recursion is what a deep expression would exhaust).
pub(super) fn prescan_depth(source: &str) -> Result<(), CompileError> {
    let mut depth = 0usize;
    let mut unary = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in source.chars().enumerate() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if matches!(c, '!' | '-') {
            unary += 1;
        } else if !c.is_whitespace() {
            unary = 0;
        }
        if depth.max(unary) > MAX_EXPR_DEPTH {
            return Err(too_deep(source, i));
        }
    }
    Ok(())
}

fn too_deep(source: &str, at: usize) -> CompileError {
    CompileError::at(
        source,
        at,
        format!("it nests deeper than {MAX_EXPR_DEPTH} levels"),
        "flatten it: `a && b && c` chains and comprehensions read better than nested parentheses",
    )
}

pub(super) struct Walk<'a> {
    pub(super) source: &'a str,
    pub(super) program: &'a Program,
    /// Comprehension variables in scope.
    pub(super) bound: Vec<String>,
    pub(super) vars: BTreeSet<String>,
    pub(super) nodes: u64,
    pub(super) comprehensions: Vec<Comprehension>,
    /// Comprehensions being walked (0 = top level).
    pub(super) inside: usize,
    pub(super) error: Option<CompileError>,
    /// `args.a.b` paths read outside comprehensions' bound names, as JSON Pointers (`/a/b`).
    pub(super) arg_paths: BTreeSet<String>,
    /// `args.a <op> literal` comparisons: the pointer and the literal's JSON type.
    pub(super) arg_comparisons: BTreeSet<(String, &'static str)>,
    /// Per free variable, its occurrences and those that are `var.NAME`
    /// (with the names): more of the first means it is read whole.
    pub(super) idents: BTreeMap<String, usize>,
    pub(super) selects: BTreeMap<String, (usize, BTreeSet<String>)>,
}

impl Walk<'_> {
    fn fail(&mut self, id: u64, message: String, help: &str) {
        if self.error.is_none() {
            let at = self
                .program
                .source_info()
                .offset_for(id)
                .map_or(0, |(start, _)| start as usize);
            self.error = Some(CompileError::at(self.source, at, message, help));
        }
    }

    pub(super) fn visit(&mut self, e: &IdedExpr, depth: usize) {
        if self.error.is_some() {
            return;
        }
        self.nodes += 1;
        if depth > MAX_EXPR_DEPTH {
            let at = self
                .program
                .source_info()
                .offset_for(e.id)
                .map_or(0, |(start, _)| start as usize);
            self.error = Some(too_deep(self.source, at));
            return;
        }
        match &e.expr {
            Ast::Unspecified | Ast::Literal(_) => {}
            Ast::Ident(name) => {
                if !self.bound.iter().any(|b| b == name) {
                    *self.idents.entry(name.clone()).or_default() += 1;
                    self.vars.insert(name.clone());
                }
            }
            Ast::Select(s) => {
                if !s.test
                    && let Some(pointer) = self.arg_pointer(e)
                {
                    self.arg_paths.insert(pointer);
                }
                if let Ast::Ident(root) = &s.operand.expr
                    && !self.bound.iter().any(|b| b == root)
                {
                    let (n, fields) = self.selects.entry(root.clone()).or_default();
                    *n += 1;
                    fields.insert(s.field.clone());
                }
                self.visit(&s.operand, depth + 1);
            }
            Ast::Call(c) => {
                if COMPARISONS.contains(&c.func_name.as_str())
                    && let [a, b] = c.args.as_slice()
                {
                    for (side, other) in [(a, b), (b, a)] {
                        if let (Some(pointer), Ast::Literal(lit)) =
                            (self.arg_pointer(side), &other.expr)
                        {
                            self.arg_comparisons.insert((pointer, literal_type(lit)));
                        }
                    }
                }
                if let Some(t) = &c.target {
                    self.visit(t, depth + 1);
                }
                for a in &c.args {
                    self.visit(a, depth + 1);
                }
            }
            Ast::List(l) => {
                for x in &l.elements {
                    self.visit(x, depth + 1);
                }
            }
            Ast::Map(m) => {
                for entry in &m.entries {
                    if let EntryExpr::MapEntry(me) = &entry.expr {
                        self.visit(&me.key, depth + 1);
                        self.visit(&me.value, depth + 1);
                    }
                }
            }
            Ast::Struct(_) => self.fail(
                e.id,
                "message literals (`Type{…}`) are not supported".into(),
                "use a map literal `{'key': value}`",
            ),
            Ast::Comprehension(c) => {
                if self.inside > 0 {
                    self.fail(
                        e.id,
                        "a comprehension (`all`, `exists`, `map`, `filter`…) inside another one could take quadratic time"
                            .into(),
                        "compare with a captured list instead (`x in captures.ids`), or split the rule over two matchers",
                    );
                    return;
                }
                let range = path(&c.iter_range, &self.bound);
                // The range is evaluated outside the loop.
                self.visit(&c.iter_range, depth + 1);
                self.inside += 1;
                let before = self.nodes;
                self.bound.push(c.iter_var.clone());
                if let Some(v2) = &c.iter_var2 {
                    self.bound.push(v2.clone());
                }
                self.bound.push(c.accu_var.clone());
                for part in [&c.accu_init, &c.loop_cond, &c.loop_step, &c.result] {
                    self.visit(part, depth + 1);
                }
                self.bound
                    .truncate(self.bound.len() - 2 - usize::from(c.iter_var2.is_some()));
                self.inside -= 1;
                self.comprehensions.push(Comprehension {
                    range,
                    body_nodes: self.nodes - before,
                });
            }
        }
    }
}

/// The comparison operators whose literal side is type-checked against the tool's schema.
const COMPARISONS: [&str; 6] = ["_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_"];

/// The JSON type of a literal.
fn literal_type(lit: &cel::common::ast::LiteralValue) -> &'static str {
    use cel::common::ast::LiteralValue as L;
    match lit {
        L::Boolean(_) => "boolean",
        L::Int(_) | L::UInt(_) | L::Double(_) => "number",
        L::String(_) | L::Bytes(_) => "string",
        L::Null => "null",
    }
}

impl Walk<'_> {
    /// `/a/b` when `e` is `args.a.b` on the free variable `args`.
    fn arg_pointer(&self, e: &IdedExpr) -> Option<String> {
        let (root, fields) = path(e, &self.bound)?;
        (root == "args" && !fields.is_empty()).then(|| {
            let mut pointer = String::new();
            for f in &fields {
                pointer.push('/');
                pointer.push_str(&f.replace('~', "~0").replace('/', "~1"));
            }
            pointer
        })
    }
}

/// `var.a.b` as (`var`, [`a`, `b`]) when `e` is a path on a free variable.
fn path(e: &IdedExpr, bound: &[String]) -> Option<(String, Vec<String>)> {
    match &e.expr {
        Ast::Ident(name) if !bound.contains(name) => Some((name.clone(), Vec::new())),
        Ast::Select(s) if !s.test => {
            let (root, mut fields) = path(&s.operand, bound)?;
            fields.push(s.field.clone());
            Some((root, fields))
        }
        _ => None,
    }
}
