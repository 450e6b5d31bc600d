//! The benchmark suite against the peers: `obsmcp bridge`, mcp-remote and supergateway side by side in one run, in
//! front of the obsmcp plugin hosted in Node, plus obsmcp's search through the plugin and offline on a generated
//! 10,000-note vault. One ignored test runs it all and writes `benches/results/latest.json`, `latest.md` and
//! `chart.svg`; `benches/run` installs the peers, builds in release mode and runs it. What each figure means is in
//! `benches/README.md`.
//!
//! A target of its own (`[[bench]] suite` in Cargo.toml says why), so that `cargo test` never compiles it; its own
//! unit tests (figures, statistics, the report and the chart) run with `cargo test --bench suite`.
//!
//! Nothing here asserts a speed (the machine is shared and noisy): the suite fails only when obsmcp is functionally
//! broken (a corrupted 20 MB note, no catalog with the plugin down, no recovery at all, an offline answer that
//! disagrees with the plugin), and then only after the results are written.

mod bridges;
mod chart;
mod direct;
mod figure;
mod launchers;
mod machine;
mod measures;
mod modern;
mod report;
mod scale;
mod stats;
// The integration tests' helpers (plugin host, temporary homes, child guards, the test-side client), compiled into
// this binary from their one copy: they call `env!("CARGO_BIN_EXE_obsmcp")`, which Cargo sets only for this
// package's test and bench targets, so they cannot move into a crate of their own. Its re-exports serve every binary
// that includes it; this one uses some.
#[path = "../../tests/it/support/mod.rs"]
#[allow(unused_imports)]
mod support;
mod vault;

use std::path::PathBuf;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use bridges::BridgeKind;
use figure::Figure;
use machine::Machine;
use report::Report;

use crate::support::repo_root;

/// How many samples of each kind a run takes.
pub struct Plan {
    /// A smaller run for development (`benches/run --quick`): not for comparison.
    pub quick: bool,
    pub spawns: usize,
    pub calls: usize,
    pub throughput_calls: usize,
    pub in_flight: usize,
    pub notes: usize,
    pub rounds: usize,
    /// The large vault, for resources and completion only.
    pub large_notes: usize,
    pub large_rounds: usize,
    /// The vault sizes of the scale section (measure 9).
    pub scale_sizes: Vec<scale::Shape>,
}

impl Plan {
    /// Warm rounds per operation in the scale section: fewer at the largest size, where a peer's search takes a minute.
    fn scale_rounds(&self, notes: usize) -> usize {
        match (self.quick, notes) {
            (true, _) => 2,
            (false, notes) if notes >= 100_000 => 5,
            (false, _) => 7,
        }
    }
}

impl Plan {
    /// The full plan, or the quick one when `OBSMCP_BENCH_QUICK=1`.
    fn from_environment() -> Self {
        let quick = std::env::var("OBSMCP_BENCH_QUICK").is_ok_and(|value| value == "1");
        if quick {
            Self {
                quick,
                spawns: 3,
                calls: 40,
                throughput_calls: 80,
                in_flight: 8,
                notes: 1000,
                rounds: 3,
                large_notes: 3000,
                large_rounds: 2,
                scale_sizes: vec![
                    scale::Shape {
                        notes: 300,
                        prose: 0,
                    },
                    scale::Shape {
                        notes: 1000,
                        prose: 9,
                    },
                ],
            }
        } else {
            Self {
                quick,
                spawns: 10,
                calls: 200,
                throughput_calls: 400,
                in_flight: 8,
                notes: 10_000,
                rounds: 11,
                large_notes: 100_000,
                large_rounds: 5,
                // Both shapes at the largest size: the generator's notes of 0.8 KB, and of 2.4 KB, a real note's size.
                scale_sizes: vec![
                    scale::Shape {
                        notes: 1000,
                        prose: 0,
                    },
                    scale::Shape {
                        notes: 10_000,
                        prose: 0,
                    },
                    scale::Shape {
                        notes: 100_000,
                        prose: 0,
                    },
                    scale::Shape {
                        notes: 100_000,
                        prose: 9,
                    },
                ],
            }
        }
    }

    /// Where the results go: `OBSMCP_BENCH_OUT`, else `benches/results` (a quick run: `target/bench-quick`, so it
    /// never replaces the committed results).
    fn output_folder(&self) -> PathBuf {
        match std::env::var_os("OBSMCP_BENCH_OUT") {
            Some(folder) => PathBuf::from(folder),
            None if self.quick => repo_root().join("target/bench-quick"),
            None => repo_root().join("benches/results"),
        }
    }
}

/// The number of tools in the plugin's committed catalog: the least a full `tools/list` names.
fn catalog_size() -> usize {
    let text = std::fs::read_to_string(repo_root().join("obsidian-plugin/catalog.json"))
        .expect("obsidian-plugin/catalog.json");
    let catalog: serde_json::Value = serde_json::from_str(&text).expect("catalog JSON");
    catalog["tools"].as_array().expect("a tools array").len()
}

/// Seconds since `benches/run` started, which passes its start time in `OBSMCP_BENCH_STARTED` (Unix seconds).
fn command_seconds() -> Option<f64> {
    let started: f64 = std::env::var("OBSMCP_BENCH_STARTED").ok()?.parse().ok()?;
    let now = SystemTime::now().duration_since(UNIX_EPOCH).ok()?;
    Some(now.as_secs_f64() - started)
}

#[test]
#[ignore = "benchmark suite: run `benches/run` (release build, writes benches/results/)"]
fn suite() {
    let started = Instant::now();
    let plan = Plan::from_environment();
    let machine = Machine::gather();
    eprintln!(
        "benchmark suite{}: {} ({} cores), load average {}",
        if plan.quick { " (quick)" } else { "" },
        machine.cpu_model,
        machine.cores,
        machine.load_average
    );

    let setup = measures::Setup::new();
    let mut bridges: Vec<measures::BridgeFigures> = BridgeKind::ALL
        .iter()
        .map(|kind| measures::measure(&setup, *kind, &plan))
        .collect();
    bridges[0].modern = Some(modern::measure(&setup, &plan));
    bridges[0].launchers = Some(launchers::measure(&setup, &plan));
    let vault = vault::measure(&plan);
    let large = vault::measure_large(&plan);
    let scale = scale::measure(&plan.scale_sizes, |notes| plan.scale_rounds(notes));
    let catalog_size = catalog_size();
    let rows = report::rows(&plan, &bridges, &vault, catalog_size);
    let report = Report {
        machine,
        plan,
        rows,
        vault,
        large,
        scale,
        suite_seconds: started.elapsed().as_secs_f64(),
        command_seconds: command_seconds(),
    };

    let folder = report.plan.output_folder();
    std::fs::create_dir_all(&folder).unwrap();
    let json = serde_json::to_string_pretty(&report.json()).unwrap() + "\n";
    std::fs::write(folder.join("latest.json"), json).unwrap();
    let markdown = report.markdown();
    std::fs::write(folder.join("latest.md"), &markdown).unwrap();
    std::fs::write(folder.join("chart.svg"), chart::svg(&report)).unwrap();
    eprintln!("\n{markdown}\nwritten to {}", folder.display());
    eprintln!("suite wall time: {:.0} s", report.suite_seconds);

    let ours = &bridges[0];
    assert!(
        matches!(ours.big_note, Figure::Measured { .. }),
        "obsmcp: 20 MB note {:?}",
        ours.big_note
    );
    assert!(
        ours.tools_listed
            .is_some_and(|listed| listed >= catalog_size),
        "obsmcp with the plugin down: {:?}",
        ours.tools_down
    );
    assert!(
        matches!(ours.recovery_ms, Figure::Measured { .. }),
        "obsmcp after the plugin's restart: {:?}",
        ours.recovery_ms
    );
}
