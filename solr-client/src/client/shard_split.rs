//! Splitting an update by shard before its body is encoded.
//!
//! The client knows the route ids of an update (the uniqueKey `id` of each document added,
//! or each id deleted) before it encodes the body in any format. It asks its transport
//! ([`Transport::shard_groups`]) how those ids spread over shards, sends one request per
//! shard marked [`RouteKey::Shard`] (a transport with no opinion gets one request marked
//! [`RouteKey::Ids`]), and combines the parts' results into one.

use crate::batch::BatchReport;
use crate::error::{Error, Result};
use crate::response::UpdateResponse;
use crate::transport::{RouteKey, ShardGroup, Transport, WireRequest};

/// One request of a split update.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Part {
    /// Positions of the part's items in the whole update, ascending.
    pub(crate) members: Vec<usize>,
    /// The route key its request carries.
    pub(crate) route: Option<RouteKey>,
}

/// The parts of an update whose items have these route ids: one per shard when the
/// transport groups them, else one with them all.
pub(crate) async fn parts(
    transport: &dyn Transport,
    template: &WireRequest,
    ids: &[String],
) -> Result<Vec<Part>> {
    if ids.is_empty() {
        return Ok(vec![Part {
            members: Vec::new(),
            route: None,
        }]);
    }
    let groups = transport.shard_groups(template, ids).await?;
    Ok(parts_of(groups, ids))
}

/// Turns the transport's grouping into parts; a grouping that does not name every item
/// exactly once (a faulty transport) is ignored, so no item is ever dropped or sent twice.
fn parts_of(groups: Option<Vec<ShardGroup>>, ids: &[String]) -> Vec<Part> {
    let whole = || {
        vec![Part {
            members: (0..ids.len()).collect(),
            route: Some(RouteKey::Ids(ids.to_vec())),
        }]
    };
    let Some(groups) = groups else {
        return whole();
    };
    let mut seen = vec![false; ids.len()];
    for g in &groups {
        if g.members.is_empty() || g.members.windows(2).any(|w| w[0] >= w[1]) {
            return whole();
        }
        for &i in &g.members {
            match seen.get_mut(i) {
                Some(s) if !*s => *s = true,
                _ => return whole(),
            }
        }
    }
    if seen.iter().any(|s| !s) {
        return whole();
    }
    groups
        .into_iter()
        .map(|g| Part {
            members: g.members,
            route: Some(RouteKey::Shard(g.shard)),
        })
        .collect()
}

/// Combines the results of an update's parts, each with the ids of its documents. All
/// acknowledged: one response whose `docs_sent` is the sum, QTime the largest, `rf` the
/// smallest, tolerant errors all of them, and timing that of the slowest part. Any part
/// with documents failed: one [`Error::Update`] whose [`BatchReport`] accounts for every
/// document of the whole update (the documents of acknowledged parts count as
/// acknowledged; a part that failed with another error than `Error::Update` is read by
/// [`BatchReport::lost`]), with the first cause. So an update spanning shards is never one
/// whole-call error while another shard indexed its documents. Any other error (only for
/// parts without documents, e.g. deletes by id): the first one. A single part's result is
/// returned as it is.
pub(crate) fn combine(
    results: Vec<(Vec<String>, Result<UpdateResponse>)>,
) -> Result<UpdateResponse> {
    if results.len() == 1 {
        return results.into_iter().next().map_or_else(
            || Err(Error::invalid_input("an update of no part")),
            |r| r.1,
        );
    }
    let mut merged: Option<UpdateResponse> = None;
    let mut report = BatchReport::default();
    let mut cause = None;
    let mut update_failed = false;
    let mut other = None;
    for (ids, r) in results {
        let (part, c) = match r {
            Ok(r) => {
                report.merge(BatchReport::all_acknowledged(r.docs_sent));
                merged = Some(match merged {
                    None => r,
                    Some(m) => merge(m, r),
                });
                continue;
            }
            Err(Error::Update {
                report: part,
                cause: c,
            }) => (*part, c),
            Err(e) if !ids.is_empty() => (BatchReport::lost(ids, &e), Some(Box::new(e))),
            Err(e) => {
                other.get_or_insert(e);
                continue;
            }
        };
        update_failed = true;
        report.merge(part);
        if cause.is_none() {
            cause = c;
        }
    }
    if let Some(e) = other {
        return Err(e);
    }
    if update_failed {
        // One update call, whatever the number of shard requests it took.
        report.requests = 1;
        return Err(Error::Update {
            report: Box::new(report),
            cause,
        });
    }
    merged.ok_or_else(|| Error::invalid_input("an update of no part"))
}

fn merge(mut a: UpdateResponse, b: UpdateResponse) -> UpdateResponse {
    if a.header.status == 0 {
        a.header.status = b.header.status;
    }
    a.header.qtime = a.header.qtime.max(b.header.qtime);
    a.header.rf = match (a.header.rf, b.header.rf) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    };
    a.header.errors = match (a.header.errors.take(), b.header.errors) {
        (Some(mut x), Some(y)) => {
            x.extend(y);
            Some(x)
        }
        (x, y) => x.or(y),
    };
    a.docs_sent += b.docs_sent;
    if b.timing.total() > a.timing.total() {
        a.timing = b.timing;
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("d{i}")).collect()
    }

    fn group(shard: &str, members: &[usize]) -> ShardGroup {
        ShardGroup {
            shard: shard.into(),
            members: members.to_vec(),
        }
    }

    #[test]
    fn a_grouping_gives_one_part_per_shard_and_no_opinion_one_part() {
        let ids = ids(4);
        let p = parts_of(
            Some(vec![group("shard1", &[0, 3]), group("shard2", &[1, 2])]),
            &ids,
        );
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].members, vec![0, 3]);
        assert_eq!(p[0].route, Some(RouteKey::Shard("shard1".into())));
        assert_eq!(p[1].route, Some(RouteKey::Shard("shard2".into())));
        let p = parts_of(None, &ids);
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].members, vec![0, 1, 2, 3]);
        assert_eq!(p[0].route, Some(RouteKey::Ids(ids.clone())));
    }

    #[test]
    fn a_grouping_that_drops_or_repeats_an_item_is_ignored() {
        let ids = ids(3);
        for bad in [
            vec![group("s1", &[0, 1])],                       // 2 missing
            vec![group("s1", &[0, 1]), group("s2", &[1, 2])], // 1 twice
            vec![group("s1", &[0, 1, 2, 3])],                 // out of range
            vec![group("s1", &[2, 1, 0])],                    // not ascending
            vec![group("s1", &[0, 1, 2]), group("s2", &[])],  // empty group
        ] {
            let p = parts_of(Some(bad.clone()), &ids);
            assert_eq!(p.len(), 1, "{bad:?}");
            assert_eq!(p[0].members, vec![0, 1, 2], "{bad:?}");
        }
    }

    fn ok(n: usize, qtime: u32) -> Result<UpdateResponse> {
        let mut r: UpdateResponse = serde_json::from_str(&format!(
            r#"{{"responseHeader":{{"status":0,"QTime":{qtime},"rf":2}}}}"#
        ))
        .expect("parses");
        r.docs_sent = n;
        Ok(r)
    }

    #[test]
    fn results_combine_into_one_account() {
        let r = combine(vec![(ids(3), ok(3, 5)), (ids(2), ok(2, 9))]).expect("all acknowledged");
        assert_eq!(
            (r.docs_sent, r.header.qtime, r.header.rf),
            (5, Some(9), Some(2))
        );
        let e = combine(vec![
            (ids(3), ok(3, 5)),
            (
                vec!["a".into(), "b".into()],
                Err(Error::Update {
                    report: Box::new(BatchReport::all_failed(
                        vec!["a".into(), "b".into()],
                        "lost",
                    )),
                    cause: Some(Box::new(Error::no_node("x"))),
                }),
            ),
        ])
        .expect_err("one part failed");
        match e {
            Error::Update { report, cause } => {
                assert_eq!(report.sent, 5);
                assert_eq!(report.acknowledged, 3, "the acknowledged part counts");
                assert_eq!(report.failed.len(), 2);
                assert!(report.is_balanced());
                assert!(cause.is_some());
            }
            other => panic!("not an update error: {other:?}"),
        }
    }

    #[test]
    fn a_part_refused_as_a_whole_is_accounted_per_document_beside_the_others() {
        // The stock chain's 409 for one shard's part, while the other shard indexed its two.
        let conflict = Error::Solr {
            node: "http://h/solr".into(),
            status: 409,
            body: crate::types::SolrErrorBody {
                msg: "version conflict for x expected=5 actual=6".into(),
                code: 409,
                metadata: None,
                qtime_ms: None,
            }
            .into(),
        };
        let e = combine(vec![(vec!["x".into()], Err(conflict)), (ids(2), ok(2, 1))])
            .expect_err("one part failed");
        let Error::Update { report, cause } = e else {
            panic!("not an update error: {e:?}")
        };
        assert_eq!(
            (report.sent, report.acknowledged, report.requests),
            (3, 2, 1)
        );
        assert_eq!(report.failed.len(), 1);
        assert_eq!(report.failed[0].id, "x");
        assert!(report.failed[0].is_version_conflict(), "{report:?}");
        assert!(report.is_balanced());
        assert_eq!(cause.and_then(|c| c.status()), Some(409));
        // Parts without documents (deletes by id): the first error as it is.
        let e = combine(vec![
            (Vec::new(), Err(Error::no_node("y"))),
            (Vec::new(), ok(0, 1)),
        ])
        .expect_err("a delete part failed");
        assert!(matches!(e, Error::NoNode(_)), "{e:?}");
    }
}
