//! Reading `wt=xml` responses into the value `wt=json` gives (the table in [`super`]).

use quick_xml::events::Event;
use quick_xml::Reader;
use serde_json::{Map, Value};

use crate::codec::values::{float32, float64};

/// Deepest element nesting accepted.
const MAX_DEPTH: usize = 512;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Response,
    Lst,
    Arr,
    Doc,
    Result,
    Str,
    Int,
    Float,
    Double,
    Bool,
    Null,
}

struct Frame {
    kind: Kind,
    name: Option<String>,
    obj: Map<String, Value>,
    arr: Vec<Value>,
    children: Vec<Value>,
    text: String,
}

fn kind_of(tag: &[u8]) -> Option<Kind> {
    Some(match tag {
        b"response" => Kind::Response,
        b"lst" => Kind::Lst,
        b"arr" => Kind::Arr,
        b"doc" => Kind::Doc,
        b"result" => Kind::Result,
        b"str" | b"date" => Kind::Str,
        b"int" | b"long" | b"short" | b"byte" => Kind::Int,
        b"float" => Kind::Float,
        b"double" => Kind::Double,
        b"bool" => Kind::Bool,
        b"null" => Kind::Null,
        _ => return None,
    })
}

/// Decodes an XML response body. Never panics.
pub fn decode(body: &[u8]) -> Result<Value, String> {
    let mut reader = Reader::from_reader(body);
    let mut stack: Vec<Frame> = Vec::new();
    let mut root: Option<Value> = None;
    loop {
        let at = reader.buffer_position();
        let ev = reader
            .read_event()
            .map_err(|e| format!("invalid XML at byte {at}: {e}"))?;
        match ev {
            Event::Start(e) => {
                open(&mut stack, &e, root.is_some())?;
            }
            Event::Empty(e) => {
                open(&mut stack, &e, root.is_some())?;
                close(&mut stack, &mut root)?;
            }
            Event::End(_) => close(&mut stack, &mut root)?,
            Event::Text(t) => {
                let s = t.decode().map_err(|e| format!("bad text: {e}"))?;
                match stack.last_mut() {
                    Some(top) => top.text.push_str(&s),
                    None if s.trim().is_empty() => {}
                    None => return Err(format!("text outside <response>: {:?}", s.trim())),
                }
            }
            Event::CData(t) => {
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&String::from_utf8_lossy(&t));
                }
            }
            Event::GeneralRef(r) => {
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&entity(&r)?);
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if let Some(top) = stack.last() {
        return Err(format!(
            "truncated: the body ends inside <{}>",
            tag_name(top.kind)
        ));
    }
    root.ok_or_else(|| "no <response> element".to_string())
}

/// The text of a character or entity reference (`&#233;`, `&amp;`): XML's five entities
/// and character references; any other is an error.
fn entity(r: &quick_xml::events::BytesRef<'_>) -> Result<String, String> {
    if let Ok(Some(c)) = r.resolve_char_ref() {
        return Ok(c.to_string());
    }
    Ok(match &**r {
        b"amp" => "&",
        b"lt" => "<",
        b"gt" => ">",
        b"quot" => "\"",
        b"apos" => "'",
        other => {
            let name = String::from_utf8_lossy(other);
            return Err(format!("unknown entity &{name};"));
        }
    }
    .to_string())
}

fn tag_name(k: Kind) -> &'static str {
    match k {
        Kind::Response => "response",
        Kind::Lst => "lst",
        Kind::Arr => "arr",
        Kind::Doc => "doc",
        Kind::Result => "result",
        Kind::Str => "str",
        Kind::Int => "int",
        Kind::Float => "float",
        Kind::Double => "double",
        Kind::Bool => "bool",
        Kind::Null => "null",
    }
}

fn open(
    stack: &mut Vec<Frame>,
    e: &quick_xml::events::BytesStart<'_>,
    done: bool,
) -> Result<(), String> {
    let tag = e.name();
    let tag = tag.as_ref();
    let Some(kind) = kind_of(tag) else {
        return Err(format!(
            "<{}> is not an element of Solr's XML response format",
            String::from_utf8_lossy(tag)
        ));
    };
    if done {
        return Err("content after </response>".into());
    }
    check_place(stack, kind)?;
    let mut frame = Frame {
        kind,
        name: None,
        obj: Map::new(),
        arr: Vec::new(),
        children: Vec::new(),
        text: String::new(),
    };
    for a in e.attributes() {
        let a = a.map_err(|e| format!("bad attribute: {e}"))?;
        attribute(&mut frame, &a)?;
    }
    stack.push(frame);
    Ok(())
}

/// Refuses an element of `kind` where it cannot be: `<response>` anywhere but at the top
/// (or anything else there), deeper than [`MAX_DEPTH`], or inside a value element.
fn check_place(stack: &[Frame], kind: Kind) -> Result<(), String> {
    if stack.is_empty() != (kind == Kind::Response) {
        return Err(format!("<{}> where <response> belongs", tag_name(kind)));
    }
    if stack.len() >= MAX_DEPTH {
        return Err(format!("nested deeper than {MAX_DEPTH}"));
    }
    match stack.last() {
        Some(parent)
            if !matches!(
                parent.kind,
                Kind::Response | Kind::Lst | Kind::Arr | Kind::Doc | Kind::Result
            ) =>
        {
            Err(format!(
                "<{}> inside <{}>",
                tag_name(kind),
                tag_name(parent.kind)
            ))
        }
        _ => Ok(()),
    }
}

/// Reads one attribute into `frame`: its name, or one of `<result>`'s counts.
fn attribute(
    frame: &mut Frame,
    a: &quick_xml::events::attributes::Attribute<'_>,
) -> Result<(), String> {
    let v = a
        .normalized_value(quick_xml::XmlVersion::Implicit1_0)
        .map_err(|e| format!("bad attribute value: {e}"))?
        .into_owned();
    let result = frame.kind == Kind::Result;
    match a.key.as_ref() {
        b"name" => frame.name = Some(v),
        b"numFound" | b"start" if result => {
            let n: i64 = v.parse().map_err(|_| format!("bad number {v:?}"))?;
            frame.obj.insert(key_text(a.key.as_ref()), Value::from(n));
        }
        b"maxScore" if result => {
            let f: f32 = v.parse().map_err(|_| format!("bad float {v:?}"))?;
            frame.obj.insert("maxScore".into(), float32(f));
        }
        b"numFoundExact" if result => {
            frame
                .obj
                .insert("numFoundExact".into(), Value::Bool(v == "true"));
        }
        _ => {}
    }
    Ok(())
}

fn key_text(k: &[u8]) -> String {
    String::from_utf8_lossy(k).into_owned()
}

fn close(stack: &mut Vec<Frame>, root: &mut Option<Value>) -> Result<(), String> {
    let Some(f) = stack.pop() else {
        return Err("a closing tag without its opening tag".into());
    };
    let text = f.text.trim();
    let value = match f.kind {
        Kind::Response | Kind::Lst => Value::Object(f.obj),
        Kind::Doc => {
            let mut obj = f.obj;
            if !f.children.is_empty() {
                obj.insert("_childDocuments_".into(), Value::Array(f.children));
            }
            Value::Object(obj)
        }
        Kind::Arr => Value::Array(f.arr),
        Kind::Result => {
            let mut obj = f.obj;
            obj.insert("docs".into(), Value::Array(f.arr));
            Value::Object(obj)
        }
        Kind::Str => Value::String(f.text),
        Kind::Int => Value::from(
            text.parse::<i64>()
                .map_err(|_| format!("bad integer {text:?}"))?,
        ),
        Kind::Float => float_value(text, true)?,
        Kind::Double => float_value(text, false)?,
        Kind::Bool => Value::Bool(text == "true"),
        Kind::Null => Value::Null,
    };
    let Some(parent) = stack.last_mut() else {
        *root = Some(value);
        return Ok(());
    };
    match parent.kind {
        Kind::Arr | Kind::Result => parent.arr.push(value),
        Kind::Doc if f.name.is_none() && f.kind == Kind::Doc => parent.children.push(value),
        _ => {
            let name = f.name.unwrap_or_default();
            parent.obj.insert(name, value);
        }
    }
    Ok(())
}

fn float_value(text: &str, single: bool) -> Result<Value, String> {
    match text {
        "NaN" | "Infinity" | "-Infinity" => return Ok(Value::Null),
        _ => {}
    }
    if single {
        let f: f32 = text.parse().map_err(|_| format!("bad float {text:?}"))?;
        Ok(float32(f))
    } else {
        let f: f64 = text.parse().map_err(|_| format!("bad double {text:?}"))?;
        Ok(float64(f))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn solr_xml_like_json() {
        let body = br#"<?xml version="1.0" encoding="UTF-8"?>
<response>
<lst name="responseHeader"><int name="status">0</int><int name="QTime">4</int><lst name="params"><str name="q">*:*</str></lst></lst>
<result name="response" numFound="2" start="0" maxScore="1.0" numFoundExact="true">
  <doc><str name="id">a&amp;b</str><float name="price">1.1</float><arr name="tags"><str>x</str><str>y</str></arr>
    <date name="ts">2024-01-02T03:04:05Z</date><long name="_version_">1800000000000000000</long>
    <doc><str name="id">child</str></doc>
    <doc name="kid"><str name="id">k</str></doc>
  </doc>
  <doc><str name="id">z&#x2603;</str><bool name="b">true</bool><double name="d">0.1</double><null name="n"/></doc>
</result>
<lst name="facet_counts"><lst name="facet_fields"><lst name="category"><int name="books">3</int></lst></lst></lst>
</response>"#;
        let v = decode(body).expect("decodes");
        assert_eq!(
            v,
            json!({
                "responseHeader": {"status": 0, "QTime": 4, "params": {"q": "*:*"}},
                "response": {"numFound": 2, "start": 0, "maxScore": 1.0, "numFoundExact": true, "docs": [
                    {"id": "a&b", "price": 1.1, "tags": ["x", "y"], "ts": "2024-01-02T03:04:05Z",
                     "_version_": 1800000000000000000i64,
                     "_childDocuments_": [{"id": "child"}], "kid": {"id": "k"}},
                    {"id": "z☃", "b": true, "d": 0.1, "n": null}
                ]},
                "facet_counts": {"facet_fields": {"category": {"books": 3}}}
            })
        );
    }

    #[test]
    fn html_truncated_and_foreign_bodies_are_errors() {
        for bad in [
            &b""[..],
            b"<html><body>502</body></html>",
            b"<response><lst name=\"a\"><int name=\"b\">1</int>",
            b"<response><int name=\"b\">x</int></response>",
            b"<response><str name=\"a\"><lst/></str></response>",
            b"<response></response><response></response>",
            b"<response></lst>",
            b"\xff\xfe<response/>",
        ] {
            assert!(decode(bad).is_err(), "{:?}", String::from_utf8_lossy(bad));
        }
        let deep = format!("<response>{}", "<arr>".repeat(10_000));
        assert!(decode(deep.as_bytes()).is_err());
    }

    /// The javabin and CBOR readers once printed a container key as JSON inside the next
    /// key, so nested keys grew exponentially (see `key_text` there). Here a key is only ever
    /// the `name` attribute's text, never a container: the deepest nesting accepted, with a
    /// long, escaped name at every level, decodes into a value no bigger than its input.
    #[test]
    fn deeply_nested_named_containers_stay_linear() {
        let name = "k&quot;\\{}".repeat(8);
        let depth = MAX_DEPTH - 1;
        let mut body = String::from("<response>");
        for i in 0..depth {
            let tag = if i % 2 == 0 { "lst" } else { "arr" };
            body.push_str(&format!("<{tag} name=\"{name}\">"));
        }
        for i in (0..depth).rev() {
            body.push_str(if i % 2 == 0 { "</lst>" } else { "</arr>" });
        }
        body.push_str("</response>");
        let v = decode(body.as_bytes()).expect("the deepest nesting accepted decodes");
        let out = serde_json::to_string(&v).expect("prints");
        assert!(
            out.len() <= body.len(),
            "{} bytes of JSON from {} bytes of XML",
            out.len(),
            body.len()
        );
        // Each named level keeps its name once, unescaped.
        let mut at = &v;
        let mut levels = 0;
        while let Some(inner) = at
            .as_object()
            .and_then(|o| o.get(&name.replace("&quot;", "\"")))
        {
            levels += 1;
            at = match inner {
                Value::Array(a) => match a.first() {
                    Some(x) => x,
                    None => break,
                },
                x => x,
            };
        }
        assert!(levels >= depth / 2, "{levels} levels: {out:.200}");
        // One more level is refused, not decoded.
        let deeper = format!("<response>{}", "<lst name=\"a\">".repeat(MAX_DEPTH));
        assert!(decode(deeper.as_bytes())
            .unwrap_err()
            .contains("nested deeper"));
    }
}
