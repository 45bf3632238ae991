//! Distributions (HdrHistogram) and the rule for which percentiles a sample supports.

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
}
