//! Exact percentiles of a small sample of times, by nearest rank.

use bench_report::stats::Percentiles;

/// Exact percentiles of `vals` (ms; negative values count as 0) from the sorted sample, by
/// nearest rank: the p-th percentile is the smallest value with at least p% of the sample at
/// or below it. Unlike a histogram, a QTime of 0 stays 0 and 3 stays 3. As in
/// [`bench_report::stats::percentiles`], p90 needs 10 values and p99 100.
pub fn exact_percentiles(vals: impl IntoIterator<Item = f64>) -> Percentiles {
    let mut v: Vec<f64> = vals.into_iter().map(|x| x.max(0.0)).collect();
    if v.is_empty() {
        return Percentiles::default();
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    // Rank ceil(n * pct / 100) in integers, so no float rounding moves it.
    let rank = |pct: usize| v[(n * pct).div_ceil(100).clamp(1, n) - 1];
    Percentiles {
        n: n as u64,
        mean_ms: v.iter().sum::<f64>() / n as f64,
        p50_ms: Some(rank(50)),
        p90_ms: (n >= 10).then(|| rank(90)),
        p99_ms: (n >= 100).then(|| rank(99)),
        max_ms: Some(v[n - 1]),
    }
}
