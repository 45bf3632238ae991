//! Exact text of every builder and the escaping of hostile values.

use super::*;
use crate::Error;

fn s() -> Search {
    search("c")
        .q("*:*")
        .fl(["id", "a_i"])
        .sort([Sort::asc("id")])
}

fn text(f: impl Into<Func>) -> String {
    f.into().build().expect("valid expression").to_string()
}

const S: &str = r#"search(c, q="*:*", fl="id,a_i", sort="id asc")"#;

#[test]
fn search_writes_every_parameter_in_call_order() {
    let e = search("coll-1")
        .q("title:rust")
        .fq("year_i:[2000 TO *]")
        .fl(["id", "year_i"])
        .sort([Sort::desc("year_i"), Sort::asc("id")])
        .qt("/export")
        .rows(10)
        .param("df", "title")
        .build()
        .unwrap();
    assert_eq!(
        e.to_string(),
        r#"search(coll-1, q="title:rust", fq="year_i:[2000 TO *]", fl="id,year_i", sort="year_i desc,id asc", qt="/export", rows=10, df="title")"#
    );
    assert_eq!(e.as_str(), e.to_string());
}

#[test]
fn facet_and_stats_write_buckets_sorts_and_metrics() {
    let f = facet("c", ["a_s", "b_s"])
        .q("*:*")
        .bucket_sorts([BucketSort::desc(Metric::sum("a_i"))])
        .bucket_size_limit(100)
        .metric(Metric::sum("a_i"))
        .metric(Metric::min("a_i"))
        .metric(Metric::max("a_i"))
        .metric(Metric::avg("a_i"))
        .metric(Metric::count());
    assert_eq!(
        text(f),
        r#"facet(c, buckets="a_s,b_s", q="*:*", bucketSorts="sum(a_i) desc", bucketSizeLimit=100, sum(a_i), min(a_i), max(a_i), avg(a_i), count(*))"#
    );
    let st = stats("c").q("a_s:x").fq("b_i:1").metric(Metric::count());
    assert_eq!(text(st), r#"stats(c, q="a_s:x", fq="b_i:1", count(*))"#);
}

#[test]
fn decorators_nest_their_streams() {
    assert_eq!(
        text(rollup(s(), ["a_i"]).metric(Metric::sum("a_i"))),
        format!(r#"rollup({S}, over="a_i", sum(a_i))"#)
    );
    assert_eq!(
        text(top(3, s(), [Sort::desc("a_i")])),
        format!(r#"top(n=3, {S}, sort="a_i desc")"#)
    );
    assert_eq!(
        text(unique(s(), ["a_i"])),
        format!(r#"unique({S}, over="a_i")"#)
    );
    assert_eq!(
        text(merge([s(), s()], [Sort::asc("id")])),
        format!(r#"merge({S}, {S}, on="id asc")"#)
    );
    assert_eq!(
        text(update("dest", 500, s())),
        format!("update(dest, batchSize=500, {S})")
    );
}

#[test]
fn joins_and_select_write_their_fields() {
    assert_eq!(
        text(inner_join(s(), s(), On::field("id"))),
        format!(r#"innerJoin({S}, {S}, on="id")"#)
    );
    assert_eq!(
        text(hash_join(
            s(),
            s(),
            On::pair("id", "ref_s").and(On::field("a_i"))
        )),
        format!(r#"hashJoin({S}, hashed={S}, on="id=ref_s,a_i")"#)
    );
    assert_eq!(
        text(select(
            s(),
            [Selection::field("id"), Selection::rename("a_i", "amount")]
        )),
        format!("select({S}, id, a_i as amount)")
    );
}

/// What Solr 9.10's parser does to a quoted named value (seen with `tuple(v="...")`): the
/// outer quotes off, each run of backslashes before a quote one shorter, each backtick not
/// after a backslash turned into `"`.
fn solr_unquote(quoted: &str) -> String {
    let inner: Vec<char> = quoted[1..quoted.len() - 1].chars().collect();
    let mut out = String::new();
    for (i, &c) in inner.iter().enumerate() {
        let next_is_quote_after_odd_run = c == '\\'
            && inner.get(i + 1) == Some(&'"')
            && inner[..=i].iter().rev().take_while(|c| **c == '\\').count() % 2 == 1;
        let after_backslash = i > 0 && inner[i - 1] == '\\';
        match c {
            _ if next_is_quote_after_odd_run => {}
            '`' if !after_backslash => out.push('"'),
            c => out.push(c),
        }
    }
    out
}

/// Solr's quote scanner: the quoted value ends at the first `"` after an even run of
/// backslashes. Returns that value, outer quotes included.
fn scan_quoted(text: &str) -> &str {
    let mut escaped = false;
    for (i, c) in text.char_indices().skip(1) {
        match c {
            '\\' => escaped = !escaped,
            '"' if !escaped => return &text[..=i],
            _ => escaped = false,
        }
    }
    panic!("unterminated quoted value in {text}")
}

#[test]
fn hostile_query_text_reads_back_exactly() {
    let hostile = [
        r#"a,b"#,
        r#"f(x), g(y"#,
        r#"name:"north, east""#,
        r#"path:C\\dir"#,
        r#"x:\\"y"#,
        r#"esc\`aped backtick"#,
        r#"a\\"b\\\\"#,
        r#"tab\tand \(escaped\) \, comma"#,
        r#"it's (not) "quoted"#,
        "multi\nline",
        r#"q=*:* AND "a=b""#,
    ];
    for value in hostile {
        let e = search("c").q(value).build().unwrap().to_string();
        let rest = e.strip_prefix("search(c, q=").unwrap();
        let quoted = scan_quoted(rest);
        assert_eq!(
            &rest[quoted.len()..],
            ")",
            "value {value:?} leaks out of its quotes"
        );
        assert_eq!(solr_unquote(quoted), value, "written as {quoted}");
    }
}

#[test]
fn a_double_quote_gets_one_backslash_more() {
    assert_eq!(
        text(search("c").q(r#"a"b\\"c"#)),
        r#"search(c, q="a\"b\\\"c")"#
    );
}

fn refused(f: impl Into<Func>) -> String {
    match f.into().build() {
        Err(Error::InvalidInput(m)) => m.into(),
        other => panic!("expected InvalidInput, got {other:?}"),
    }
}

#[test]
fn text_solr_cannot_read_back_is_refused() {
    for (value, why) in [
        ("", "blank"),
        ("   ", "blank"),
        ("a`b", "backtick"),
        (r#"id:a\"b"#, "escaped quote"),
        (r#"x:\\\"y"#, "escaped quote"),
        ("a\r\nb", "carriage return"),
        ("a\n  # b", "'#'"),
        ("a\\", "odd run"),
    ] {
        let m = refused(search("c").q(value));
        assert!(m.contains(why), "{value:?}: {m}");
    }
}

#[test]
fn names_with_structure_characters_are_refused() {
    for bad in ["a,b", "a b", "a(b", "a\"b", "a=b", ""] {
        let m = refused(search(bad).q("*:*"));
        assert!(m.contains("name"), "{bad:?}: {m}");
        refused(s().fl([bad]));
        refused(s().sort([Sort::asc(bad)]));
        refused(stats("c").metric(Metric::sum(bad)));
        refused(inner_join(s(), s(), On::pair("id", bad)));
        refused(select(s(), [Selection::rename("id", bad)]));
    }
    refused(s().param("a b", "x"));
    refused(s().fl(Vec::<String>::new()));
    refused(top(1, s(), []));
}

#[test]
fn an_error_deep_inside_is_found() {
    let m = refused(merge([s(), search("c").q("a`b")], [Sort::asc("id")]));
    assert!(m.contains("backtick"), "{m}");
}
