//! The results of one run, built once as rows (one per measure, one figure per bridge) and then rendered three ways:
//! JSON for machines, a Markdown table for people, and an SVG chart (`chart.rs`). Ratios are obsmcp / peer, and
//! each obsmcp figure that DESIGN.md sets a target for is shown beside it as met or missed.

use serde_json::{Map, Value, json};

use super::Plan;
use super::bridges::BridgeKind;
use super::figure::{Figure, format_number, round, thousands};
use super::machine::Machine;
use super::measures::BridgeFigures;
use super::vault::{VaultFigures, WORST_SEARCH};

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
    /// Seconds the suite itself took (vault generation included).
    pub suite_seconds: f64,
    /// Seconds since `benches/run` started (installs and the release build included), when run through it.
    pub command_seconds: Option<f64>,
}

/// Builds the rows from each bridge's figures (in [`BridgeKind::ALL`] order) and the vault's.
pub fn rows(
    plan: &Plan,
    bridges: &[BridgeFigures],
    vault: &VaultFigures,
    catalog_size: usize,
) -> Vec<Row> {
    let each = |pick: fn(&BridgeFigures) -> &Figure| {
        bridges
            .iter()
            .map(|figures| pick(figures).clone())
            .collect()
    };
    let obsmcp = &bridges[0];
    let full_catalog = obsmcp
        .tools_listed
        .is_some_and(|listed| listed >= catalog_size);
    let worst = vault
        .cases
        .iter()
        .find(|case| case.label == WORST_SEARCH)
        .expect("the worst search case is measured");
    let only_obsmcp = |figure: Figure, reason: &str| {
        let mut figures = vec![figure];
        figures.extend(
            BridgeKind::ALL[1..]
                .iter()
                .map(|_| Figure::NotApplicable(reason.into())),
        );
        figures
    };
    let no_offline = "no offline mode";
    let obsmcp_only = "obsmcp only (a peer adds its row-3 overhead)";
    let in_flight = plan.in_flight;
    vec![
        Row::new(
            "spawn_to_initialize",
            format!(
                "1. spawn → `initialize` answered (median of {})",
                plan.spawns
            ),
            "ms",
            each(|figures| &figures.initialize_ms),
        )
        .target("< 20 ms", 20.0, true),
        Row::new(
            "tools_list_upstream_down",
            "2. `tools/list`, bridge started with the plugin down",
            "ms",
            each(|figures| &figures.tools_down),
        )
        .target(
            &format!("full catalog ({catalog_size}+ tools) < 20 ms"),
            20.0,
            full_catalog,
        ),
        Row::new(
            "call_latency",
            format!(
                "3. `vault_info` call through the bridge (median of {})",
                plan.calls
            ),
            "ms",
            each(|figures| &figures.call_ms),
        ),
        Row::new(
            "direct_call",
            "  the same call straight to the plugin over HTTP, paired",
            "ms",
            each(|figures| &figures.direct_ms),
        )
        .baseline(),
        Row::new(
            "call_overhead",
            "  overhead per call (median of paired differences)",
            "ms",
            each(|figures| &figures.overhead_ms),
        )
        .target("< 1 ms", 1.0, true),
        Row::new(
            "recovery",
            "4. plugin host killed, restarted on its port → first successful call",
            "ms",
            each(|figures| &figures.recovery_ms),
        )
        .target("< 1 s", 1000.0, true),
        Row::new(
            "rss_after_calls",
            "5. peak RSS after the calls (VmHWM)",
            "MB",
            each(|figures| &figures.rss_steady_mb),
        )
        .target("< 15 MB", 15.0, true),
        Row::new(
            "rss_with_20mb_note",
            "  peak RSS of a bridge that carried the 20 MB note",
            "MB",
            each(|figures| &figures.rss_peak_mb),
        ),
        Row::new(
            "note_20mb",
            "6. 20 MB multi-byte note written, answered, compared on disk",
            "ms",
            each(|figures| &figures.big_note),
        )
        .target("intact, < 1 s", 1000.0, true),
        Row::new(
            "throughput",
            format!(
                "7. throughput, {in_flight} requests in flight on the one stdio ({} calls)",
                plan.throughput_calls
            ),
            "calls/s",
            each(|figures| &figures.throughput),
        )
        .higher_is_better(),
        Row::new(
            "throughput_latency",
            format!("  median latency with {in_flight} in flight"),
            "ms",
            each(|figures| &figures.throughput_latency_ms),
        ),
        Row::new(
            "direct_throughput",
            format!("  direct HTTP, {in_flight} concurrent callers, same session"),
            "calls/s",
            each(|figures| &figures.direct_throughput),
        )
        .higher_is_better()
        .baseline(),
        Row::new(
            "direct_throughput_latency",
            format!("  direct HTTP median latency, {in_flight} concurrent"),
            "ms",
            each(|figures| &figures.direct_throughput_latency_ms),
        )
        .baseline(),
        Row::new(
            "search_through_plugin",
            format!(
                "8. search scanning {} notes, through the bridge to the plugin",
                thousands(vault.notes)
            ),
            "ms",
            only_obsmcp(Figure::value(worst.bridge_ms), obsmcp_only),
        )
        .target("< 300 ms", 300.0, true),
        Row::new(
            "search_offline",
            "  the same search offline (plugin down, from disk)",
            "ms",
            only_obsmcp(Figure::value(worst.offline_ms), no_offline),
        )
        .target("faster than through the plugin", worst.bridge_ms, true),
        Row::new(
            "offline_cold",
            "  offline cold: spawn → first search answered (index build included)",
            "ms",
            only_obsmcp(Figure::value(vault.offline_cold_ms), no_offline),
        ),
        Row::new(
            "offline_rss",
            format!(
                "  peak RSS with the offline index of {} notes",
                thousands(vault.notes)
            ),
            "MB",
            only_obsmcp(
                vault.offline_rss_mb.map_or_else(
                    || Figure::Failed("the bridge had exited".into()),
                    Figure::value,
                ),
                no_offline,
            ),
        ),
    ]
}

impl Report {
    /// The results as JSON (key order fixed, numbers rounded to three decimals).
    pub fn json(&self) -> Value {
        let measures: Vec<Value> = self
            .rows
            .iter()
            .map(|row| {
                let mut figures = Map::new();
                let mut ratios = Map::new();
                for (index, kind) in BridgeKind::ALL.iter().enumerate() {
                    figures.insert(kind.key().into(), row.figures[index].json());
                    if let Some(ratio) = (index > 0).then(|| row.ratio(index)).flatten() {
                        ratios.insert(kind.key().into(), json!(round(ratio)));
                    }
                }
                let mut measure = json!({
                    "id": row.id,
                    "label": row.label.trim(),
                    "unit": row.unit,
                    "better": if row.higher_is_better { "higher" } else { "lower" },
                    "figures": figures,
                });
                if !row.baseline {
                    measure["ratio_obsmcp_to_peer"] = Value::Object(ratios);
                }
                if let Some(target) = &row.target {
                    measure["design_target"] = json!(target.text);
                    measure["target_met"] = json!(target.met);
                }
                measure
            })
            .collect();
        let cases: Vec<Value> = self
            .vault
            .cases
            .iter()
            .map(|case| {
                json!({
                    "operation": case.label,
                    "pages": case.pages,
                    "plugin_direct_ms": round(case.direct_ms),
                    "obsmcp_to_plugin_ms": round(case.bridge_ms),
                    "obsmcp_offline_ms": round(case.offline_ms),
                })
            })
            .collect();
        json!({
            "suite": "obsmcp bridge against its peers (benches/run)",
            "quick": self.plan.quick,
            "machine": self.machine.json(),
            "plan": {
                "spawns": self.plan.spawns,
                "paired_calls": self.plan.calls,
                "throughput_calls": self.plan.throughput_calls,
                "in_flight": self.plan.in_flight,
                "vault_notes": self.plan.notes,
                "vault_rounds": self.plan.rounds,
            },
            "measures": measures,
            "vault": {
                "generated": self.vault.vault,
                "generate_ms": round(self.vault.generate_ms),
                "plugin_host_start_ms": round(self.vault.host_start_ms),
                "offline_cold_ms": round(self.vault.offline_cold_ms),
                "offline_rss_mb": self.vault.offline_rss_mb.map(round),
                "cases": cases,
            },
            "wall_seconds": {
                "suite": round(self.suite_seconds),
                "command": self.command_seconds.map(round),
            },
        })
    }

    /// The results as Markdown: the facts of the run, the side-by-side table, and the vault table.
    pub fn markdown(&self) -> String {
        let machine = &self.machine;
        let mut out = String::new();
        out.push_str("# obsmcp benchmark results\n\n");
        out.push_str("Generated by `benches/run`; do not edit by hand. See `benches/README.md` for what each figure means.\n\n");
        if self.plan.quick {
            out.push_str("**Quick run** (`--quick`): fewer samples and a smaller vault; not for comparison.\n\n");
        }
        out.push_str(&format!(
            "- run: {}, obsmcp {}, suite {:.0} s{}\n",
            machine.date,
            machine.commit,
            self.suite_seconds,
            self.command_seconds
                .map(|seconds| format!(" ({seconds:.0} s with installs and build)"))
                .unwrap_or_default()
        ));
        out.push_str(&format!(
            "- machine: {}, {} cores, {:.1} GB, Linux {}, load average at start {}\n",
            machine.cpu_model,
            machine.cores,
            machine.memory_gb,
            machine.kernel,
            machine.load_average
        ));
        out.push_str(&format!("- {}, {}\n", machine.node, machine.rustc));
        out.push_str(&format!(
            "- bridges: {}\n\n",
            BridgeKind::ALL
                .iter()
                .map(|kind| format!("{} (`{}`)", kind.title(), kind.command_line()))
                .collect::<Vec<_>>()
                .join("; ")
        ));

        out.push_str("Medians. Ratio = obsmcp / peer (below 1 is better for obsmcp where lower is better; above 1 for calls/s).\n\n");
        let titles: Vec<String> = BridgeKind::ALL.iter().map(|kind| kind.title()).collect();
        out.push_str(&format!(
            "| measure | {} | DESIGN target | met |",
            titles[0]
        ));
        for (index, title) in titles.iter().enumerate().skip(1) {
            out.push_str(&format!(
                " {title} | obsmcp / {} |",
                BridgeKind::ALL[index].key()
            ));
        }
        out.push_str("\n| --- | ---: | --- | --- |");
        for _ in 1..titles.len() {
            out.push_str(" ---: | ---: |");
        }
        out.push('\n');
        for row in &self.rows {
            let (target, met) = match &row.target {
                Some(target) => (
                    target.text.as_str(),
                    if target.met { "met" } else { "**missed**" },
                ),
                None => ("", ""),
            };
            out.push_str(&format!(
                "| {} | {} | {target} | {met} |",
                row.label.replacen("  ", "↳ ", 1),
                row.figures[0].cell(row.unit)
            ));
            for (index, figure) in row.figures.iter().enumerate().skip(1) {
                let ratio = row
                    .ratio(index)
                    .map(|ratio| format!("{}×", format_number(ratio)))
                    .unwrap_or_default();
                out.push_str(&format!(" {} | {ratio} |", figure.cell(row.unit)));
            }
            out.push('\n');
        }

        let vault = &self.vault;
        out.push_str(&format!(
            "\n## Generated vault, obsmcp only\n\n{} (generated in {:.1} s; plugin host indexed it in {:.1} s). \
             Medians of {} rounds, ms. The peers have no offline mode.\n\n",
            vault.vault,
            vault.generate_ms / 1000.0,
            vault.host_start_ms / 1000.0,
            vault.rounds
        ));
        out.push_str("| operation | pages | plugin, direct HTTP | obsmcp → plugin | obsmcp offline | offline speed-up over the plugin |\n");
        out.push_str("| --- | ---: | ---: | ---: | ---: | ---: |\n");
        for case in &vault.cases {
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} | {}× |\n",
                case.label,
                case.pages,
                format_number(case.direct_ms),
                format_number(case.bridge_ms),
                format_number(case.offline_ms),
                format_number(case.bridge_ms / case.offline_ms.max(1e-6))
            ));
        }
        out.push_str("\n![chart](chart.svg)\n");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::vault::CaseFigures;

    fn figures(initialize_ms: f64, recovery: Figure, big_note: Figure) -> BridgeFigures {
        BridgeFigures {
            initialize_ms: Figure::value(initialize_ms),
            tools_down: Figure::Failed(
                "exited (exit status: 1) 900 ms after spawn, no list".into(),
            ),
            tools_listed: None,
            call_ms: Figure::value(2.0),
            direct_ms: Figure::value(1.0),
            overhead_ms: Figure::value(1.0),
            throughput: Figure::value(100.0),
            throughput_latency_ms: Figure::value(8.0),
            direct_throughput: Figure::value(200.0),
            direct_throughput_latency_ms: Figure::value(4.0),
            rss_steady_mb: Figure::value(50.0),
            rss_peak_mb: Figure::value(80.0),
            big_note,
            recovery_ms: recovery,
        }
    }

    fn report() -> Report {
        let plan = Plan {
            quick: true,
            spawns: 1,
            calls: 1,
            throughput_calls: 2,
            in_flight: 8,
            notes: 10,
            rounds: 1,
        };
        let mut ours = figures(5.0, Figure::value(120.0), Figure::noted(800.0, "intact"));
        ours.tools_down = Figure::noted(3.0, "27 tools");
        ours.tools_listed = Some(27);
        ours.rss_steady_mb = Figure::value(9.0);
        let bridges = [
            ours,
            figures(
                1000.0,
                Figure::value(300.0),
                Figure::Failed("not read <in> 30 s".into()),
            ),
            figures(
                2000.0,
                Figure::Failed("never within 10 s".into()),
                Figure::value(5000.0),
            ),
        ];
        let vault = VaultFigures {
            vault: "generated 10 notes".into(),
            notes: 10,
            rounds: 1,
            generate_ms: 1.0,
            host_start_ms: 1.0,
            cases: vec![CaseFigures {
                label: WORST_SEARCH,
                pages: 1,
                direct_ms: 40.0,
                bridge_ms: 50.0,
                offline_ms: 60.0,
            }],
            offline_cold_ms: 300.0,
            offline_rss_mb: Some(20.0),
        };
        let rows = rows(&plan, &bridges, &vault, 26);
        Report {
            machine: Machine::gather(),
            plan,
            rows,
            vault,
            suite_seconds: 1.0,
            command_seconds: None,
        }
    }

    fn row<'a>(report: &'a Report, id: &str) -> &'a Row {
        report.rows.iter().find(|row| row.id == id).unwrap()
    }

    #[test]
    fn ratios_are_obsmcp_over_each_peer_and_targets_say_met_or_missed() {
        let report = report();
        let spawn = row(&report, "spawn_to_initialize");
        assert_eq!(spawn.ratio(1), Some(0.005));
        assert_eq!(spawn.ratio(2), Some(0.0025));
        assert!(spawn.target.as_ref().unwrap().met);
        assert_eq!(
            row(&report, "recovery").ratio(2),
            None,
            "no number, no ratio"
        );
        assert_eq!(
            row(&report, "direct_call").ratio(1),
            None,
            "baselines have no ratio"
        );
        assert!(
            row(&report, "tools_list_upstream_down")
                .target
                .as_ref()
                .unwrap()
                .met
        );
        assert!(
            !row(&report, "call_overhead").target.as_ref().unwrap().met,
            "1 ms is not < 1 ms"
        );
        assert!(
            !row(&report, "search_offline").target.as_ref().unwrap().met,
            "slower offline"
        );
    }

    #[test]
    fn every_rendering_shows_failures_and_reasons_instead_of_numbers() {
        let report = report();
        let json = report.json();
        let recovery = &json["measures"][5];
        assert_eq!(recovery["id"], "recovery");
        assert_eq!(
            recovery["figures"]["supergateway"],
            json!({ "failed": "never within 10 s" })
        );
        assert_eq!(
            recovery["ratio_obsmcp_to_peer"],
            json!({ "mcp-remote": 0.4 })
        );
        assert!(json["measures"][13]["figures"]["mcp-remote"]["n/a"].is_string());

        let markdown = report.markdown();
        assert!(markdown.contains("| **never within 10 s** |"), "{markdown}");
        assert!(markdown.contains("n/a: no offline mode"), "{markdown}");

        let svg = super::super::chart::svg(&report);
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(!svg.contains("<script") && !svg.contains("href"));
        assert!(
            svg.contains("not read &lt;in&gt; 30 s"),
            "escaped reason in the chart"
        );
        assert!(svg.contains("never within 10 s"));
    }
}
