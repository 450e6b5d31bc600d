//! The rows of the report, one per measure in the order the tables show them, each with its DESIGN.md target where
//! there is one. One table on purpose: the measures' numbering and wording read best in one list.

use super::*;

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
    let modern = |pick: fn(&ModernFigures) -> &Figure| {
        bridges
            .iter()
            .map(|figures| {
                figures.modern.as_ref().map_or_else(
                    || Figure::NotApplicable("measured for obsmcp only".into()),
                    |modern| pick(modern).clone(),
                )
            })
            .collect()
    };
    let launched = |pick: fn(&LauncherFigures) -> &Figure| {
        bridges
            .iter()
            .map(|figures| {
                figures.launchers.as_ref().map_or_else(
                    || Figure::NotApplicable("measured for obsmcp only".into()),
                    |launchers| pick(launchers).clone(),
                )
            })
            .collect()
    };
    let node = obsmcp
        .launchers
        .as_ref()
        .map_or_else(String::new, |launchers| {
            format!(", Node {}", launchers.node)
        });
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
            "spawn_to_discover",
            format!(
                "1b. spawn → `server/discover` answered, a 2026-07-28 client (median of {})",
                plan.spawns
            ),
            "ms",
            modern(|figures| &figures.discover_ms),
        ),
        Row::new(
            "spawn_npm_launcher",
            format!(
                "1c. the same through the npm package's launcher (the `obsmcp` command an npm install puts on PATH{node}; median of {})",
                plan.spawns
            ),
            "ms",
            launched(|figures| &figures.npm_ms),
        ),
        Row::new(
            "spawn_npm_launcher_added",
            "  what the npm launcher adds over the bare binary (paired; Node's own start)",
            "ms",
            launched(|figures| &figures.npm_added_ms),
        )
        .target("≤ 30 ms", 30.000_1, true),
        Row::new(
            "spawn_npm_launcher_node22",
            format!(
                "1c′. the same launcher on Node 22, which replaces itself with the binary (median of {})",
                plan.spawns
            ),
            "ms",
            launched(|figures| &figures.npm22_ms),
        ),
        Row::new(
            "spawn_npm_launcher_node22_added",
            "  what it adds over the bare binary on Node 22 (paired)",
            "ms",
            launched(|figures| &figures.npm22_added_ms),
        )
        .target("≤ 30 ms", 30.000_1, true),
        Row::new(
            "spawn_npx",
            format!(
                "1c″. the same through `npx obsmcp`: npm's own command, then that launcher (median of {})",
                plan.spawns
            ),
            "ms",
            launched(|figures| &figures.npx_ms),
        ),
        Row::new(
            "spawn_npx_added",
            "  what npx adds over the bare binary (paired; npm's start, then Node's)",
            "ms",
            launched(|figures| &figures.npx_added_ms),
        )
        .target("≤ 30 ms", 30.000_1, true),
        Row::new(
            "spawn_uvx",
            format!(
                "1d. the same through `uvx` running the PyPI wheel from its cache (median of {})",
                plan.spawns
            ),
            "ms",
            launched(|figures| &figures.uvx_ms),
        ),
        Row::new(
            "spawn_uvx_added",
            "  what uvx adds over the bare binary (paired)",
            "ms",
            launched(|figures| &figures.uvx_added_ms),
        )
        .target("≤ 30 ms", 30.000_1, true),
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
            "  the same call straight to the plugin as the bridge sends it (obsmcp: one 2026-07-28 request; the peers: a 2025 session), paired",
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
            "modern_call_latency",
            format!(
                "3b. the same call, a 2026-07-28 client (stateless; median of {})",
                plan.calls
            ),
            "ms",
            modern(|figures| &figures.call_ms),
        ),
        Row::new(
            "modern_call_overhead",
            "  overhead per call over a direct 2025 session (what the peers' overhead is measured against)",
            "ms",
            modern(|figures| &figures.overhead_ms),
        )
        .target("< 1 ms", 1.0, true),
        Row::new(
            "modern_direct_call",
            "  the call straight to the plugin as one 2026-07-28 request, paired",
            "ms",
            modern(|figures| &figures.direct_stateless_ms),
        )
        .baseline(),
        Row::new(
            "modern_call_overhead_stateless",
            "  overhead per call over that stateless request (what the bridge adds to what it sends the plugin)",
            "ms",
            modern(|figures| &figures.overhead_stateless_ms),
        ),
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
            "offline_saved",
            "  the next bridge: spawn → first search answered, from the saved index",
            "ms",
            only_obsmcp(Figure::value(vault.offline_saved_ms), no_offline),
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
