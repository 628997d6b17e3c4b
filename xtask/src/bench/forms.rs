//! The one-call form (`translate_bytes`, fresh working memory each call) and the kept form
//! (one `Translator` reused), side by side over each shader's fastest round, per set of
//! shaders: the fxc corpus, the shader_test corpus, and the largest quarter of both together
//! by program size (the SHDR/SHEX chunk's bytes).

use serde_json::{json, Value};

use super::harness::Timing;

/// The name of the third set.
pub(super) const LARGEST_OF_BOTH: &str = "largest¼ of both";

/// Statistics of one form over one set, in microseconds.
#[derive(Debug, Clone, Copy)]
pub(super) struct FormStats {
    /// The mean over the shaders.
    pub mean: f64,
    /// The mean over the largest quarter of the set by program size (`None` for the set that
    /// is itself a largest quarter).
    pub largest_quarter: Option<f64>,
    /// The 99th percentile.
    pub p99: f64,
}

/// One set's figures for both forms.
#[derive(Debug, Clone)]
pub(super) struct SetFigures {
    /// The set's name (a corpus, or [`LARGEST_OF_BOTH`]).
    pub name: String,
    /// How many shaders it has.
    pub shaders: usize,
    /// The kept `Translator`.
    pub kept: FormStats,
    /// `translate_bytes`.
    pub one_call: FormStats,
}

/// The largest quarter (rounded up) of `times` by program size, ties broken by path.
pub(super) fn largest_quarter<'a>(times: &[&'a Timing]) -> Vec<&'a Timing> {
    let mut sorted = times.to_vec();
    sorted.sort_by(|a, b| {
        b.program_bytes
            .cmp(&a.program_bytes)
            .then_with(|| a.rel.cmp(&b.rel))
    });
    sorted.truncate(times.len().div_ceil(4));
    sorted
}

/// The 99th percentile of sorted values (the smallest value at or above 99% of them).
pub(super) fn p99_sorted(sorted: &[f64]) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[(sorted.len() * 99).div_ceil(100).clamp(1, sorted.len()) - 1]
}

/// The mean of some values (0 for none).
fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, count) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    sum / count.max(1) as f64
}

/// One form's statistics over `times`, each shader's time given by `time`.
fn stats(times: &[&Timing], time: fn(&Timing) -> f64, with_quarter: bool) -> FormStats {
    let mut values: Vec<f64> = times.iter().map(|t| time(t)).collect();
    values.sort_by(f64::total_cmp);
    FormStats {
        mean: mean(values.iter().copied()),
        largest_quarter: with_quarter.then(|| mean(largest_quarter(times).into_iter().map(time))),
        p99: p99_sorted(&values),
    }
}

/// The figures of one set.
fn set(name: &str, times: &[&Timing], with_quarter: bool) -> SetFigures {
    SetFigures {
        name: name.to_string(),
        shaders: times.len(),
        kept: stats(times, Timing::kept_min, with_quarter),
        one_call: stats(times, Timing::one_call_min, with_quarter),
    }
}

/// The three sets' figures over the translated shaders `times` (each shader's fastest round).
pub(super) fn sets(times: &[&Timing]) -> Vec<SetFigures> {
    let mut out = Vec::new();
    for &(corpus, _) in super::harness::CORPORA {
        let of: Vec<&Timing> = times
            .iter()
            .copied()
            .filter(|t| t.corpus == corpus)
            .collect();
        out.push(set(corpus, &of, true));
    }
    out.push(set(LARGEST_OF_BOTH, &largest_quarter(times), false));
    out
}

/// Prints the sets' figures and the ratios translate_bytes / Translator.
pub(super) fn print(sets: &[SetFigures], reps: usize) {
    println!(
        "one-call form (translate_bytes) against the kept Translator, each shader's fastest of \
         {reps} rounds, µs; largest¼ = the quarter of the set with the largest program \
         (SHDR/SHEX chunk bytes):"
    );
    println!(
        "{:<18} {:>7} | {:>9} {:>9} {:>9} | {:>11} {:>9} {:>9} | {:>10} {:>10}",
        "set",
        "shaders",
        "kept mean",
        "largest¼",
        "p99",
        "1-call mean",
        "largest¼",
        "p99",
        "ratio mean",
        "largest¼"
    );
    let quarter = |s: &FormStats| {
        s.largest_quarter
            .map_or_else(|| "-".to_string(), |q| format!("{q:.1}"))
    };
    for s in sets {
        let ratio_quarter = match (s.one_call.largest_quarter, s.kept.largest_quarter) {
            (Some(o), Some(k)) => format!("{:.3}", o / k),
            _ => "-".to_string(),
        };
        println!(
            "{:<18} {:>7} | {:>9.1} {:>9} {:>9.1} | {:>11.1} {:>9} {:>9.1} | {:>10.3} {:>10}",
            s.name,
            s.shaders,
            s.kept.mean,
            quarter(&s.kept),
            s.kept.p99,
            s.one_call.mean,
            quarter(&s.one_call),
            s.one_call.p99,
            s.one_call.mean / s.kept.mean,
            ratio_quarter
        );
    }
}

/// The sets' figures as JSON.
pub(super) fn to_json(sets: &[SetFigures]) -> Value {
    let form = |s: &FormStats| {
        json!({
            "mean_us": s.mean,
            "largest_quarter_mean_us": s.largest_quarter,
            "p99_us": s.p99,
        })
    };
    json!(sets
        .iter()
        .map(|s| json!({
            "set": s.name,
            "shaders": s.shaders,
            "translator": form(&s.kept),
            "translate_bytes": form(&s.one_call),
        }))
        .collect::<Vec<_>>())
}
