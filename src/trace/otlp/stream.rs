//! An OTLP/JSON document read span by span: each span is converted as soon
//! as it is parsed, so the typed form of the whole export never exists at
//! once (it was most of the peak memory of a large file, issue 22 item 7).
//!
//! The result is exactly that of parsing the typed [`ExportRequest`] first
//! and calling [`Reader::add`]: spans in the same order, the same
//! resources. Where the document's field order would change that (`spans`
//! before `scope`, `instrumentationLibrarySpans` before `scopeSpans`) the
//! spans of that part wait, typed, until the part ends. Anything this
//! reader does not accept (a duplicate field, a struct written as an
//! array, a wrong type) is an error, and the caller then parses the typed
//! form, which gives the document's own error.

use std::collections::HashSet;
use std::fmt;

use serde::de::{DeserializeSeed, Error as _, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::model::ShortText;

use super::{OtlpSpan, Reader, Resource, Scope, ScopeSpans};

/// Read `bytes` (one export request, or an array of them when `array`)
/// into `reader`.
pub(super) fn read(bytes: &[u8], array: bool, reader: &mut Reader) -> serde_json::Result<()> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    if array {
        List(RequestSeed(reader)).deserialize(&mut de)?;
    } else {
        Request(reader).deserialize(&mut de)?;
    }
    de.end()
}

/// Keys are read as text: the containers here have a few keys each.
type Key<'de> = std::borrow::Cow<'de, str>;

struct RequestSeed<'r>(&'r mut Reader);

impl<'de> Element<'de> for RequestSeed<'_> {
    fn read<A: SeqAccess<'de>>(&mut self, seq: &mut A) -> Result<bool, A::Error> {
        Ok(seq.next_element_seed(Request(&mut *self.0))?.is_some())
    }
}

struct Request<'r>(&'r mut Reader);

impl<'de> DeserializeSeed<'de> for Request<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Request<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("struct ExportRequest")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = false;
        while let Some(key) = map.next_key::<Key<'de>>()? {
            match &*key {
                "resourceSpans" | "resource_spans" => {
                    once(&mut seen, "resourceSpans")?;
                    map.next_value_seed(List(ResourceSpansSeed(&mut *self.0)))?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

fn once<E: serde::de::Error>(seen: &mut bool, field: &'static str) -> Result<(), E> {
    if std::mem::replace(seen, true) {
        Err(E::duplicate_field(field))
    } else {
        Ok(())
    }
}

/// An array whose elements are read by the seed `S`, again and again.
struct List<S>(S);

trait Element<'de> {
    fn read<A: SeqAccess<'de>>(&mut self, seq: &mut A) -> Result<bool, A::Error>;
}

impl<'de, S: Element<'de>> DeserializeSeed<'de> for List<S> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, S: Element<'de>> Visitor<'de> for List<S> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence")
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        while self.0.read(&mut seq)? {}
        Ok(())
    }
}

struct ResourceSpansSeed<'r>(&'r mut Reader);

impl<'de> Element<'de> for ResourceSpansSeed<'_> {
    fn read<A: SeqAccess<'de>>(&mut self, seq: &mut A) -> Result<bool, A::Error> {
        Ok(seq.next_element_seed(OneResource(&mut *self.0))?.is_some())
    }
}

struct OneResource<'r>(&'r mut Reader);

impl<'de> DeserializeSeed<'de> for OneResource<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for OneResource<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("struct ResourceSpans")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let reader = self.0;
        let mut trace_ids = HashSet::new();
        let mut resource: Option<Option<Resource>> = None;
        let (mut scope_spans, mut library_spans) = (false, false);
        // `instrumentationLibrarySpans` are added after `scopeSpans`: read
        // before them, they wait.
        let mut waiting: Vec<ScopeSpans> = Vec::new();
        while let Some(key) = map.next_key::<Key<'de>>()? {
            match &*key {
                "resource" => {
                    if resource.is_some() {
                        return Err(A::Error::duplicate_field("resource"));
                    }
                    resource = Some(map.next_value()?);
                }
                "scopeSpans" | "scope_spans" => {
                    once(&mut scope_spans, "scopeSpans")?;
                    map.next_value_seed(List(ScopeSpansSeed {
                        reader: &mut *reader,
                        trace_ids: &mut trace_ids,
                    }))?;
                }
                "instrumentationLibrarySpans" | "instrumentation_library_spans" => {
                    once(&mut library_spans, "instrumentationLibrarySpans")?;
                    if scope_spans {
                        map.next_value_seed(List(ScopeSpansSeed {
                            reader: &mut *reader,
                            trace_ids: &mut trace_ids,
                        }))?;
                    } else {
                        waiting = map.next_value()?;
                    }
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        for ss in waiting {
            for raw in ss.spans {
                reader.add_span(raw, ss.scope.as_ref(), &mut trace_ids);
            }
        }
        reader.add_resource(resource.flatten(), trace_ids);
        Ok(())
    }
}

struct ScopeSpansSeed<'r> {
    reader: &'r mut Reader,
    trace_ids: &'r mut HashSet<ShortText>,
}

impl<'de> Element<'de> for ScopeSpansSeed<'_> {
    fn read<A: SeqAccess<'de>>(&mut self, seq: &mut A) -> Result<bool, A::Error> {
        let one = OneScope {
            reader: &mut *self.reader,
            trace_ids: &mut *self.trace_ids,
        };
        Ok(seq.next_element_seed(one)?.is_some())
    }
}

struct OneScope<'r> {
    reader: &'r mut Reader,
    trace_ids: &'r mut HashSet<ShortText>,
}

impl<'de> DeserializeSeed<'de> for OneScope<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for OneScope<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("struct ScopeSpans")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut scope: Option<Option<Scope>> = None;
        let mut spans = false;
        // Spans read before their scope wait for it.
        let mut waiting: Vec<OtlpSpan> = Vec::new();
        while let Some(key) = map.next_key::<Key<'de>>()? {
            match &*key {
                "scope" | "instrumentationLibrary" | "instrumentation_library" => {
                    if scope.is_some() {
                        return Err(A::Error::duplicate_field("scope"));
                    }
                    scope = Some(map.next_value()?);
                }
                "spans" => {
                    once(&mut spans, "spans")?;
                    match &scope {
                        Some(known) => map.next_value_seed(List(SpanSeed {
                            reader: &mut *self.reader,
                            scope: known.as_ref(),
                            trace_ids: &mut *self.trace_ids,
                        }))?,
                        None => waiting = map.next_value()?,
                    }
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let scope = scope.flatten();
        for raw in waiting {
            self.reader
                .add_span(raw, scope.as_ref(), &mut *self.trace_ids);
        }
        Ok(())
    }
}

struct SpanSeed<'r> {
    reader: &'r mut Reader,
    scope: Option<&'r Scope>,
    trace_ids: &'r mut HashSet<ShortText>,
}

impl<'de> Element<'de> for SpanSeed<'_> {
    fn read<A: SeqAccess<'de>>(&mut self, seq: &mut A) -> Result<bool, A::Error> {
        let Some(raw) = seq.next_element::<OtlpSpan>()? else {
            return Ok(false);
        };
        self.reader.add_span(raw, self.scope, &mut *self.trace_ids);
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::trace::input::Input;
    use crate::trace::model::Trace;

    /// What the typed parse gives, and what reading span by span gives.
    fn both(text: &str, array: bool) -> (Vec<Trace>, serde_json::Result<Vec<Trace>>) {
        let stem = Input::new(Path::new("t.json"), text.as_bytes()).stem();
        let mut typed = Reader::default();
        if array {
            for r in serde_json::from_str::<Vec<super::super::ExportRequest>>(text).unwrap() {
                typed.add(r);
            }
        } else {
            typed.add(serde_json::from_str(text).unwrap());
        }
        let mut streamed = Reader::default();
        let got = read(text.as_bytes(), array, &mut streamed).map(|()| streamed.finish(&stem));
        (typed.finish(&stem), got)
    }

    fn span(trace: u8, id: u8, name: &str) -> String {
        format!(
            r#"{{"traceId":"{trace:032x}","spanId":"{id:016x}","name":"{name}","attributes":[{{"key":"gen_ai.tool.name","value":{{"stringValue":"{name}"}}}}]}}"#
        )
    }

    #[test]
    fn span_by_span_is_the_typed_result_in_every_field_order() {
        let (a, b, c, d) = (
            span(1, 1, "a"),
            span(1, 2, "b"),
            span(2, 3, "c"),
            span(1, 4, "d"),
        );
        let res = |n: &str| {
            format!(
                r#""resource":{{"attributes":[{{"key":"service.name","value":{{"stringValue":"{n}"}}}}]}}"#
            )
        };
        let documents = [
            // The usual order.
            format!(
                r#"{{"resourceSpans":[{{{},"scopeSpans":[{{"scope":{{"name":"s","version":"1"}},"spans":[{a},{b}]}}]}}]}}"#,
                res("r1")
            ),
            // Spans before their scope, resource last, no scope at all.
            format!(
                r#"{{"resourceSpans":[{{"scopeSpans":[{{"spans":[{a},{c}],"scope":{{"name":"late"}}}},{{"spans":[{b}]}}],{}}}]}}"#,
                res("r1")
            ),
            // Legacy spans before the current ones in one resource; a trace
            // in two resources keeps the first.
            format!(
                r#"{{"resourceSpans":[{{"instrumentationLibrarySpans":[{{"instrumentationLibrary":{{"name":"old"}},"spans":[{d}]}}],"scopeSpans":[{{"scope":null,"spans":[{a}]}}],{}}},{{{},"scope_spans":[{{"spans":[{b},{c}]}}]}}],"other":[1,{{"x":2}}]}}"#,
                res("r1"),
                res("r2")
            ),
            format!(
                r#"{{"resource_spans":[{{"scopeSpans":[],"instrumentation_library_spans":[{{"spans":[{c}]}}]}}]}}"#
            ),
            r#"{"resourceSpans":[]}"#.to_owned(),
            "{}".to_owned(),
        ];
        for doc in &documents {
            let (typed, streamed) = both(doc, false);
            assert!(!typed.is_empty() || doc.len() < 30, "{doc}");
            assert_eq!(streamed.unwrap(), typed, "{doc}");
        }
        let array = format!("[{},{}]", documents[0], documents[2]);
        let (typed, streamed) = both(&array, true);
        assert_eq!(streamed.unwrap(), typed);
    }

    #[test]
    fn what_the_typed_parse_refuses_or_reads_otherwise_is_an_error_here() {
        let a = span(1, 1, "a");
        for doc in [
            r#"{"resourceSpans":[],"resource_spans":[]}"#.to_owned(),
            format!(r#"{{"resourceSpans":[{{"scopeSpans":[{{"spans":[{a}],"spans":[]}}]}}]}}"#),
            r#"{"resourceSpans":[{"scopeSpans":[{"scope":{},"instrumentationLibrary":{}}]}]}"#
                .to_owned(),
            r#"{"resourceSpans":[{"resource":null,"resource":null}]}"#.to_owned(),
            // A struct written as an array (serde's derive accepts it).
            r#"{"resourceSpans":[[null,[]]]}"#.to_owned(),
            r#"{"resourceSpans":null}"#.to_owned(),
            format!(r#"{{"resourceSpans":[{{"scopeSpans":[{{"spans":[{a}]}}]}}]}} x"#),
        ] {
            let mut reader = Reader::default();
            assert!(read(doc.as_bytes(), false, &mut reader).is_err(), "{doc}");
        }
    }
}
