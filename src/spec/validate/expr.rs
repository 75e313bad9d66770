//! Compile a `where:` expression and report its errors at their place in
//! `suite.yaml` (line and column inside the expression when the expression
//! is written on one line).

use std::sync::Arc;

use crate::spec::expr::{CompileError, Expr, compile};
use crate::spec::load::LoadedSuite;
use crate::spec::model::SpannedString;

use super::context::{Ctx, loc};

pub(super) fn where_expr(
    cx: &mut Ctx<'_>,
    spec: &SpannedString,
    allowed: &[&str],
    id: &str,
) -> Option<Arc<Expr>> {
    match compile(&spec.value, allowed) {
        Ok(e) => Some(Arc::new(e)),
        Err(e) => {
            let mut origin = LoadedSuite::yaml_origin(loc(spec));
            let placed = place(cx, &mut origin, &spec.value, &e);
            let inside = if placed || e.line == 0 {
                String::new()
            } else {
                format!(" (line {}, column {} of the expression)", e.line, e.column)
            };
            cx.error_at_origin(
                &origin,
                format!("`where` in `{id}` does not compile{inside}: {}", e.message),
                e.help,
            );
            None
        }
    }
}

/// Move `origin` (the scalar's start) to the error's column when the
/// expression sits on that one line of the file as written (plain or
/// quoted, without escapes before the error).
fn place(
    cx: &Ctx<'_>,
    origin: &mut crate::spec::load::Origin,
    expr: &str,
    e: &CompileError,
) -> bool {
    if e.line != 1 || e.column == 0 || expr.contains('\n') {
        return false;
    }
    let source = cx.loaded.source.inner();
    let Some(line) = source.lines().nth(origin.line.saturating_sub(1)) else {
        return false;
    };
    let rest: String = line.chars().skip(origin.column.saturating_sub(1)).collect();
    let skip = usize::from(rest.starts_with(['"', '\'']));
    let written: String = rest.chars().skip(skip).take(expr.chars().count()).collect();
    if written != expr {
        return false;
    }
    origin.column += skip + e.column - 1;
    true
}
