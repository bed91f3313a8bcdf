//! Graph500 run statistics: order statistics of times and edge counts, and
//! TEPS with the harmonic mean and harmonic standard deviation computed the
//! way the reference reports them.

/// Order statistics, mean and sample standard deviation of a series.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Summary {
    pub min: f64,
    pub first_quartile: f64,
    pub median: f64,
    pub third_quartile: f64,
    pub max: f64,
    pub mean: f64,
    /// Sample standard deviation (divides by n - 1); 0 for one value.
    pub stddev: f64,
}

impl Summary {
    /// Summarises `xs`. Quartiles average the two middle candidates, as the
    /// reference does. Panics on an empty series (callers have >= 1 root).
    pub fn of(xs: &[f64]) -> Summary {
        assert!(!xs.is_empty(), "statistics of an empty series");
        let n = xs.len();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = if n > 1 {
            xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64
        } else {
            0.0
        };
        let mut s = xs.to_vec();
        s.sort_by(f64::total_cmp);
        let mid = |a: usize, b: usize| (s[a] + s[b]) * 0.5;
        Summary {
            min: s[0],
            first_quartile: mid((n - 1) / 4, n / 4),
            median: mid((n - 1) / 2, n / 2),
            third_quartile: mid(n - 1 - (n - 1) / 4, n - 1 - n / 4),
            max: s[n - 1],
            mean,
            stddev: var.sqrt(),
        }
    }
}

/// TEPS statistics over several searches.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct TepsSummary {
    pub min: f64,
    pub first_quartile: f64,
    pub median: f64,
    pub third_quartile: f64,
    pub max: f64,
    /// Harmonic mean of the per-search TEPS.
    pub harmonic_mean: f64,
    /// Harmonic standard deviation (Norris 1940, as in the specification).
    pub harmonic_stddev: f64,
}

impl TepsSummary {
    /// From per-search kernel times (seconds) and traversed edge counts.
    /// Works on seconds per edge, so the harmonic mean of TEPS is the
    /// reciprocal of the arithmetic mean of seconds-per-edge.
    pub fn of(times: &[f64], edges: &[f64]) -> TepsSummary {
        assert_eq!(times.len(), edges.len(), "one edge count per time");
        let spe: Vec<f64> = times.iter().zip(edges).map(|(t, e)| t / e).collect();
        let s = Summary::of(&spe);
        let n = spe.len() as f64;
        let harmonic_stddev = if spe.len() > 1 {
            s.stddev / (s.mean * s.mean * (n - 1.0).sqrt())
        } else {
            0.0
        };
        TepsSummary {
            min: 1.0 / s.max,
            first_quartile: 1.0 / s.third_quartile,
            median: 1.0 / s.median,
            third_quartile: 1.0 / s.first_quartile,
            max: 1.0 / s.min,
            harmonic_mean: 1.0 / s.mean,
            harmonic_stddev,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quartiles_match_the_reference_rule() {
        let s = Summary::of(&[4.0, 1.0, 3.0, 2.0]);
        assert_eq!(s.min, 1.0);
        assert_eq!(s.max, 4.0);
        assert_eq!(s.median, 2.5);
        assert_eq!(s.first_quartile, 1.5);
        assert_eq!(s.third_quartile, 3.5);
        assert_eq!(s.mean, 2.5);
        assert!((s.stddev - (5.0f64 / 3.0).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn harmonic_mean_of_teps() {
        // 100 edges in 1 s and 100 edges in 3 s: TEPS 100 and 33.3,
        // harmonic mean 2 / (1/100 + 3/100) = 50.
        let t = TepsSummary::of(&[1.0, 3.0], &[100.0, 100.0]);
        assert!((t.harmonic_mean - 50.0).abs() < 1e-9);
        assert!((t.max - 100.0).abs() < 1e-9);
        assert!((t.min - 100.0 / 3.0).abs() < 1e-9);
        // Norris: stddev of seconds-per-edge / (mean^2 * sqrt(n-1)).
        let spe_sd = ((0.01f64 - 0.02).powi(2) * 2.0).sqrt();
        assert!((t.harmonic_stddev - spe_sd / (0.02f64 * 0.02)).abs() < 1e-6);
    }

    #[test]
    fn single_search_has_zero_spread() {
        let t = TepsSummary::of(&[2.0], &[10.0]);
        assert_eq!(t.harmonic_mean, 5.0);
        assert_eq!(t.harmonic_stddev, 0.0);
    }
}
