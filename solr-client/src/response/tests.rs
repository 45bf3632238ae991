//! Decoding of the typed select sections from both NamedList shapes (flat, as Solr's
//! `json.nl=flat` default writes them, and map, as `json.nl=map` or another format's
//! decoder may produce them), into user types, with unknown sections kept.

use serde::Deserialize;
use serde_json::json;

use super::*;

#[derive(Debug, Clone, PartialEq, Deserialize)]
struct Book {
    id: String,
    price: Option<f64>,
}

fn body(nl: impl Fn(&[(&str, serde_json::Value)]) -> Value) -> Value {
    json!({
        "responseHeader": {"status": 0, "QTime": 2},
        "grouped": {"category": {"matches": 3, "ngroups": 2, "groups": [
            {"groupValue": "a", "doclist": {"numFound": 2, "start": 0, "docs": [{"id": "1", "price": 2.5}]}},
            {"groupValue": null, "doclist": {"numFound": 1, "start": 0, "docs": [{"id": "3"}]}}]}},
        "facet_counts": {
            "facet_queries": nl(&[("price:[0 TO 5]", json!(2))]),
            "facet_fields": {"category": nl(&[("a", json!(2)), ("b", json!(0))])},
            "facet_ranges": {"price": {"counts": nl(&[("0.0", json!(3))]), "gap": 10.0,
                                       "start": 0.0, "end": 10.0, "before": 0}},
            "facet_intervals": {"price": nl(&[("[0,5)", json!(2))])},
            "facet_pivot": {"category,color_s": [{"field": "category", "value": "a", "count": 2,
                "pivot": [{"field": "color_s", "value": "red", "count": 2}]}]},
            "facet_heatmaps": {}
        },
        "highlighting": {"1": {"title": ["<em>x</em>"]}},
        "spellcheck": {"suggestions": nl(&[("wrod", json!({"numFound": 1, "startOffset": 0,
            "endOffset": 4, "origFreq": 0, "suggestion": [{"word": "word", "freq": 3}]}))]),
            "correctlySpelled": false, "collations": nl(&[("collation", json!("word"))])},
        "terms": {"title": nl(&[("solr", json!(3))])},
        "expanded": {"a": {"numFound": 1, "start": 0, "docs": [{"id": "2", "price": 1.0}]}},
        "stats": {"stats_fields": {"price": {"min": 1.0, "max": 2.5, "count": 2, "missing": 1,
            "sum": 3.5, "sumOfSquares": 7.25, "mean": 1.75, "stddev": 1.06, "percentiles": [50.0, 1.75]}}},
        "debug": {"rawquerystring": "*:*"}
    })
}

fn flat(pairs: &[(&str, Value)]) -> Value {
    Value::Array(
        pairs
            .iter()
            .flat_map(|(k, v)| [json!(k), v.clone()])
            .collect(),
    )
}

fn map(pairs: &[(&str, Value)]) -> Value {
    Value::Object(
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
    )
}

#[test]
fn sections_decode_alike_from_flat_and_map_named_lists_into_user_types() {
    let f: SelectResponse<Book> =
        serde_json::from_slice(&serde_json::to_vec(&body(flat)).unwrap()).unwrap();
    let m: SelectResponse<Book> =
        serde_json::from_slice(&serde_json::to_vec(&body(map)).unwrap()).unwrap();
    assert_eq!(f, m);
    // A grouped answer has no response; the grouped documents are Books.
    assert!(f.response.is_none());
    assert_eq!(f.num_found(), 0);
    let g = f.grouped.as_ref().unwrap().get("category").unwrap();
    assert_eq!((g.matches, g.ngroups), (3, Some(2)));
    let groups = g.groups.as_ref().unwrap();
    assert_eq!(
        groups[0].doclist.docs,
        [Book {
            id: "1".into(),
            price: Some(2.5)
        }]
    );
    assert_eq!(groups[1].group_value, crate::response::SolrValue::Null);
    assert_eq!(groups[1].doclist.docs[0].price, None);
    let fc = f.facet_counts.as_ref().unwrap();
    assert_eq!(fc.query("price:[0 TO 5]"), Some(2));
    assert_eq!(fc.field("category").unwrap().get("b"), Some(&0));
    assert_eq!(fc.facet_ranges.get("price").unwrap().before, Some(0));
    assert_eq!(
        fc.facet_pivot.get("category,color_s").unwrap()[0]
            .pivot
            .as_ref()
            .unwrap()[0]
            .count,
        2
    );
    assert!(fc.extra.contains_key("facet_heatmaps"));
    assert_eq!(
        f.highlighting
            .as_ref()
            .unwrap()
            .get("1")
            .unwrap()
            .get("title")
            .unwrap()[0],
        "<em>x</em>"
    );
    let sc = f.spellcheck.as_ref().unwrap();
    assert_eq!(
        sc.suggestions.get("wrod").unwrap().suggestion[0].freq,
        Some(3)
    );
    assert_eq!(
        f.terms.as_ref().unwrap().get("title").unwrap().get("solr"),
        Some(&3)
    );
    assert_eq!(
        f.expanded.as_ref().unwrap().get("a").unwrap().docs[0].id,
        "2"
    );
    let st = f.stats.as_ref().unwrap().stats_fields.get("price").unwrap();
    assert_eq!(
        (st.count, st.sum, st.mean),
        (Some(2), Some(3.5), Some(1.75))
    );
    assert_eq!(st.extra["percentiles"], json!([50.0, 1.75]));
    // Not modelled: kept, never dropped.
    assert_eq!(f.extra["debug"], json!({"rawquerystring": "*:*"}));
    assert_eq!(f.extra.len(), 1);
}

#[test]
fn stats_of_no_values_read_nan_not_an_error() {
    let s: FieldStats = serde_json::from_value(json!({"min": null, "max": null, "count": 0,
        "missing": 4, "sum": 0.0, "sumOfSquares": 0.0, "mean": "NaN", "stddev": 0.0}))
    .unwrap();
    assert!(s.mean.unwrap().is_nan());
    assert_eq!((s.count, s.missing), (Some(0), Some(4)));
}

#[test]
fn hits_decode_into_user_types_with_fl_subsets() {
    let r: SelectResponse<Book> = serde_json::from_str(
        r#"{"response":{"numFound":2,"start":0,"numFoundExact":true,"docs":[{"id":"a"},{"id":"b","price":1.5}]}}"#,
    )
    .unwrap();
    assert_eq!(r.num_found(), 2);
    assert_eq!(r.docs()[0].price, None);
    assert_eq!(r.docs()[1].price, Some(1.5));
    assert_eq!(r.response.as_ref().unwrap().num_found_exact, Some(true));
    let untyped: SelectResponse = serde_json::from_str(
        r#"{"response":{"numFound":2,"start":0,"docs":[{"id":"a"},{"id":"b","price":1.5}]}}"#,
    )
    .unwrap();
    assert_eq!(untyped.docs_as::<Book>().unwrap(), r.into_docs());
}
