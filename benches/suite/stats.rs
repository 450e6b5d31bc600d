//! Small numeric helpers: medians, milliseconds, a process's peak memory, and throughput figures.

use std::time::Duration;

/// The median of some samples (the mean of the middle two for an even count); NaN for none.
pub fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let middle = sorted.len() / 2;
    if sorted.len().is_multiple_of(2) {
        (sorted[middle - 1] + sorted[middle]) / 2.0
    } else {
        sorted[middle]
    }
}

/// A duration in milliseconds.
pub fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// The peak resident set (VmHWM) of a live process, in MB (Linux); `None` once it is gone.
pub fn peak_rss_mb(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let kilobytes: f64 = status
        .lines()
        .find(|line| line.starts_with("VmHWM:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()?;
    Some(kilobytes / 1024.0)
}

/// Calls made by concurrent callers: how many, over how long, and each call's latency.
pub struct Throughput {
    latencies_ms: Vec<f64>,
    elapsed: Duration,
}

impl Throughput {
    pub fn new(latencies_ms: Vec<f64>, elapsed: Duration) -> Self {
        Self {
            latencies_ms,
            elapsed,
        }
    }

    /// Two runs taken as one (calls added, times added).
    pub fn merge(self, other: Throughput) -> Throughput {
        Throughput {
            latencies_ms: [self.latencies_ms, other.latencies_ms].concat(),
            elapsed: self.elapsed + other.elapsed,
        }
    }

    pub fn calls_per_second(&self) -> f64 {
        self.latencies_ms.len() as f64 / self.elapsed.as_secs_f64()
    }

    pub fn median_latency_ms(&self) -> f64 {
        median(&self.latencies_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_of_an_even_count_is_the_mean_of_the_middle_two() {
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert_eq!(median(&[5.0, 1.0, 3.0]), 3.0);
        assert!(median(&[]).is_nan());
    }
}
