//! The typed search API (the query side of `select`) against the real Solr: for every query
//! component, a small deterministic corpus (its own tag, every query filtered on it), the
//! typed request, and the typed answer compared field by field with what Solr returned in
//! raw JSON for the very same request (`SolrClient::select_request` sent with `send_raw`),
//! plus the exact counts the corpus implies. Standalone, and SolrCloud with 2 shards for
//! facets, JSON facets and grouping.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use solr_client::request::{
    Collapse, DefType, Dismax, Domain, Expand, Facet, FacetSort, Group, Highlight, JsonFacet,
    MoreLikeThis, RangeOther, Spellcheck, StatsField, Suggest, Terms,
};
use solr_client::response::{NamedList, SolrValue};
use solr_client::{Commit, Select, SelectResponse, SolrClient, TransportKind};

use crate::support;

/// A user's document type: `fl` subsets leave the `Option`s empty.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Book {
    id: String,
    category: Option<String>,
    price: Option<f64>,
    title: Option<String>,
    popularity: Option<i64>,
}

const N: usize = 12;

/// Eight letters unique to `tag`: a word no other test indexes.
fn word(tag: &str) -> String {
    let mut h = DefaultHasher::new();
    tag.hash(&mut h);
    let mut x = h.finish();
    (0..8)
        .map(|_| {
            let c = (b'a' + (x % 26) as u8) as char;
            x /= 26;
            c
        })
        .collect()
}

/// The corpus: doc i has category a/b/c by i%3 (doc 11 has none), color by i%4, price
/// 2.5*i, popularity 10*i, a title with the tag's word, and a body of words unique to the
/// tag shared by the even and by the odd documents.
fn corpus(tag: &str) -> Vec<Value> {
    let w = word(tag);
    (0..N)
        .map(|i| {
            let color = ["red", "green", "blue", "black"][i % 4];
            let mut d = json!({
                "id": format!("{tag}-{i}"),
                "tag_s": tag,
                "color_s": color,
                "price": i as f64 * 2.5,
                "popularity": i * 10,
                "title": format!("{w} {} title {i}", if i % 2 == 0 { "solr" } else { "lucene" }),
                "body": if i % 2 == 0 {
                    format!("{w}red {w}green {w}blue {w}red")
                } else {
                    format!("{w}cat {w}dog {w}cat")
                },
                "ts": format!("2024-01-{:02}T00:00:00Z", i + 1),
            });
            if i != 11 {
                d["category"] = json!(["a", "b", "c"][i % 3]);
            }
            d
        })
        .collect()
}

async fn indexed(client: &SolrClient, tag: &str, extra: impl Fn(usize, &mut Value)) {
    let mut docs = corpus(tag);
    for (i, d) in docs.iter_mut().enumerate() {
        extra(i, d);
    }
    client.add(&docs).await.expect("add");
    client.commit(Commit::default()).await.expect("commit");
}

/// A facet or group value that is a text.
fn text(t: &str) -> SolrValue {
    SolrValue::Text(t.into())
}

fn standalone() -> SolrClient {
    support::client(
        support::standalone().url(None).expect("url"),
        TransportKind::Pooled,
        false,
    )
}

fn cloud() -> SolrClient {
    support::client(
        support::cloud2x2().url(Some("node1")).expect("node1"),
        TransportKind::Pooled,
        false,
    )
}

/// What Solr answers to the same request in raw JSON.
async fn raw_json(client: &SolrClient, s: &Select) -> Value {
    let resp = client
        .send_raw(client.select_request(s))
        .await
        .expect("raw request");
    assert!(
        resp.status.is_success(),
        "{}",
        String::from_utf8_lossy(&resp.body)
    );
    serde_json::from_slice(&resp.body).expect("raw JSON")
}

/// A raw NamedList (flat array or object) as (name, value) pairs.
fn raw_pairs(v: &Value) -> Vec<(Option<String>, Value)> {
    match v {
        Value::Array(a) => a
            .chunks(2)
            .map(|c| (c[0].as_str().map(str::to_string), c[1].clone()))
            .collect(),
        Value::Object(m) => m
            .iter()
            .map(|(k, v)| (Some(k.clone()), v.clone()))
            .collect(),
        other => panic!("not a NamedList: {other}"),
    }
}

/// A typed NamedList equals the raw one: same names, same order (for flat lists), and
/// each value equal once re-encoded.
fn assert_nl<V: Serialize>(typed: &NamedList<V>, raw: &Value, what: &str) {
    let mut want = raw_pairs(raw);
    let mut got: Vec<(Option<String>, Value)> = typed
        .iter()
        .map(|(k, v)| {
            (
                k.map(str::to_string),
                serde_json::to_value(v).expect("json"),
            )
        })
        .collect();
    if raw.is_object() {
        want.sort_by(|a, b| a.0.cmp(&b.0));
        got.sort_by(|a, b| a.0.cmp(&b.0));
    }
    assert_eq!(got, want, "{what}");
}

/// A typed NamedList of NamedLists equals the raw one, level by level.
fn assert_nl2<V: Serialize>(typed: &NamedList<NamedList<V>>, raw: &Value, what: &str) {
    // A raw object was read into a sorted map: compare in name order then.
    let mut want = raw_pairs(raw);
    let mut got: Vec<_> = typed.iter().collect();
    if raw.is_object() {
        want.sort_by(|a, b| a.0.cmp(&b.0));
        got.sort_by(|a, b| a.0.cmp(&b.0));
    }
    assert_eq!(
        got.iter()
            .map(|(k, _)| k.map(str::to_string))
            .collect::<Vec<_>>(),
        want.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>(),
        "{what}"
    );
    for ((k, inner), (_, r)) in got.iter().zip(&want) {
        assert_nl(inner, r, &format!("{what} {k:?}"));
    }
}

fn counts(nl: &NamedList<u64>) -> Vec<(Option<&str>, u64)> {
    nl.iter().map(|(k, v)| (k, *v)).collect()
}

fn ids<T: Serialize>(docs: &[T]) -> Vec<String> {
    docs.iter()
        .map(|d| {
            serde_json::to_value(d).expect("json")["id"]
                .as_str()
                .expect("id")
                .to_string()
        })
        .collect()
}

fn raw_ids(list: &Value) -> Vec<String> {
    list["docs"]
        .as_array()
        .expect("docs")
        .iter()
        .map(|d| d["id"].as_str().expect("id").to_string())
        .collect()
}

#[tokio::test]
async fn typed_hits_fl_subsets_and_unmodelled_sections() {
    let _g = support::shared().await;
    let c = standalone();
    let tag = support::tag("typed");
    indexed(&c, &tag, |_, _| {}).await;
    let s = Select::new("*:*")
        .fq(format!("tag_s:{tag}"))
        .fl("id,price")
        .sort("price asc")
        .rows(N as u64)
        .param("debug", "query");
    let typed: SelectResponse<Book> = c.select_as(&s).await.expect("typed select");
    let raw = raw_json(&c, &s).await;
    assert_eq!(typed.num_found(), N as u64);
    assert_eq!(typed.docs().len(), N);
    for (i, (b, r)) in typed
        .docs()
        .iter()
        .zip(raw["response"]["docs"].as_array().expect("docs"))
        .enumerate()
    {
        assert_eq!(b.id, format!("{tag}-{i}"));
        assert_eq!(b.price, r["price"].as_f64());
        assert_eq!(b.price, Some(i as f64 * 2.5));
        // Not in fl: absent, so None.
        assert_eq!((b.title.as_ref(), b.category.as_ref()), (None, None));
    }
    // The untyped form and docs_as agree with the typed one.
    let untyped = c.select(&s).await.expect("select");
    assert_eq!(untyped.docs_as::<Book>().expect("docs_as"), typed.docs());
    // `debug` is not modelled: kept in `extra`, equal to Solr's.
    assert_eq!(typed.extra.get("debug"), Some(&raw["debug"]));
    assert!(typed.facet_counts.is_none() && typed.grouped.is_none());
}

#[tokio::test]
async fn classic_facets_field_query_range_pivot_interval_with_tag_excludes() {
    let _g = support::shared().await;
    let c = standalone();
    let tag = support::tag("facets");
    indexed(&c, &tag, |_, _| {}).await;
    check_classic_facets(&c, &tag).await;
}

async fn check_classic_facets(c: &SolrClient, tag: &str) {
    let s = Select::new("*:*")
        .fq(format!("tag_s:{tag}"))
        .rows(0)
        .facet(Facet::field("category").mincount(1).limit(10).missing(true))
        .facet(
            Facet::field("color_s")
                .prefix("b")
                .sort(FacetSort::Index)
                .offset(1)
                // other tests' b-colours in the shared core would count 0 here
                .mincount(1),
        )
        .facet(Facet::query("price:[0 TO 10]"))
        .facet(Facet::range("price", 0, 30, 10).other(RangeOther::All))
        .facet(Facet::pivot(&["category", "color_s"]))
        .facet(Facet::interval("popularity", &["[0,50)", "[50,*]"]));
    let typed = c.select(&s).await.expect("facets");
    let raw = raw_json(c, &s).await;
    let fc = typed.facet_counts.as_ref().expect("facet_counts");
    let rf = &raw["facet_counts"];
    assert_nl2(&fc.facet_fields, &rf["facet_fields"], "facet_fields");
    assert_nl(&fc.facet_queries, &rf["facet_queries"], "facet_queries");
    assert_nl2(
        &fc.facet_intervals,
        &rf["facet_intervals"],
        "facet_intervals",
    );
    assert_nl(&fc.facet_pivot, &rf["facet_pivot"], "facet_pivot");
    let range = fc.facet_ranges.get("price").expect("range");
    assert_nl(
        &range.counts,
        &rf["facet_ranges"]["price"]["counts"],
        "range counts",
    );
    for (k, v) in [
        ("before", range.before),
        ("after", range.after),
        ("between", range.between),
    ] {
        assert_eq!(v, rf["facet_ranges"]["price"][k].as_u64(), "{k}");
    }
    // The counts the corpus implies.
    assert_eq!(
        counts(fc.field("category").expect("category")),
        [(Some("a"), 4), (Some("b"), 4), (Some("c"), 3), (None, 1)]
    );
    // blue (i%4==2) and black (3): index order, offset 1 leaves black out... index order is
    // black, blue: offset 1 keeps blue.
    assert_eq!(
        counts(fc.field("color_s").expect("color")),
        [(Some("blue"), 3)]
    );
    assert_eq!(fc.query("price:[0 TO 10]"), Some(5));
    assert_eq!(
        counts(&range.counts),
        [(Some("0.0"), 4), (Some("10.0"), 4), (Some("20.0"), 4)]
    );
    assert_eq!(
        (range.before, range.after, range.between),
        (Some(0), Some(0), Some(12))
    );
    assert_eq!(
        counts(fc.facet_intervals.get("popularity").expect("interval")),
        [(Some("[0,50)"), 5), (Some("[50,*]"), 7)]
    );
    let pivot = fc.facet_pivot.get("category,color_s").expect("pivot");
    let a = pivot
        .iter()
        .find(|p| p.value.as_str() == Some("a"))
        .expect("a");
    assert_eq!(a.count, 4);
    // a = docs 0,3,6,9: colors red, black, blue, green; but the per-field options of the
    // color_s field facet (f.color_s.facet.prefix=b, offset 1, index order) apply to the
    // pivot's color_s level too: blue alone.
    let level2 = a.pivot.as_ref().expect("level 2");
    assert_eq!(level2.len(), 1);
    assert_eq!(
        (level2[0].value.clone(), level2[0].count),
        (text("blue"), 1)
    );

    // Multi-select: the facet leaves the tagged filter out, the hits keep it.
    let s = Select::new("*:*")
        .fq(format!("tag_s:{tag}"))
        .fq_tagged("cat", "category:a")
        .rows(0)
        // mincount 1: other tests' values in the shared index count 0 here.
        .facet(
            Facet::field("category")
                .exclude("cat")
                .key("all_cats")
                .mincount(1),
        )
        .facet(Facet::field("color_s").mincount(1));
    let typed = c.select(&s).await.expect("excludes");
    let raw = raw_json(c, &s).await;
    let fc = typed.facet_counts.as_ref().expect("facet_counts");
    assert_nl(
        &fc.facet_fields,
        &raw["facet_counts"]["facet_fields"],
        "tagged",
    );
    assert_eq!(typed.num_found(), 4);
    assert_eq!(
        counts(fc.field("all_cats").expect("all_cats")),
        [(Some("a"), 4), (Some("b"), 4), (Some("c"), 3)]
    );
    assert_eq!(
        fc.field("color_s")
            .expect("color")
            .iter()
            .map(|(_, v)| *v)
            .sum::<u64>(),
        4
    );
}

#[tokio::test]
async fn json_facets_terms_range_query_stats_nested_and_domains() {
    let _g = support::shared().await;
    let c = standalone();
    let tag = support::tag("jsonfacets");
    indexed(&c, &tag, |_, _| {}).await;
    check_json_facets(&c, &tag).await;
}

async fn check_json_facets(c: &SolrClient, tag: &str) {
    let s = Select::new("*:*")
        .fq(format!("tag_s:{tag}"))
        .fq_tagged("cat", "category:(a OR b)")
        .rows(0)
        .json_facet(
            "cats",
            JsonFacet::terms("category")
                .limit(10)
                .missing(true)
                .num_buckets(true)
                .all_buckets(true)
                .facet("total", JsonFacet::stat("sum(price)"))
                .facet("avg", JsonFacet::stat("avg(price)"))
                .facet("colors", JsonFacet::terms("color_s").sort("index asc")),
        )
        .json_facet("prices", JsonFacet::range("price", 0, 30, 10).other("all"))
        .json_facet(
            "cheap",
            JsonFacet::query("price:[0 TO 10]")
                .facet("max_pop", JsonFacet::stat("max(popularity)")),
        )
        .json_facet("colors_unique", JsonFacet::stat("unique(color_s)"))
        .json_facet("min_price", JsonFacet::stat("min(price)"))
        .json_facet(
            "all_cats",
            JsonFacet::terms("category").domain(Domain::new().exclude_tags("cat")),
        )
        .json_facet(
            "red_cats",
            JsonFacet::terms("category")
                .domain(Domain::new().exclude_tags("cat").filter("color_s:red")),
        );
    let typed = c.select(&s).await.expect("json facets");
    let raw = raw_json(c, &s).await;
    let root = typed.facets.as_ref().expect("facets");
    // The whole tree, re-encoded, is Solr's.
    assert_eq!(serde_json::to_value(root).expect("json"), raw["facets"]);
    // The counts the corpus implies (docs 0..11 but 11; a and b: 8 docs).
    assert_eq!(root.count, 8);
    let cats = root.buckets("cats").expect("cats");
    assert_eq!(cats.num_buckets, Some(2));
    assert_eq!(cats.all_buckets.as_ref().expect("allBuckets").count, 8);
    assert_eq!(cats.missing.as_ref().expect("missing").count, 0);
    let a = &cats.buckets[0];
    assert_eq!((a.val.clone(), a.count), (Some(text("a")), 4));
    // a = docs 0,3,6,9: prices 0, 7.5, 15, 22.5.
    assert_eq!(a.stat_f64("total"), Some(45.0));
    assert_eq!(a.stat_f64("avg"), Some(11.25));
    let colors: Vec<_> = a
        .buckets("colors")
        .expect("colors")
        .buckets
        .iter()
        .map(|b| b.val.clone())
        .collect();
    assert_eq!(
        colors,
        [
            Some(text("black")),
            Some(text("blue")),
            Some(text("green")),
            Some(text("red"))
        ]
    );
    let prices = root.buckets("prices").expect("prices");
    assert_eq!(
        prices.buckets.iter().map(|b| b.count).collect::<Vec<_>>(),
        [3, 3, 2]
    );
    assert_eq!(prices.between.as_ref().expect("between").count, 8);
    let cheap = root.query("cheap").expect("cheap");
    // a/b docs with price <= 10: 0, 1, 3, 4.
    assert_eq!(cheap.count, 4);
    assert_eq!(cheap.stat_f64("max_pop"), Some(40.0));
    assert_eq!(root.stat_f64("colors_unique"), Some(4.0));
    assert_eq!(root.stat_f64("min_price"), Some(0.0));
    let all: Vec<_> = root
        .buckets("all_cats")
        .expect("all")
        .buckets
        .iter()
        .map(|b| (b.val.clone(), b.count))
        .collect();
    assert_eq!(
        all,
        [
            (Some(text("a")), 4),
            (Some(text("b")), 4),
            (Some(text("c")), 3)
        ]
    );
    // red = i%4==0: docs 0 (a), 4 (b), 8 (c).
    let red: Vec<_> = root
        .buckets("red_cats")
        .expect("red")
        .buckets
        .iter()
        .map(|b| (b.val.clone(), b.count))
        .collect();
    assert_eq!(
        red,
        [
            (Some(text("a")), 1),
            (Some(text("b")), 1),
            (Some(text("c")), 1)
        ]
    );
}

/// Every root document of the core: the block mask of the block-join domains (it must
/// match every parent of the index, not only this test's).
const ROOTS: &str = "*:* -_nest_path_:*";

/// JSON facet domain changes across nested documents: children faceted from their parents
/// (`blockChildren`) and parents from their children (`blockParent`), also as a sub-facet
/// per parent bucket; the typed tree equals Solr's raw JSON and the counts the blocks imply.
#[tokio::test]
async fn json_facets_block_parent_and_block_children_domains() {
    let _g = support::shared().await;
    let c = standalone();
    let tag = support::tag("blockfacets");
    let kid = |p: usize, k: usize, color: &str, size: &str| json!({"id": format!("{tag}-p{p}-k{k}"), "kid_tag_s": tag, "color_s": color, "size_s": size});
    let parents = vec![
        json!({"id": format!("{tag}-p0"), "tag_s": tag, "brand_s": "acme",
               "skus": [kid(0, 0, "red", "S"), kid(0, 1, "blue", "M")]}),
        json!({"id": format!("{tag}-p1"), "tag_s": tag, "brand_s": "bolt",
               "skus": [kid(1, 0, "red", "M"), kid(1, 1, "red", "L")]}),
        json!({"id": format!("{tag}-p2"), "tag_s": tag, "brand_s": "acme",
               "skus": [kid(2, 0, "green", "S")]}),
    ];
    c.add(&parents).await.expect("add blocks");
    c.commit(Commit::default()).await.expect("commit");
    let pairs = |node: &solr_client::response::FacetNode, name: &str| -> Vec<(SolrValue, u64)> {
        node.buckets(name)
            .unwrap_or_else(|| panic!("{name}"))
            .buckets
            .iter()
            .map(|b| (b.val.clone().expect("val"), b.count))
            .collect()
    };

    // Parents -> children: the colors of every SKU of this tag's products.
    let s = Select::new(format!("tag_s:{tag}"))
        .rows(0)
        .json_facet(
            "colors",
            JsonFacet::terms("color_s").domain(Domain::new().block_children(ROOTS)),
        )
        .json_facet(
            "acme_sizes",
            JsonFacet::terms("size_s").sort("index asc").domain(
                // Solr applies `filter` after the join, to the children: a parent's field
                // there matches nothing, so the children of acme products are joined again.
                Domain::new()
                    .block_children(ROOTS)
                    .filter(format!("{{!child of=\"{ROOTS}\"}}brand_s:acme")),
            ),
        )
        .json_facet(
            "parent_field_after_join",
            JsonFacet::terms("size_s")
                .domain(Domain::new().filter("brand_s:acme").block_children(ROOTS)),
        )
        .json_facet(
            "brands",
            JsonFacet::terms("brand_s").sort("index asc").facet(
                "colors",
                JsonFacet::terms("color_s")
                    .sort("index asc")
                    .domain(Domain::new().block_children(ROOTS)),
            ),
        );
    let typed = c.select(&s).await.expect("children from parents");
    let raw = raw_json(&c, &s).await;
    let root = typed.facets.as_ref().expect("facets");
    assert_eq!(serde_json::to_value(root).expect("json"), raw["facets"]);
    assert_eq!(typed.num_found(), 3);
    assert_eq!(
        pairs(root, "colors"),
        [(text("red"), 3), (text("blue"), 1), (text("green"), 1)]
    );
    // acme: p0 (S, M) and p2 (S).
    assert_eq!(pairs(root, "acme_sizes"), [(text("M"), 1), (text("S"), 2)]);
    assert_eq!(pairs(root, "parent_field_after_join"), []);
    let brands = &root.buckets("brands").expect("brands").buckets;
    assert_eq!(
        brands
            .iter()
            .map(|b| (b.val.clone(), b.count))
            .collect::<Vec<_>>(),
        [(Some(text("acme")), 2), (Some(text("bolt")), 1)]
    );
    assert_eq!(
        pairs(&brands[0], "colors"),
        [(text("blue"), 1), (text("green"), 1), (text("red"), 1)]
    );
    assert_eq!(pairs(&brands[1], "colors"), [(text("red"), 2)]);

    // Children -> parents: the brands of the products with a red SKU, each product once.
    let s = Select::new(format!("kid_tag_s:{tag} AND color_s:red"))
        .rows(0)
        .json_facet(
            "brands",
            JsonFacet::terms("brand_s")
                .sort("index asc")
                .domain(Domain::new().block_parent(ROOTS)),
        )
        .json_facet(
            "products",
            JsonFacet::query("*:*")
                .domain(Domain::new().block_parent(ROOTS))
                .facet("brands_n", JsonFacet::stat("unique(brand_s)")),
        );
    let typed = c.select(&s).await.expect("parents from children");
    let raw = raw_json(&c, &s).await;
    let root = typed.facets.as_ref().expect("facets");
    assert_eq!(serde_json::to_value(root).expect("json"), raw["facets"]);
    assert_eq!(typed.num_found(), 3, "three red SKUs");
    assert_eq!(
        pairs(root, "brands"),
        [(text("acme"), 1), (text("bolt"), 1)]
    );
    let products = root.query("products").expect("products");
    assert_eq!(products.count, 2, "p0 and p1, once each");
    assert_eq!(products.stat_f64("brands_n"), Some(2.0));
}

#[tokio::test]
async fn highlighting_unified_with_per_field_options() {
    let _g = support::shared().await;
    let c = standalone();
    let tag = support::tag("hl");
    indexed(&c, &tag, |_, _| {}).await;
    let w = word(&tag);
    let s = Select::new(format!("title:{w} OR body:{w}red"))
        .fq(format!("tag_s:{tag}"))
        .fl("id")
        .rows(N as u64)
        .highlight(
            Highlight::fields(["title", "body"])
                .tags("[", "]")
                .snippets(1)
                .field_snippets("body", 2)
                .field_fragsize("body", 0),
        );
    let typed = c.select_as::<Book>(&s).await.expect("hl");
    let raw = raw_json(&c, &s).await;
    let hl = typed.highlighting.as_ref().expect("highlighting");
    assert_nl2(hl, &raw["highlighting"], "highlighting");
    assert_eq!(hl.len(), N);
    for i in 0..N {
        let doc = hl.get(&format!("{tag}-{i}")).expect("doc");
        let title = doc.get("title").expect("title");
        assert_eq!(title.len(), 1);
        assert!(title[0].starts_with(&format!("[{w}]")), "{title:?}");
        let body = doc.get("body").map(Vec::len).unwrap_or(0);
        assert_eq!(body, if i % 2 == 0 { 1 } else { 0 }, "doc {i}: {doc:?}");
    }
}

#[tokio::test]
async fn grouping_by_field_and_query_into_user_types() {
    let _g = support::shared().await;
    let c = standalone();
    let tag = support::tag("group");
    indexed(&c, &tag, |_, _| {}).await;
    check_grouping(&c, &tag).await;
}

async fn check_grouping(c: &SolrClient, tag: &str) {
    let s = Select::new("*:*")
        .fq(format!("tag_s:{tag}"))
        .fl("id,category,price")
        .sort("price asc")
        .rows(10)
        .group(
            Group::field("category")
                .and_query("price:[0 TO 5]")
                .limit(2)
                .sort("price desc")
                .ngroups(true),
        );
    let typed = c.select_as::<Book>(&s).await.expect("grouped");
    let raw = raw_json(c, &s).await;
    assert!(typed.response.is_none(), "a grouped answer has no response");
    let g = typed.grouped.as_ref().expect("grouped");
    let rg = &raw["grouped"];
    let by_cat = g.get("category").expect("field command");
    assert_eq!(
        by_cat.matches,
        rg["category"]["matches"].as_u64().expect("matches")
    );
    assert_eq!(by_cat.matches, N as u64);
    assert_eq!(by_cat.ngroups, rg["category"]["ngroups"].as_u64());
    let groups = by_cat.groups.as_ref().expect("groups");
    let rgroups = rg["category"]["groups"].as_array().expect("raw groups");
    assert_eq!(groups.len(), rgroups.len());
    // Groups by their cheapest document: null (doc 11 has the highest price, sorted last).
    assert_eq!(groups.len(), 4);
    for (t, r) in groups.iter().zip(rgroups) {
        assert_eq!(
            serde_json::to_value(&t.group_value).expect("json"),
            r["groupValue"]
        );
        assert_eq!(
            t.doclist.num_found,
            r["doclist"]["numFound"].as_u64().expect("numFound")
        );
        assert_eq!(ids(&t.doclist.docs), raw_ids(&r["doclist"]));
        assert!(t.doclist.docs.len() <= 2);
    }
    assert_eq!(groups[0].group_value, text("a"));
    // a: docs 0,3,6,9, by price desc: 9, 6.
    assert_eq!(
        ids(&groups[0].doclist.docs),
        [format!("{tag}-9"), format!("{tag}-6")]
    );
    assert_eq!(groups[0].doclist.docs[0].price, Some(22.5));
    let q = g.get("price:[0 TO 5]").expect("query command");
    let ql = q.doclist.as_ref().expect("doclist");
    assert_eq!(ql.num_found, 3);
    assert_eq!(ids(&ql.docs), raw_ids(&rg["price:[0 TO 5]"]["doclist"]));

    // group.main: the groups' documents as a plain list.
    let s = Select::new("*:*")
        .fq(format!("tag_s:{tag}"))
        .sort("price asc")
        .group(Group::field("category").main(true));
    let typed = c.select_as::<Book>(&s).await.expect("group.main");
    let raw = raw_json(c, &s).await;
    assert!(typed.grouped.is_none());
    assert_eq!(ids(typed.docs()), raw_ids(&raw["response"]));
    assert_eq!(typed.docs().len(), 4);
}

#[tokio::test]
async fn collapse_and_expand_into_user_types() {
    let _g = support::shared().await;
    let c = standalone();
    let tag = support::tag("collapse");
    indexed(&c, &tag, |_, _| {}).await;
    let s = Select::new("*:*")
        .fq(format!("tag_s:{tag}"))
        .sort("price asc")
        .collapse(Collapse::field("category").min("price"))
        .expand(Expand::new().rows(10).sort("price asc"));
    let typed = c.select_as::<Book>(&s).await.expect("collapse");
    let raw = raw_json(&c, &s).await;
    assert_eq!(ids(typed.docs()), raw_ids(&raw["response"]));
    assert_eq!(ids(typed.docs()), [0, 1, 2].map(|i| format!("{tag}-{i}")));
    let ex = typed.expanded.as_ref().expect("expanded");
    assert_eq!(ex.len(), 3);
    for (k, list) in ex.named() {
        let r = &raw["expanded"][k];
        assert_eq!(list.num_found, r["numFound"].as_u64().expect("numFound"));
        assert_eq!(ids(&list.docs), raw_ids(r));
    }
    assert_eq!(
        ids(&ex.get("a").expect("a").docs),
        [3, 6, 9].map(|i| format!("{tag}-{i}"))
    );
    assert_eq!(ex.get("c").expect("c").num_found, 2);
}

#[tokio::test]
async fn stats_component_with_facets() {
    let _g = support::shared().await;
    let c = standalone();
    let tag = support::tag("stats");
    indexed(&c, &tag, |_, _| {}).await;
    let s = Select::new("*:*")
        .fq(format!("tag_s:{tag}"))
        .rows(0)
        .stats(StatsField::new("price").facet("category"))
        .stats(
            StatsField::new("popularity")
                .only(&["min", "max", "count"])
                .key("pop"),
        );
    let typed = c.select(&s).await.expect("stats");
    let raw = raw_json(&c, &s).await;
    let st = &typed.stats.as_ref().expect("stats").stats_fields;
    let price = st.get("price").expect("price");
    let rp = &raw["stats"]["stats_fields"]["price"];
    assert_eq!(
        price.min.as_ref().and_then(SolrValue::as_f64),
        rp["min"].as_f64()
    );
    assert_eq!(
        price.max.as_ref().and_then(SolrValue::as_f64),
        rp["max"].as_f64()
    );
    assert_eq!(price.count, rp["count"].as_u64());
    assert_eq!(price.missing, rp["missing"].as_u64());
    assert_eq!(price.sum, rp["sum"].as_f64());
    assert_eq!(price.sum_of_squares, rp["sumOfSquares"].as_f64());
    assert_eq!(price.mean, rp["mean"].as_f64());
    assert_eq!(price.stddev, rp["stddev"].as_f64());
    assert_eq!(
        (price.count, price.missing, price.sum, price.mean),
        (Some(12), Some(0), Some(165.0), Some(13.75))
    );
    assert_eq!(price.max, Some(SolrValue::Float(27.5)));
    let by_cat = price
        .facets
        .as_ref()
        .expect("stats.facet")
        .get("category")
        .expect("category");
    let ra = &rp["facets"]["category"];
    for (k, fs) in by_cat.named() {
        assert_eq!(fs.sum, ra[k]["sum"].as_f64(), "{k}");
        assert_eq!(fs.count, ra[k]["count"].as_u64(), "{k}");
    }
    assert_eq!(by_cat.get("a").expect("a").sum, Some(45.0));
    let pop = st.get("pop").expect("pop");
    assert_eq!((pop.count, pop.sum, pop.mean), (Some(12), None, None));
    assert_eq!(pop.max.as_ref().and_then(SolrValue::as_f64), Some(110.0));
}

#[tokio::test]
async fn spellcheck_suggests_the_indexed_word() {
    let _g = support::shared().await;
    let c = standalone();
    let tag = support::tag("spell");
    indexed(&c, &tag, |_, _| {}).await;
    let w = word(&tag);
    let mut typo = w.clone().into_bytes();
    typo[4] = if typo[4] == b'z' { b'y' } else { b'z' };
    let typo = String::from_utf8(typo).expect("ascii");
    let s = Select::new(format!("title:{typo}"))
        .fq(format!("tag_s:{tag}"))
        .rows(0)
        .spellcheck(
            Spellcheck::new()
                .q(&typo)
                .count(3)
                .extended_results(true)
                .collate(true),
        );
    let typed = c.select(&s).await.expect("spellcheck");
    let raw = raw_json(&c, &s).await;
    let sc = typed.spellcheck.as_ref().expect("spellcheck");
    assert_nl(
        &sc.suggestions,
        &raw["spellcheck"]["suggestions"],
        "suggestions",
    );
    assert_eq!(
        sc.correctly_spelled,
        raw["spellcheck"]["correctlySpelled"].as_bool()
    );
    assert_eq!(sc.correctly_spelled, Some(false));
    let sug = sc.suggestions.get(&typo).expect("the typo");
    assert_eq!(sug.suggestion[0].word, w);
    assert_eq!(sug.suggestion[0].freq, Some(N as u64));
    assert_eq!((sug.start_offset, sug.end_offset), (0, 8));
    assert_nl(
        sc.collations.as_ref().expect("collations"),
        &raw["spellcheck"]["collations"],
        "collations",
    );
}

#[tokio::test]
async fn suggester_completes_a_prefix() {
    let _g = support::shared().await;
    let c = standalone();
    let tag = support::tag("suggest");
    let w = word(&tag);
    indexed(&c, &tag, |i, d| {
        if i < 3 {
            d["suggest_t"] = json!(format!("{w} {}", ["alpha", "beta", "gamma"][i]));
        }
    })
    .await;
    let build = Suggest::new(&w).count(5).build(true).to_select();
    let typed = c.select(&build).await.expect("suggest build");
    let s = Suggest::new(&w).count(5).to_select();
    let typed_again = c.select(&s).await.expect("suggest");
    let raw = raw_json(&c, &s).await;
    for t in [&typed, &typed_again] {
        let sec = t.suggest.as_ref().expect("suggest");
        assert_nl2(sec, &raw["suggest"], "suggest");
        let r = sec
            .get("default")
            .expect("dictionary")
            .get(&w)
            .expect("query");
        assert_eq!(r.num_found, 3);
        // Weighted by popularity (10*i): gamma (20) first.
        let terms: Vec<&str> = r.suggestions.iter().map(|s| s.term.as_str()).collect();
        assert_eq!(
            terms,
            [
                format!("{w} gamma"),
                format!("{w} beta"),
                format!("{w} alpha")
            ]
        );
        assert_eq!(r.suggestions[0].weight, 20);
        assert!(t.response.is_none());
    }
}

#[tokio::test]
async fn more_like_this_component_into_user_types() {
    let _g = support::shared().await;
    let c = standalone();
    let tag = support::tag("mlt");
    indexed(&c, &tag, |_, _| {}).await;
    let s = Select::new(format!("id:\"{tag}-0\" OR id:\"{tag}-1\""))
        .fl("id,price")
        .more_like_this(
            MoreLikeThis::fields(&["body"])
                .min_tf(1)
                .min_df(1)
                .count(10),
        );
    let typed = c.select_as::<Book>(&s).await.expect("mlt");
    let raw = raw_json(&c, &s).await;
    let mlt = typed.more_like_this.as_ref().expect("moreLikeThis");
    assert_eq!(mlt.len(), 2);
    for (k, list) in mlt.named() {
        let r = raw_pairs(&raw["moreLikeThis"])
            .into_iter()
            .find(|(n, _)| n.as_deref() == Some(k))
            .expect("raw")
            .1;
        assert_eq!(list.num_found, r["numFound"].as_u64().expect("numFound"));
        assert_eq!(ids(&list.docs), raw_ids(&r));
    }
    // Doc 0 is like the 5 other even documents, doc 1 like the 5 other odd ones.
    let even = mlt.get(&format!("{tag}-0")).expect("doc 0");
    assert_eq!(even.num_found, 5);
    let mut got = ids(&even.docs);
    got.sort();
    let mut want: Vec<String> = [2, 4, 6, 8, 10].map(|i| format!("{tag}-{i}")).to_vec();
    want.sort();
    assert_eq!(got, want);
    assert_eq!(mlt.get(&format!("{tag}-1")).expect("doc 1").num_found, 5);
}

#[tokio::test]
async fn terms_component_lists_document_frequencies() {
    let _g = support::shared().await;
    let c = standalone();
    let tag = support::tag("terms");
    indexed(&c, &tag, |_, _| {}).await;
    let w = word(&tag);
    let s = Terms::field("body").prefix(&w).sort_index(true).to_select();
    let typed = c.select(&s).await.expect("terms");
    let raw = raw_json(&c, &s).await;
    let t = typed.terms.as_ref().expect("terms");
    assert_nl2(t, &raw["terms"], "terms");
    assert_eq!(
        counts(t.get("body").expect("body")),
        [
            (Some(format!("{w}blue").as_str()), 6),
            (Some(format!("{w}cat").as_str()), 6),
            (Some(format!("{w}dog").as_str()), 6),
            (Some(format!("{w}green").as_str()), 6),
            (Some(format!("{w}red").as_str()), 6),
        ]
    );
}

#[tokio::test]
async fn def_types_lucene_dismax_edismax() {
    let _g = support::shared().await;
    let c = standalone();
    let tag = support::tag("deftype");
    indexed(&c, &tag, |_, _| {}).await;
    let w = word(&tag);
    let base = || {
        Select::new(format!("{w} solr"))
            .fq(format!("tag_s:{tag}"))
            .fl("id")
            .rows(N as u64)
    };
    let cases = [
        // The standard parser: df=body, so "w" finds nothing, "solr" nothing: 0.
        (base().def_type(DefType::Lucene), 0),
        // dismax over title, both words required: the 6 even documents.
        (
            base().def_type(DefType::Dismax(
                Dismax::new().qf("title body").mm("100%").tie(0.1),
            )),
            6,
        ),
        // edismax, one word enough: all 12; the even ones match both words, and the
        // popularity boost puts the most popular of them (doc 10) first.
        (
            base().def_type(DefType::Edismax(
                Dismax::new()
                    .qf("title^2 body")
                    .pf("title")
                    .mm("1")
                    .boost("sum(popularity,1)"),
            )),
            12,
        ),
        // dismax with a boost query lifting doc 3 to the top.
        (
            base().def_type(DefType::Dismax(
                Dismax::new()
                    .qf("title")
                    .mm("1")
                    .bq(format!("id:\"{tag}-3\"^100")),
            )),
            12,
        ),
    ];
    for (i, (s, want)) in cases.iter().enumerate() {
        let typed = c.select_as::<Book>(s).await.expect("select");
        let raw = raw_json(&c, s).await;
        assert_eq!(typed.num_found(), *want, "case {i}");
        // As sets: the order of case 2 weighs two words' idf against each other, and those
        // move with the shared core (other tests commit titles between the two fetches).
        // The first hit of cases 2 and 3 is asserted below; it holds at any core size.
        let (mut got, mut raw) = (ids(typed.docs()), raw_ids(&raw["response"]));
        got.sort();
        raw.sort();
        assert_eq!(got, raw, "case {i}");
    }
    let edismax = c.select_as::<Book>(&cases[2].0).await.expect("edismax");
    assert_eq!(edismax.docs()[0].id, format!("{tag}-10"));
    let bq = c.select_as::<Book>(&cases[3].0).await.expect("bq");
    assert_eq!(bq.docs()[0].id, format!("{tag}-3"));
}

#[tokio::test]
async fn per_request_collection_override() {
    let _g = support::shared().await;
    let url = support::standalone().url(None).expect("url");
    let c = SolrClient::builder(url)
        .collection("no_such_core")
        .build()
        .expect("client");
    let s = Select::new("*:*").rows(0);
    let err = c.select(&s).await.expect_err("no such core");
    assert_eq!(err.status(), Some(404), "{err}");
    let r = c
        .select(&s.clone().collection("bench"))
        .await
        .expect("override");
    assert!(r.response.is_some());
}

/// Facets, JSON facets and grouping across the 2 shards of the cloud: the distributed
/// answers decode and equal Solr's raw JSON, with the same exact counts as standalone.
#[tokio::test]
async fn cloud_two_shards_facets_json_facets_and_grouping() {
    let _g = support::shared().await;
    // Tests that count the cloud's /update requests take this lock; this one writes there.
    let _one = crate::cloud_routing::LOCK.lock().await;
    let c = cloud();
    // A tag whose ids hash to both shards (2 shards split the compositeId range at its
    // sign bit): 12 ids land on one shard alone once in 2,048 tags.
    let tag = loop {
        let tag = support::tag("cloudsearch");
        let neg = (0..N)
            .filter(|i| solr_client::transport::composite_id_hash(&format!("{tag}-{i}")) < 0)
            .count();
        if neg > 0 && neg < N {
            break tag;
        }
    };
    indexed(&c, &tag, |_, _| {}).await;
    // The documents really are on both shards.
    let per_shard = c
        .select(
            &Select::new("*:*")
                .fq(format!("tag_s:{tag}"))
                .rows(0)
                .param("shards.info", "true"),
        )
        .await
        .expect("shards.info");
    let info = per_shard
        .extra
        .get("shards.info")
        .and_then(Value::as_object)
        .expect("shards.info kept in extra");
    assert_eq!(info.len(), 2, "{info:?}");
    assert!(
        info.values()
            .all(|s| s["numFound"].as_u64().unwrap_or(0) > 0),
        "{info:?}"
    );
    check_classic_facets(&c, &tag).await;
    check_json_facets(&c, &tag).await;
    check_grouping(&c, &tag).await;
}

/// Facet, group and stats values arrive typed from real Solr: counts and int fields as
/// integers, averages as floats, date fields as dates, date math as text.
#[tokio::test]
async fn facet_group_and_stats_values_are_typed() {
    let _g = support::shared().await;
    let c = standalone();
    let tag = support::tag("typed-values");
    indexed(&c, &tag, |_, _| {}).await;
    let s = Select::new("*:*")
        .fq(format!("tag_s:{tag}"))
        .rows(0)
        .stats(StatsField::new("ts"))
        .facet(Facet::range(
            "ts",
            "2024-01-01T00:00:00Z",
            "2024-01-13T00:00:00Z",
            "+4DAYS",
        ))
        .facet(
            Facet::pivot(&["popularity"])
                .limit(1)
                .sort(FacetSort::Index),
        )
        .json_facet("first_ts", JsonFacet::stat("min(ts)"))
        .json_facet("colors", JsonFacet::stat("unique(color_s)"))
        .json_facet("avg_pop", JsonFacet::stat("avg(popularity)"))
        .json_facet(
            "pops",
            JsonFacet::terms("popularity").limit(1).sort("index asc"),
        );
    let r = c.select(&s).await.expect("typed values");
    let date = |t: &str| SolrValue::Date(solr_client::response::SolrDate::parse(t).expect(t));
    let ts = r
        .stats
        .as_ref()
        .expect("stats")
        .stats_fields
        .get("ts")
        .expect("ts")
        .clone();
    assert_eq!(ts.min, Some(date("2024-01-01T00:00:00Z")));
    assert_eq!(ts.max, Some(date("2024-01-12T00:00:00Z")));
    assert_eq!(ts.count, Some(12));
    let ranges = &r.facet_counts.as_ref().expect("facets").facet_ranges;
    let range = ranges.get("ts").expect("ts range");
    assert_eq!(range.start, date("2024-01-01T00:00:00Z"));
    assert_eq!(range.gap, text("+4DAYS"));
    let counts: Vec<u64> = range.counts.iter().map(|(_, n)| *n).collect();
    assert_eq!(counts, [4, 4, 4]);
    let pivot = r
        .facet_counts
        .as_ref()
        .expect("facets")
        .facet_pivot
        .get("popularity");
    assert_eq!(pivot.expect("pivot")[0].value, SolrValue::Int(0));
    let root = r.facets.as_ref().expect("json facets");
    assert_eq!(root.stat("first_ts"), Some(&date("2024-01-01T00:00:00Z")));
    assert_eq!(root.stat("colors"), Some(&SolrValue::Int(4)));
    // popularity 0, 10, ..., 110: the mean is 55.
    assert_eq!(root.stat("avg_pop"), Some(&SolrValue::Float(55.0)));
    assert_eq!(
        root.buckets("pops").expect("pops").buckets[0].val,
        Some(SolrValue::Int(0))
    );
    let g = Select::new("*:*")
        .fq(format!("tag_s:{tag}"))
        .sort("popularity asc")
        .rows(N as u64)
        .group(Group::field("popularity").limit(1));
    let grouped = c.select(&g).await.expect("grouped");
    let by_pop = grouped.grouped.as_ref().expect("grouped").get("popularity");
    let groups = by_pop.expect("popularity").groups.clone().expect("groups");
    assert_eq!(groups.len(), N);
    assert_eq!(groups[1].group_value, SolrValue::Int(10));
}
