//! The report on made-up figures: ratios and targets met or missed, and failures and their reasons shown in every
//! rendering (JSON, Markdown, the chart) instead of numbers.

use super::*;
use crate::scale::{ScaleFigures, Side, Size};
use crate::vault::CaseFigures;

fn figures(initialize_ms: f64, recovery: Figure, big_note: Figure) -> BridgeFigures {
    BridgeFigures {
        initialize_ms: Figure::value(initialize_ms),
        tools_down: Figure::Failed("exited (exit status: 1) 900 ms after spawn, no list".into()),
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
        modern: None,
        launchers: None,
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
        large_notes: 20,
        large_rounds: 1,
        scale_sizes: vec![crate::scale::Shape {
            notes: 10,
            prose: 0,
        }],
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
        offline_saved_ms: 100.0,
        offline_rss_mb: Some(20.0),
    };
    let rows = rows(&plan, &bridges, &vault, 26);
    let large = VaultFigures {
        vault: "generated 20 notes".into(),
        notes: 20,
        cases: vec![CaseFigures {
            label: "completion, nothing typed (newest first)",
            pages: 1,
            direct_ms: 4.0,
            bridge_ms: 5.0,
            offline_ms: 6.0,
        }],
        ..vault.clone()
    };
    let scale = ScaleFigures {
        sizes: vec![Size {
            notes: 100_000,
            prose: 9,
            summary: "generated 100000 notes in 40 folders: 1 links, 240.0 MB, 30.1 s".into(),
            rounds: 5,
            sides: vec![
                Side {
                    name: "obsmcp offline (Obsidian closed)".into(),
                    first: Figure::value(2900.0),
                    warm: vec![Figure::value(40.0), Figure::value(0.5), Figure::value(8.0)],
                    peak_mb: Some(149.5),
                },
                Side {
                    name: "obsidian-mcp 2.0.1".into(),
                    first: Figure::Failed("no answer within 240s".into()),
                    warm: vec![
                        Figure::Failed("no answer within 240s".into()),
                        Figure::value(2.0),
                        Figure::NotApplicable("no listing tool".into()),
                    ],
                    peak_mb: None,
                },
            ],
            stalls: vec![
                ("tags", Figure::value(21.5)),
                (
                    "orphans",
                    Figure::Failed("the host wrote no stall report".into()),
                ),
            ],
        }],
    };
    Report {
        machine: Machine::gather(),
        plan,
        rows,
        vault,
        large,
        scale,
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
    let measure = |id: &str| {
        json["measures"]
            .as_array()
            .unwrap()
            .iter()
            .find(|measure| measure["id"] == id)
            .unwrap_or_else(|| panic!("no measure {id}"))
            .clone()
    };
    let recovery = measure("recovery");
    assert_eq!(
        recovery["figures"]["supergateway"],
        json!({ "failed": "never within 10 s" })
    );
    assert_eq!(
        recovery["ratio_obsmcp_to_peer"],
        json!({ "mcp-remote": 0.4 })
    );
    assert!(measure("search_through_plugin")["figures"]["mcp-remote"]["n/a"].is_string());
    assert!(
        measure("modern_call_overhead")["figures"]["mcp-remote"]["n/a"].is_string(),
        "the 2026 client rows are obsmcp's only"
    );

    let scale = &json["scale"][0];
    assert_eq!(scale["notes"], 100_000);
    assert_eq!(scale["sides"][0]["peak_mb"], 149.5);
    assert_eq!(
        scale["sides"][1]["first_search_ms"],
        json!({ "failed": "no answer within 240s" })
    );
    assert_eq!(
        scale["plugin_longest_stall_ms"]["tags"],
        json!({ "value": 21.5 })
    );

    let markdown = report.markdown();
    assert!(markdown.contains("| **never within 10 s** |"), "{markdown}");
    assert!(
        markdown.contains("| obsidian-mcp 2.0.1 | **no answer within 240s** | **no answer within 240s** | 2.00 ms | n/a: no listing tool | n/a |"),
        "{markdown}"
    );
    assert!(
        markdown.contains("| orphans | **the host wrote no stall report** |"),
        "{markdown}"
    );
    assert!(
        markdown.contains("### 100,000 notes of 2.4 KB"),
        "{markdown}"
    );
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
