//! Trace values as CEL variables: [`Var`] (a value with its size for the
//! cost bound), [`Converted`] (converted once per event and kept), and the
//! conversions, whole ([`to_val`]) or only the fields an expression reads
//! ([`project`]).

use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use cel::common::types::{
    CelBool, CelDouble, CelInt, CelList, CelMap, CelMapKey, CelNull, CelString,
};
use cel::common::value::Val;
use serde_json::Value;

use super::size_of;

/// A variable's value for [`super::Expr::evaluate_vars`]: the JSON (for the cost
/// bound), its CEL value and its [`size_of`].
#[derive(Clone, Copy)]
pub struct Var<'a> {
    pub json: &'a Value,
    pub(super) val: &'a dyn Val,
    pub(super) size: u64,
    /// The values of a map variable by name (`captures`), where `json` is
    /// not built: a comprehension's range is looked up here.
    pub(super) members: Option<&'a (dyn Members + 'a)>,
}

/// The named values a map variable is made of (`captures`), for
/// [`Var::with_members`].
pub trait Members {
    fn member(&self, name: &str) -> Option<&Value>;
    fn count(&self) -> usize;
}

impl<V: std::ops::Deref<Target = Value>> Members for BTreeMap<String, V> {
    fn member(&self, name: &str) -> Option<&Value> {
        self.get(name).map(|v| &**v)
    }

    fn count(&self) -> usize {
        self.len()
    }
}

/// The CEL value and size of a JSON value, each computed on first use and
/// kept.
#[derive(Debug, Default)]
pub struct Converted {
    val: OnceCell<Box<dyn Val>>,
    size: OnceCell<u64>,
}

impl Clone for Converted {
    /// A copy converts again on first use (the value it converts may differ).
    fn clone(&self) -> Self {
        Self::default()
    }
}

/// The CEL value of a variable the expression does not read.
pub(super) static UNREAD: CelNull = CelNull;

impl<'a> Var<'a> {
    /// `json` as the CEL value `val` (made from it, e.g. by [`to_val`]).
    pub fn borrowed(json: &'a Value, val: &'a (dyn Val + 'a)) -> Self {
        Self::sized(json, val, size_of(json))
    }

    /// [`Var::borrowed`] with its [`size_of`] (or the size to count it as)
    /// already known.
    pub fn sized(json: &'a Value, val: &'a (dyn Val + 'a), size: u64) -> Self {
        Self {
            json,
            val,
            size,
            members: None,
        }
    }

    /// A map variable whose JSON is not built (`json` is then `null`): a
    /// comprehension over `var.NAME` finds its range in `members`.
    #[must_use]
    pub fn with_members(self, members: &'a (dyn Members + 'a)) -> Self {
        Self {
            members: Some(members),
            ..self
        }
    }
}

impl Converted {
    /// `json` as a variable; `json` must be the same value on every call.
    pub fn var<'a>(&'a self, json: &'a Value) -> Var<'a> {
        let val = self.val.get_or_init(|| to_val_owned(json));
        Var::sized(json, val.as_ref(), self.size(json))
    }

    /// The [`size_of`] of `json`; `json` must be the same value on every call.
    pub fn size(&self, json: &Value) -> u64 {
        *self.size.get_or_init(|| size_of(json))
    }
}

/// JSON → a CEL value borrowing its text from `v`, in one pass: integers
/// are `int` (so `args.n >= 2` compares), other numbers `double`, and no
/// string is copied.
pub fn to_val(v: &Value) -> Box<dyn Val + '_> {
    match v {
        Value::String(s) => Box::new(CelString::from(s.as_str())),
        Value::Array(a) => Box::new(CelList::from(a.iter().map(to_val).collect::<Vec<_>>())),
        Value::Object(o) => Box::new(CelMap::from(
            o.iter()
                .map(|(k, x)| (CelMapKey::String(CelString::from(k.as_str())), to_val(x)))
                .collect::<HashMap<_, _>>(),
        )),
        scalar => scalar_val(scalar),
    }
}

/// The fields `names` of the object `json` as a CEL map, borrowing from it:
/// all an expression that reads `json` only as `var.NAME` can see of it
/// (`has(var.NAME)` included: a field is there when the object has it).
/// `None` when `json` is not an object (converted whole instead, so that
/// `var.NAME` fails as it would).
pub fn project<'a>(json: &'a Value, names: &BTreeSet<String>) -> Option<Box<dyn Val + 'a>> {
    let Value::Object(o) = json else {
        return None;
    };
    Some(Box::new(CelMap::from(
        names
            .iter()
            .filter_map(|n| o.get_key_value(n.as_str()))
            .map(|(k, x)| (CelMapKey::String(CelString::from(k.as_str())), to_val(x)))
            .collect::<HashMap<_, _>>(),
    )))
}

/// [`to_val`] with its own copy of the text, to keep.
pub fn to_val_owned(v: &Value) -> Box<dyn Val> {
    match v {
        Value::String(s) => Box::new(CelString::from(s.clone())),
        Value::Array(a) => Box::new(CelList::from(
            a.iter().map(to_val_owned).collect::<Vec<_>>(),
        )),
        Value::Object(o) => Box::new(CelMap::from(
            o.iter()
                .map(|(k, x)| {
                    (
                        CelMapKey::String(CelString::from(k.clone())),
                        to_val_owned(x),
                    )
                })
                .collect::<HashMap<_, _>>(),
        )),
        scalar => scalar_val(scalar),
    }
}

fn scalar_val(v: &Value) -> Box<dyn Val> {
    match v {
        Value::Bool(b) => Box::new(CelBool::from(*b)),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Box::new(CelInt::from(i)),
            (None, Some(f)) => Box::new(CelDouble::from(f)),
            (None, None) => Box::new(CelNull),
        },
        // Text and containers are converted by the callers.
        _ => Box::new(CelNull),
    }
}
