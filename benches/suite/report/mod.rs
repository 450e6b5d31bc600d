//! The results of one run, built once as rows (one per measure, one figure per bridge) and then rendered three ways:
//! JSON for machines, a Markdown table for people, and an SVG chart (`chart.rs`). Ratios are obsmcp / peer, and
//! each obsmcp figure that DESIGN.md sets a target for is shown beside it as met or missed.
//!
//! This file holds the rows' and the report's types; the rows are built in `rows.rs`, rendered in `render.rs`.

use serde_json::{Map, Value, json};

use super::Plan;
use super::bridges::BridgeKind;
use super::figure::{Figure, format_number, round, thousands};
use super::launchers::LauncherFigures;
use super::machine::Machine;
use super::measures::BridgeFigures;
use super::modern::ModernFigures;
use super::scale::ScaleFigures;
use super::vault::{VaultFigures, WORST_SEARCH};

mod render;
mod rows;
mod scale;
#[cfg(test)]
mod tests;

pub use rows::rows;

/// A DESIGN.md target and whether obsmcp's figure meets it.
pub struct Target {
    pub text: String,
    pub limit: f64,
    pub met: bool,
}

/// One measure: a figure per bridge, in [`BridgeKind::ALL`] order.
pub struct Row {
    pub id: &'static str,
    pub label: String,
    pub unit: &'static str,
    pub higher_is_better: bool,
    /// A baseline row (the direct HTTP client) has no ratio between bridges.
    pub baseline: bool,
    pub target: Option<Target>,
    pub figures: Vec<Figure>,
}

impl Row {
    fn new(
        id: &'static str,
        label: impl Into<String>,
        unit: &'static str,
        figures: Vec<Figure>,
    ) -> Self {
        Self {
            id,
            label: label.into(),
            unit,
            higher_is_better: false,
            baseline: false,
            target: None,
            figures,
        }
    }

    /// Sets the DESIGN.md target `text` (met when obsmcp's figure is below `limit` and `extra` holds).
    fn target(mut self, text: &str, limit: f64, extra: bool) -> Self {
        let met = extra && self.figures[0].number().is_some_and(|value| value < limit);
        self.target = Some(Target {
            text: text.into(),
            limit,
            met,
        });
        self
    }

    fn higher_is_better(mut self) -> Self {
        self.higher_is_better = true;
        self
    }

    fn baseline(mut self) -> Self {
        self.baseline = true;
        self
    }

    /// obsmcp's figure divided by a peer's, when both are numbers.
    pub fn ratio(&self, peer: usize) -> Option<f64> {
        if self.baseline {
            return None;
        }
        let ours = self.figures[0].number()?;
        let theirs = self.figures[peer].number()?;
        (theirs != 0.0).then(|| ours / theirs)
    }
}

/// One run's results.
pub struct Report {
    pub machine: Machine,
    pub plan: Plan,
    pub rows: Vec<Row>,
    pub vault: VaultFigures,
    /// The large vault: resources and completion only.
    pub large: VaultFigures,
    /// Measure 9: the same few operations at each vault size, side by side with the filesystem servers.
    pub scale: ScaleFigures,
    /// Seconds the suite itself took (vault generation included).
    pub suite_seconds: f64,
    /// Seconds since `benches/run` started (installs and the release build included), when run through it.
    pub command_seconds: Option<f64>,
}
