//! Response formats against real Solr: the same request fetched as `wt=json` and as
//! `wt=javabin`, `xml` and `cbor` decodes to equal values (a corpus covering dates, floats,
//! multi-valued and nested documents, facets, highlighting, JSON facets and stats), and the
//! client reads QTime and documents in every format.
//!
//! Normalised before comparing, and only these documented differences:
//! - `responseHeader.QTime` (a measurement of each request) and `responseHeader.params.wt`
//!   (the format asked for) are removed;
//! - XML writes NamedLists and SimpleOrderedMaps both as `<lst>`, so where the XML value
//!   has an object and JSON a flat `[name, value, ...]` array, the JSON array is read as
//!   that object (see `solr_client::codec::xml`).

use http::Method;
use serde_json::{json, Map, Value};
use solr_client::{Commit, ResponseFormat, Select, SolrClient, TransportKind};

use crate::support::{self, client, tag};

fn corpus(t: &str) -> Vec<Value> {
    (0..6)
        .map(|i| {
            json!({
                "id": format!("{t}-{i}"),
                "tag_s": t,
                "title": format!("solr formats book {i}"),
                "body": format!("the quick brown fox {i} jumps over javabin"),
                "category": (["books", "music", "film"][i % 3]),
                "price": 1.1 + i as f64 * 2.25,
                "popularity": i * 7,
                "ts": format!("2024-0{}-0{}T03:04:05.{}Z", 1 + i % 9, 1 + i % 9, 100 + i),
                "tags_ss": ["a", "b", format!("x{i}")],
                "flag_b": i % 2 == 0,
                "big_l": 9_000_000_000_000i64 + i as i64,
                "ratio_f": 0.1 * i as f64,
                "kids": [{"id": format!("{t}-{i}-k1"), "tag_s": format!("{t}-kid"), "name_s": "k1"},
                         {"id": format!("{t}-{i}-k2"), "tag_s": format!("{t}-kid"), "name_s": "k2"}],
            })
        })
        .collect()
}

async fn fetch(c: &SolrClient, params: &[(&str, &str)], wt: ResponseFormat) -> Value {
    let mut query: Vec<(String, String)> = params
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    query.push(("wt".into(), wt.as_str().into()));
    let req = c.wire(Method::GET, "select", query, solr_client::RequestKind::Read);
    let resp = c.send_raw(req).await.expect("request");
    assert!(resp.status.is_success(), "{wt}: {}", resp.status);
    let ct = resp
        .headers
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    assert!(wt.accepts_content_type(ct), "{wt}: content type {ct}");
    wt.decode_value(&resp.body)
        .unwrap_or_else(|e| panic!("{wt}: {e}"))
}

fn strip_volatile(v: &mut Value) {
    if let Some(h) = v.get_mut("responseHeader").and_then(Value::as_object_mut) {
        h.remove("QTime");
        if let Some(p) = h.get_mut("params").and_then(Value::as_object_mut) {
            p.remove("wt");
        }
    }
}

/// `json` with each flat NamedList array read as an object where `other` has an object.
fn as_shaped_like(json: &Value, other: &Value) -> Value {
    match (json, other) {
        (Value::Array(a), Value::Object(o)) if a.len() % 2 == 0 => {
            let mut m = Map::new();
            for pair in a.chunks(2) {
                let k = pair[0].as_str().map(str::to_string).unwrap_or_default();
                let shaped = as_shaped_like(&pair[1], o.get(&k).unwrap_or(&Value::Null));
                m.insert(k, shaped);
            }
            Value::Object(m)
        }
        (Value::Array(a), Value::Array(b)) => Value::Array(
            a.iter()
                .enumerate()
                .map(|(i, x)| as_shaped_like(x, b.get(i).unwrap_or(&Value::Null)))
                .collect(),
        ),
        (Value::Object(a), Value::Object(b)) => Value::Object(
            a.iter()
                .map(|(k, x)| {
                    (
                        k.clone(),
                        as_shaped_like(x, b.get(k).unwrap_or(&Value::Null)),
                    )
                })
                .collect(),
        ),
        (x, _) => x.clone(),
    }
}

#[tokio::test]
async fn every_format_decodes_the_corpus_like_json() {
    let _g = support::shared().await;
    let s = support::standalone();
    let url = s.url(None).expect("url");
    let c = client(url, TransportKind::Pooled, false);
    let t = tag("corpus");
    c.add(&corpus(&t)).await.expect("add");
    c.commit(Commit::default()).await.expect("commit");
    let q = format!("tag_s:{t}");
    // A constant score: other tests index into the same core at the same time, and a scored
    // query's score moves with the core's document count between two fetches.
    let scored = format!("tag_s:{t}^=1.5");
    let json_facet = r#"{cats:{type:terms,field:category,facet:{avg:"avg(price)",top:{type:terms,field:tags_ss,limit:2}}},pricey:{type:query,q:"price:[5 TO *]"}}"#;
    let requests: Vec<Vec<(&str, &str)>> = vec![
        vec![
            ("q", &scored),
            ("sort", "id asc"),
            ("fl", "*,score"),
            ("rows", "10"),
        ],
        vec![
            ("q", &q),
            ("sort", "id asc"),
            ("fl", "*,[child]"),
            ("rows", "10"),
        ],
        vec![
            ("q", &q),
            ("rows", "0"),
            ("facet", "true"),
            // mincount 1: at Solr's default 0 a field facet also lists every other term of
            // the shared core at count 0, and other tests add terms (tags_ss: "json", "x1"..)
            // between two fetches of this request.
            ("facet.mincount", "1"),
            ("facet.field", "category"),
            ("facet.field", "tags_ss"),
            ("facet.query", "price:[0 TO 5]"),
            ("facet.range", "popularity"),
            ("facet.range.start", "0"),
            ("facet.range.end", "50"),
            ("facet.range.gap", "10"),
            ("facet.pivot", "category,flag_b"),
        ],
        vec![
            ("q", "body:javabin"),
            ("fq", &q),
            ("sort", "id asc"),
            ("hl", "true"),
            ("hl.fl", "body,title"),
            ("fl", "id"),
        ],
        vec![("q", &q), ("rows", "0"), ("json.facet", json_facet)],
        vec![
            ("q", &q),
            ("rows", "0"),
            ("stats", "true"),
            ("stats.field", "price"),
            ("stats.field", "ts"),
            ("stats.field", "popularity"),
        ],
        vec![
            ("q", &q),
            ("rows", "0"),
            ("echoParams", "all"),
            ("omitHeader", "true"),
        ],
    ];
    for params in &requests {
        let mut json = fetch(&c, params, ResponseFormat::Json).await;
        strip_volatile(&mut json);
        assert!(
            json.get("response").is_some() || json.get("facets").is_some(),
            "{json}"
        );
        for wt in [
            ResponseFormat::Javabin,
            ResponseFormat::Xml,
            ResponseFormat::Cbor,
        ] {
            let mut got = fetch(&c, params, wt).await;
            strip_volatile(&mut got);
            let want = if wt == ResponseFormat::Xml {
                as_shaped_like(&json, &got)
            } else {
                json.clone()
            };
            assert_eq!(got, want, "{wt} differs from json for {params:?}");
        }
    }
    // Something of each kind was really compared.
    let docs = fetch(&c, &requests[1], ResponseFormat::Javabin).await;
    assert_eq!(docs["response"]["numFound"], json!(6));
    assert_eq!(
        docs["response"]["docs"][0]["kids"][1]["name_s"],
        json!("k2")
    );
    assert_eq!(
        docs["response"]["docs"][2]["ts"],
        json!("2024-03-03T03:04:05.102Z")
    );
    assert_eq!(docs["response"]["docs"][1]["price"], json!(3.35));
    let scored = fetch(&c, &requests[0], ResponseFormat::Cbor).await;
    assert_eq!(scored["response"]["docs"][0]["score"], json!(1.5));
}

#[derive(serde::Deserialize, Debug, PartialEq)]
struct Book {
    id: String,
    price: f32,
    ts: String,
    tags_ss: Vec<String>,
    popularity: Option<i64>,
}

#[tokio::test]
async fn the_client_reads_qtime_and_documents_in_every_format() {
    let _g = support::shared().await;
    let s = support::standalone();
    let url = s.url(None).expect("url");
    let c = client(url, TransportKind::Pooled, false);
    let t = tag("rformat");
    c.add(&corpus(&t)).await.expect("add");
    c.commit(Commit::default()).await.expect("commit");
    let sel = Select::new(format!("tag_s:{t}"))
        .sort("id asc")
        .fl("id,price,ts,tags_ss,popularity");
    let base = c.select(&sel).await.expect("json");
    assert_eq!(base.num_found(), 6);
    let want: Vec<Book> = base.docs_as().expect("typed");
    for wt in ResponseFormat::ALL {
        let fc = SolrClient::builder(url)
            .collection("bench")
            .response_format(wt)
            .build()
            .expect("client");
        let r = fc
            .select(&sel)
            .await
            .unwrap_or_else(|e| panic!("{wt}: {e}"));
        assert!(r.header.qtime.is_some(), "{wt}: QTime read");
        assert_eq!(r.timing.qtime_ms, r.header.qtime, "{wt}");
        assert_eq!(r.num_found(), 6, "{wt}");
        assert_eq!(r.docs_as::<Book>().expect("typed"), want, "{wt}");
        // A Solr error in the chosen format is a Solr error, with Solr's message.
        let err = fc
            .select(&Select::new("nosuchfield_zz:1"))
            .await
            .expect_err("undefined field");
        assert_eq!(err.status(), Some(400), "{wt}: {err}");
        assert!(
            matches!(&err, solr_client::Error::Solr { body, .. } if body.msg.contains("nosuchfield_zz")),
            "{wt}: {err:?}"
        );
    }
}

#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct Typed {
    id: String,
    tag_s: String,
    title: String,
    price: f64,
    popularity: i64,
    flag_b: bool,
    tags_ss: Vec<String>,
}

/// Struct documents go out in every update format straight from `T: Serialize` (no JSON
/// value per document), and `select_as::<T>` reads them back the same with `wt=javabin`
/// (decoded straight into `T`), `xml` and `cbor` as with `wt=json`.
#[tokio::test]
async fn struct_documents_round_trip_in_every_update_format_and_read_back_typed_in_every_format() {
    let _g = support::shared().await;
    let s = support::standalone();
    let url = s.url(None).expect("url");
    let t = tag("rtyped");
    let mut sent = Vec::new();
    for (n, f) in solr_client::UpdateFormat::ALL.into_iter().enumerate() {
        let docs: Vec<Typed> = (0..3)
            .map(|i| Typed {
                id: format!("{t}-{n}-{i}"),
                tag_s: t.clone(),
                title: format!("typed <{f}> & \"{i}\" ☃"),
                price: 0.5 + i as f64,
                popularity: (n * 10 + i) as i64,
                flag_b: i % 2 == 0,
                tags_ss: vec![f.to_string(), format!("x{i}")],
            })
            .collect();
        let c = client(url, TransportKind::Pooled, false).with_update_format(f);
        let r = c.add(&docs).await.unwrap_or_else(|e| panic!("{f}: {e}"));
        assert_eq!(r.docs_sent, 3, "{f}");
        sent.extend(docs);
    }
    let c = client(url, TransportKind::Pooled, false);
    c.commit(Commit::default()).await.expect("commit");
    let sel = Select::new(format!("tag_s:{t}"))
        .sort("id asc")
        .rows(20)
        .fl("id,tag_s,title,price,popularity,flag_b,tags_ss");
    for wt in ResponseFormat::ALL {
        let r = c
            .with_response_format(wt)
            .select_as::<Typed>(&sel)
            .await
            .unwrap_or_else(|e| panic!("{wt}: {e}"));
        assert_eq!(r.num_found(), 12, "{wt}");
        assert_eq!(r.docs(), &sent[..], "{wt}");
    }
}
