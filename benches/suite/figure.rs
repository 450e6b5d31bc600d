//! What one bridge scored on one measure. A measure either yields a number, or an observed outcome that is not a
//! number (it never recovered, it exited), or does not apply to that bridge at all; the last two carry their reason
//! as text, so the tables never show a made-up number.

use serde_json::{Value, json};

/// One bridge's outcome on one measure.
#[derive(Clone, Debug)]
pub enum Figure {
    /// A measured value in the row's unit, with an optional remark (e.g. `27 tools`).
    Measured { value: f64, note: Option<String> },
    /// Measured, but the bridge did not get there: what happened instead.
    Failed(String),
    /// The measure does not apply to this bridge: why.
    NotApplicable(String),
}

impl Figure {
    pub fn value(value: f64) -> Self {
        Self::Measured { value, note: None }
    }

    pub fn noted(value: f64, note: impl Into<String>) -> Self {
        Self::Measured {
            value,
            note: Some(note.into()),
        }
    }

    /// The number, when there is one.
    pub fn number(&self) -> Option<f64> {
        match self {
            Self::Measured { value, .. } if value.is_finite() => Some(*value),
            _ => None,
        }
    }

    /// The figure as shown in a table cell: the number (with its remark), or `failed: …` / `n/a: …`.
    pub fn cell(&self, unit: &str) -> String {
        match self {
            Self::Measured { value, note } => {
                let number = format!("{} {unit}", format_number(*value));
                match note {
                    Some(note) => format!("{number} ({note})"),
                    None => number,
                }
            }
            Self::Failed(text) => format!("**{text}**"),
            Self::NotApplicable(reason) => format!("n/a: {reason}"),
        }
    }

    /// The figure in the JSON results.
    pub fn json(&self) -> Value {
        match self {
            Self::Measured { value, note } => {
                let mut figure = json!({ "value": round(*value) });
                if let Some(note) = note {
                    figure["note"] = json!(note);
                }
                figure
            }
            Self::Failed(text) => json!({ "failed": text }),
            Self::NotApplicable(reason) => json!({ "n/a": reason }),
        }
    }
}

/// A number with as many decimals as it needs to be read at a glance (three significant digits or more).
pub fn format_number(value: f64) -> String {
    if !value.is_finite() {
        return "?".into();
    }
    let magnitude = value.abs();
    if magnitude >= 100.0 {
        format!("{value:.0}")
    } else if magnitude >= 10.0 {
        format!("{value:.1}")
    } else if magnitude >= 1.0 {
        format!("{value:.2}")
    } else {
        format!("{value:.3}")
    }
}

/// A count with thousands separated by commas: `10,000`.
pub fn thousands(count: usize) -> String {
    let digits = count.to_string();
    let mut out = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// Rounded to three decimals for the JSON results (more digits would be noise).
pub fn round(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_say_what_happened_and_never_invent_a_number() {
        assert_eq!(
            Figure::noted(std::f64::consts::PI, "27 tools").cell("ms"),
            "3.14 ms (27 tools)"
        );
        assert_eq!(Figure::value(1234.4).cell("ms"), "1234 ms");
        assert_eq!(Figure::value(0.25).cell("ms"), "0.250 ms");
        assert_eq!(Figure::Failed("exited".into()).cell("ms"), "**exited**");
        assert_eq!(
            Figure::NotApplicable("no offline mode".into()).number(),
            None
        );
        assert_eq!(
            Figure::NotApplicable("no offline mode".into()).json(),
            json!({ "n/a": "no offline mode" })
        );
    }
}
