//! Compile a tier-2 `sequence`: exactly one form, its options, and captures
//! that have something to compare with.

use std::collections::{BTreeMap, BTreeSet};

use serde_saphyr::Location;

use crate::spec::matcher::Matcher;
use crate::spec::model::{NeverSpec, SequenceSpec, SpannedMatcher};
use crate::spec::suite::{SequenceAssert, Side};

use super::catalog::Catalog;
use super::context::{Ctx, loc};
use super::matcher::matcher;

const FORMS: &str = "forms: `{before: X, then: Y}` (first occurrence), `{each: Y, preceded_by: X}` / `{each: X, followed_by: Y}` (every occurrence), `{never: X}`, `{never: [X, Y]}`, `{eventually: X}`, `{count: {of: X, min, max}}`, `{order: [X, Y]}`; see docs/suites.md";

pub(super) fn sequence_assert(
    cx: &mut Ctx<'_>,
    spec: &SequenceSpec,
    at: Location,
    id: &str,
    catalog: &Catalog,
) -> Option<SequenceAssert> {
    let forms = spec.forms();
    if forms.len() != 1 {
        let found = if forms.is_empty() {
            "none".to_owned()
        } else {
            forms.join(", ")
        };
        cx.error(
            at,
            format!("`sequence` in `{id}` must have exactly one form (found: {found})"),
            FORMS,
        );
        return None;
    }
    if !options_fit(cx, spec, at, id) {
        return None;
    }
    let mut ok = true;
    let matchers_ok = std::cell::Cell::new(true);
    let mut m = |cx: &mut Ctx<'_>, s: &SpannedMatcher| {
        matcher(cx, &s.value, loc(s), id, catalog).unwrap_or_else(|| {
            matchers_ok.set(false);
            Matcher::default()
        })
    };
    let assert = match forms[0] {
        "before/then" => {
            let (Some(before), Some(then)) = (&spec.before, &spec.then) else {
                cx.error(
                    at,
                    format!("`sequence` in `{id}` needs both `before` and `then`"),
                    "write `{before: X, then: Y}`",
                );
                return None;
            };
            SequenceAssert::BeforeThen {
                before: m(cx, before),
                then: m(cx, then),
            }
        }
        "never" => {
            let never = spec.never.as_ref()?;
            match &never.value {
                NeverSpec::One(x) => {
                    let spanned = SpannedMatcher {
                        value: x.as_ref().clone(),
                        referenced: never.referenced,
                        defined: never.defined,
                    };
                    SequenceAssert::Never(m(cx, &spanned))
                }
                NeverSpec::Sequence(items) => {
                    if items.len() < 2 {
                        cx.error(
                            loc(never),
                            format!("`never` in `{id}` lists {} matcher(s); a forbidden sequence needs two or more", items.len()),
                            "write `never: X` for a single forbidden event",
                        );
                        return None;
                    }
                    SequenceAssert::NeverOrder(items.iter().map(|x| m(cx, x)).collect())
                }
            }
        }
        "eventually" => SequenceAssert::Eventually(m(cx, spec.eventually.as_ref()?)),
        "count" => {
            let count = spec.count.as_ref()?;
            if count.min.is_none() && count.max.is_none() {
                cx.error(
                    loc(&count.of),
                    format!("`count` in `{id}` needs `min`, `max` or both"),
                    "e.g. `count: {of: {tool: search}, max: 3}`",
                );
                ok = false;
            }
            if let (Some(min), Some(max)) = (count.min, count.max)
                && min > max
            {
                cx.error(
                    loc(&count.of),
                    format!("`count` in `{id}` has min {min} above max {max}"),
                    "swap them",
                );
                ok = false;
            }
            SequenceAssert::Count {
                of: m(cx, &count.of),
                min: count.min,
                max: count.max,
            }
        }
        "order" => {
            let order = spec.order.as_deref().unwrap_or_default();
            if order.len() < 2 {
                cx.error(
                    at,
                    format!("`order` in `{id}` needs at least two matchers"),
                    "use `eventually` for a single event",
                );
                ok = false;
            }
            SequenceAssert::Order(order.iter().map(|x| m(cx, x)).collect())
        }
        _ => each(cx, spec, at, id, &mut m)?,
    };
    if !ok || !matchers_ok.get() || !captures_compare(cx, spec, at, id) {
        return None;
    }
    Some(assert)
}

/// `each` with exactly one of `preceded_by`/`followed_by`.
fn each(
    cx: &mut Ctx<'_>,
    spec: &SequenceSpec,
    at: Location,
    id: &str,
    m: &mut impl FnMut(&mut Ctx<'_>, &SpannedMatcher) -> Matcher,
) -> Option<SequenceAssert> {
    let Some(each) = &spec.each else {
        cx.error(
            at,
            format!("`preceded_by`/`followed_by` in `{id}` need `each`"),
            "write `{each: Y, preceded_by: X}`: every Y needs an X before it",
        );
        return None;
    };
    let (other, side) = match (&spec.preceded_by, &spec.followed_by) {
        (Some(x), None) => (x, Side::Before(spec.since.unwrap_or_default())),
        (None, Some(y)) => (y, Side::After(spec.until.unwrap_or_default())),
        (Some(_), Some(_)) => {
            cx.error(
                loc(each),
                format!("`each` in `{id}` has both `preceded_by` and `followed_by`"),
                "write two checkpoints, one per side",
            );
            return None;
        }
        (None, None) => {
            cx.error(
                loc(each),
                format!("`each` in `{id}` needs `preceded_by` or `followed_by`"),
                "e.g. `{each: {tool: cancel_order}, preceded_by: {kind: user, content_matches: '(?i)\\byes\\b'}}`",
            );
            return None;
        }
    };
    let other = match &other.value {
        NeverSpec::One(x) => vec![m(
            cx,
            &SpannedMatcher {
                value: x.as_ref().clone(),
                referenced: other.referenced,
                defined: other.defined,
            },
        )],
        NeverSpec::Sequence(items) if items.is_empty() => {
            cx.error(
                loc(other),
                format!("the list of steps in `{id}` is empty"),
                "give one matcher, or a list of matchers that must occur in order",
            );
            return None;
        }
        NeverSpec::Sequence(items) => items.iter().map(|x| m(cx, x)).collect(),
    };
    if let Some(fence) = &spec.none_between
        && super::matcher::has_capture(&fence.value)
    {
        cx.error(
            loc(fence),
            format!("`none_between` in `{id}` cannot capture: it only stops the search"),
            "remove `capture` from `none_between`",
        );
        return None;
    }
    Some(SequenceAssert::Each {
        each: m(cx, each),
        other,
        side,
        within: spec.within,
        none_between: spec.none_between.as_ref().map(|z| m(cx, z)),
    })
}

/// `within`, `since` and `until` belong to the per-occurrence form.
fn options_fit(cx: &mut Ctx<'_>, spec: &SequenceSpec, at: Location, id: &str) -> bool {
    let per_occurrence = spec.each.is_some();
    let mut ok = true;
    let mut misplaced = |cx: &mut Ctx<'_>, key: &str, needs: &str| {
        cx.error(
            at,
            format!("`{key}` in `{id}` only applies to {needs}"),
            "see the per-occurrence forms in docs/suites.md",
        );
        ok = false;
    };
    if spec.within.is_some() && !per_occurrence {
        misplaced(cx, "within", "`each` with `preceded_by` or `followed_by`");
    }
    if spec.none_between.is_some() && !per_occurrence {
        misplaced(
            cx,
            "none_between",
            "`each` with `preceded_by` or `followed_by`",
        );
    }
    if spec.since.is_some() && spec.preceded_by.is_none() {
        misplaced(cx, "since", "`each` with `preceded_by`");
    }
    if spec.until.is_some() && spec.followed_by.is_none() {
        misplaced(cx, "until", "`each` with `followed_by`");
    }
    if spec.within == Some(0) {
        cx.error(
            at,
            format!("`within: 0` in `{id}` leaves no event to look at"),
            "`within: 1` means immediately before (or after)",
        );
        ok = false;
    }
    ok
}

/// Every capture name appears in two matchers or more: a capture compares
/// one event's value with another's.
fn captures_compare(cx: &mut Ctx<'_>, spec: &SequenceSpec, at: Location, id: &str) -> bool {
    let mut uses: BTreeMap<String, (usize, Location)> = BTreeMap::new();
    // Names captured per matcher (sub-matchers included), and names a
    // `where` reads as `captures.NAME`: each counts as one use.
    let mut read: BTreeMap<String, Location> = BTreeMap::new();
    for s in spec.matchers() {
        note(&s.value, loc(s), &mut uses, &mut read);
    }
    for list in [&spec.never, &spec.preceded_by, &spec.followed_by]
        .into_iter()
        .flatten()
    {
        if let NeverSpec::One(x) = &list.value {
            note(x, loc(list), &mut uses, &mut read);
        }
    }
    let captured: BTreeSet<String> = {
        let mut names = BTreeSet::new();
        for s in spec.matchers() {
            walk(&s.value, &mut names);
        }
        for list in [&spec.never, &spec.preceded_by, &spec.followed_by]
            .into_iter()
            .flatten()
        {
            if let NeverSpec::One(x) = &list.value {
                walk(x, &mut names);
            }
        }
        names
    };
    let mut ok = true;
    for (name, at) in &read {
        if !captured.contains(name) {
            cx.error(
                *at,
                format!(
                    "`where` in `{id}` reads `captures.{name}`, which no matcher of `{id}` captures"
                ),
                format!(
                    "add `capture: {{{name}: /args/…}}` to the matcher whose value it compares with"
                ),
            );
            ok = false;
        }
    }
    for (name, (count, where_)) in uses {
        if count < 2 {
            let form = spec.forms().first().copied().unwrap_or("sequence");
            let single = matches!(form, "never" | "eventually" | "count")
                && !matches!(
                    spec.never.as_ref().map(|n| &n.value),
                    Some(NeverSpec::Sequence(_))
                );
            let help = if single {
                format!(
                    "`{form}` has one matcher; captures need a form with two (`before/then`, `each`, `order`, `never: [X, Y]`)"
                )
            } else {
                format!("add `capture: {{{name}: …}}` to the matcher whose value must be equal")
            };
            cx.error(
                if where_.line() == 0 { at } else { where_ },
                format!(
                    "capture `{name}` in `{id}` appears in one matcher only, so it compares nothing"
                ),
                help,
            );
            ok = false;
        }
    }
    ok
}

/// Count the captures of `m` and its sub-matchers, and the `captures.NAME`
/// its `where` reads, as uses.
fn note(
    m: &crate::spec::model::EventMatcher,
    at: Location,
    uses: &mut BTreeMap<String, (usize, Location)>,
    read: &mut BTreeMap<String, Location>,
) {
    for name in m.capture.keys() {
        uses.entry(name.clone()).or_insert((0, at)).0 += 1;
    }
    if let Some(w) = &m.where_
        && let Ok(e) = crate::spec::expr::compile(&w.value, crate::spec::matcher::EVENT_VARS)
    {
        for name in e.captures {
            uses.entry(name.clone()).or_insert((0, at)).0 += 1;
            read.entry(name).or_insert(loc(w));
        }
    }
    for sub in m.any_of.iter().chain(&m.all_of).chain(m.not.as_deref()) {
        note(&sub.value, loc(sub), uses, read);
    }
}

/// The names `m` and its sub-matchers capture.
fn walk(m: &crate::spec::model::EventMatcher, names: &mut BTreeSet<String>) {
    names.extend(m.capture.keys().cloned());
    for sub in m.any_of.iter().chain(&m.all_of).chain(m.not.as_deref()) {
        walk(&sub.value, names);
    }
}
