//! Distributions (HdrHistogram) and the rule for which percentiles a sample supports; the
//! one median and the one exact (nearest-rank) percentile routine of the workspace.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Percentiles of one distribution, in milliseconds. A percentile is None when the sample is
/// too small to support it (p90 needs 10 values, p99 100, p99.9 1000), as rally does.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Percentiles {
    /// Sample size.
    pub n: u64,
    /// Mean.
    pub mean_ms: f64,
    /// Median.
    pub p50_ms: Option<f64>,
    /// 90th percentile.
    pub p90_ms: Option<f64>,
    /// 99th percentile.
    pub p99_ms: Option<f64>,
    /// Maximum.
    pub max_ms: Option<f64>,
}

/// Builds [`Percentiles`] from durations (microsecond resolution, up to 1 hour).
pub fn percentiles(values: impl IntoIterator<Item = Duration>) -> Percentiles {
    let mut h =
        Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).expect("valid histogram bounds");
    for v in values {
        let us = (v.as_micros() as u64).clamp(1, 3_600_000_000);
        let _ = h.record(us);
    }
    let n = h.len();
    if n == 0 {
        return Percentiles::default();
    }
    let ms = |us: u64| us as f64 / 1000.0;
    Percentiles {
        n,
        mean_ms: h.mean() / 1000.0,
        p50_ms: Some(ms(h.value_at_quantile(0.5))),
        p90_ms: (n >= 10).then(|| ms(h.value_at_quantile(0.9))),
        p99_ms: (n >= 100).then(|| ms(h.value_at_quantile(0.99))),
        max_ms: Some(ms(h.max())),
    }
}

/// The latency curve: `(percentile, ms)` at 50, 75, 90, 95, 99, 99.9 where the sample
/// supports it (a percentile p needs at least 1 / (1 - p) values).
pub fn curve(values: impl IntoIterator<Item = Duration>) -> Vec<(f64, f64)> {
    let mut h =
        Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).expect("valid histogram bounds");
    for v in values {
        let _ = h.record((v.as_micros() as u64).clamp(1, 3_600_000_000));
    }
    let n = h.len() as f64;
    [50.0, 75.0, 90.0, 95.0, 99.0, 99.9]
        .into_iter()
        .filter(|p| n > 0.0 && n >= 1.0 / (1.0 - p / 100.0))
        .map(|p| (p, h.value_at_quantile(p / 100.0) as f64 / 1000.0))
        .collect()
}

/// The median of `values`: the middle value, or the mean of the two middle ones for an even
/// count; non-finite values are ignored; None when none is left.
pub fn median(values: impl IntoIterator<Item = f64>) -> Option<f64> {
    let mut v: Vec<f64> = values.into_iter().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// The median of durations (see [`median`]); None for an empty list.
pub fn median_duration(values: impl IntoIterator<Item = Duration>) -> Option<Duration> {
    median(values.into_iter().map(|d| d.as_secs_f64())).map(Duration::from_secs_f64)
}

/// The `pct`-th percentile of an ascending, non-empty slice by nearest rank: the smallest
/// value with at least `pct`% of the values at or below it (rank ceil(n * pct / 100) in
/// integers, so no float rounding moves it).
pub fn nearest_rank<T: Copy>(sorted: &[T], pct: usize) -> Option<T> {
    let n = sorted.len();
    (n > 0).then(|| sorted[(n * pct).div_ceil(100).clamp(1, n) - 1])
}

/// [`Percentiles`] of exact values in milliseconds (negative ones count as 0) by nearest
/// rank: unlike a histogram, a QTime of 0 stays 0 and 3 stays 3. As in [`percentiles`],
/// p90 needs 10 values and p99 100.
pub fn exact_percentiles(vals: impl IntoIterator<Item = f64>) -> Percentiles {
    let mut v: Vec<f64> = vals.into_iter().map(|x| x.max(0.0)).collect();
    if v.is_empty() {
        return Percentiles::default();
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Percentiles {
        n: n as u64,
        mean_ms: v.iter().sum::<f64>() / n as f64,
        p50_ms: nearest_rank(&v, 50),
        p90_ms: (n >= 10).then(|| nearest_rank(&v, 90)).flatten(),
        p99_ms: (n >= 100).then(|| nearest_rank(&v, 99)).flatten(),
        max_ms: Some(v[n - 1]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_samples_hide_tail_percentiles() {
        let p = percentiles((1..=5).map(Duration::from_millis));
        assert_eq!(p.n, 5);
        assert!(p.p90_ms.is_none() && p.p99_ms.is_none());
        let p50 = p.p50_ms.expect("p50");
        assert!((2.9..=3.1).contains(&p50), "{p50}");
        let p = percentiles((1..=100).map(Duration::from_millis));
        assert!(p.p99_ms.is_some());
    }

    #[test]
    fn median_averages_the_middle_pair_and_skips_nan() {
        assert_eq!(median([3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median([4.0, 1.0, f64::NAN, 2.0, 3.0]), Some(2.5));
        assert_eq!(median([]), None);
        let d = median_duration([5, 1, 3].map(Duration::from_millis)).unwrap();
        assert_eq!(d, Duration::from_millis(3));
    }

    #[test]
    fn exact_percentiles_keep_small_integers() {
        let p = exact_percentiles((0..10).map(f64::from));
        assert_eq!(
            (p.n, p.p50_ms, p.p90_ms, p.p99_ms),
            (10, Some(4.0), Some(8.0), None)
        );
        assert_eq!(nearest_rank(&[7u64], 99), Some(7));
        assert_eq!(nearest_rank::<u64>(&[], 50), None);
    }
}
