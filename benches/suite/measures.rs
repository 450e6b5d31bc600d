//! Measures 1–7 for one bridge, against the obsmcp plugin hosted in Node on a copy of the fixture vault: spawn →
//! `initialize` answered; per-call latency paired with direct calls; throughput with several requests in flight over
//! the one stdio connection; peak memory; a 20 MB multi-byte note; recovery after the plugin's host is killed and
//! restarted on the same port; `tools/list` from a bridge started while the plugin is down.
//!
//! Every bridge runs the same steps against a fresh plugin host, one bridge after the other. Nothing here is timed
//! against a limit: a step that does not finish in its (generous) bound is reported as what happened.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::Plan;
use super::bridges::BridgeKind;
use super::direct::Direct;
use super::figure::Figure;
use super::modern::ModernFigures;
use super::stats::{Throughput, median, millis, peak_rss_mb};
use crate::support::bridge::{Bridge, is_error};
use crate::support::{PluginHost, TempHome, fixture_vault, free_port, write_plugin_data};

/// How long a restarted plugin gets before a bridge is said never to recover.
const RECOVERY_LIMIT: Duration = Duration::from_secs(10);

/// What one bridge scored on measures 1–7.
pub struct BridgeFigures {
    pub initialize_ms: Figure,
    pub tools_down: Figure,
    /// How many tools `tools/list` named with the plugin down, when it answered.
    pub tools_listed: Option<usize>,
    pub call_ms: Figure,
    pub direct_ms: Figure,
    pub overhead_ms: Figure,
    pub throughput: Figure,
    pub throughput_latency_ms: Figure,
    pub direct_throughput: Figure,
    pub direct_throughput_latency_ms: Figure,
    pub rss_steady_mb: Figure,
    /// Peak RSS of the bridge that carried the 20 MB note.
    pub rss_peak_mb: Figure,
    pub big_note: Figure,
    pub recovery_ms: Figure,
    /// Measures 1b and 3b, with a 2026-07-28 client (obsmcp only).
    pub modern: Option<ModernFigures>,
    /// Measures 1c and 1d, through the npm and uvx launchers (obsmcp only).
    pub launchers: Option<super::launchers::LauncherFigures>,
}

/// A temporary home with a copy of the fixture vault whose plugin settings name a free port.
pub struct Setup {
    home: TempHome,
    vault: PathBuf,
    port: u16,
}

impl Setup {
    pub fn new() -> Self {
        let home = TempHome::new();
        let vault = fixture_vault(&home);
        let port = free_port();
        write_plugin_data(&vault, port, super::bridges::TOKEN);
        Self { home, vault, port }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    pub fn host(&self) -> PluginHost {
        // Obsidian open a while: its index complete before anything is timed.
        PluginHost::start(
            &self.vault,
            self.port,
            super::bridges::TOKEN,
            &["--wait-indexed"],
        )
    }

    pub fn start(&self, kind: BridgeKind) -> Bridge {
        kind.start(&self.home, &self.vault, self.port)
    }

    /// What follows the program to run an obsmcp bridge on this setup's vault: listing every tool, as the peers in
    /// front of the plugin do (the default core list is measured by `tests/context/tools-list.mjs`).
    pub fn bridge_args(&self) -> Vec<String> {
        vec![
            "bridge".into(),
            "--vault".into(),
            self.vault.to_str().unwrap().into(),
            "--tools".into(),
            "all".into(),
        ]
    }

    /// Starts another program as a stdio server in this setup's home (a launcher of obsmcp).
    pub fn start_program(&self, program: &std::path::Path, args: &[&str]) -> Bridge {
        Bridge::start_program(&self.home, program, args)
    }
}

/// Runs measures 1–7 for `kind`; progress goes to stderr.
pub fn measure(setup: &Setup, kind: BridgeKind, plan: &Plan) -> BridgeFigures {
    let name = kind.title();
    let mut host = setup.host();

    let mut spawn_times = Vec::new();
    for _ in 0..plan.spawns {
        let started = Instant::now();
        let mut bridge = setup.start(kind);
        bridge.initialize();
        spawn_times.push(millis(started.elapsed()));
    }
    eprintln!(
        "[{name}] spawn -> initialize: {:.1} ms",
        median(&spawn_times)
    );

    let mut bridge = setup.start(kind);
    bridge.initialize();
    let direct = Direct::connect(setup.port);
    let sent = as_sent(kind, setup.port);
    for _ in 0..5 {
        assert!(!is_error(&bridge.call_tool("vault_info", json!({}))));
        sent.as_ref()
            .unwrap_or(&direct)
            .call("vault_info", &json!({}));
    }
    // Paired with the same call made straight to the plugin the way the bridge makes it, so that the difference is
    // what the bridge adds and drift in the machine's load hits both alike; the order flips every pair, so neither
    // side always runs on a warmer plugin.
    let baseline = sent.as_ref().unwrap_or(&direct);
    let (mut through, mut straight, mut differences) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..plan.calls {
        let time_direct = || {
            let started = Instant::now();
            baseline.call("vault_info", &json!({}));
            millis(started.elapsed())
        };
        let direct_first = round % 2 == 0;
        let direct_ms = if direct_first { time_direct() } else { 0.0 };
        let started = Instant::now();
        let answer = bridge.call_tool("vault_info", json!({}));
        let bridge_ms = millis(started.elapsed());
        let direct_ms = if direct_first {
            direct_ms
        } else {
            time_direct()
        };
        assert!(!is_error(&answer), "[{name}] {answer}");
        through.push(bridge_ms);
        straight.push(direct_ms);
        differences.push(bridge_ms - direct_ms);
    }
    eprintln!(
        "[{name}] per call: {:.2} ms, direct {:.2} ms, overhead {:.2} ms",
        median(&through),
        median(&straight),
        median(&differences)
    );

    // In two halves each, direct and bridge in the order A B B A, for the same reason.
    let half = plan.throughput_calls / 2;
    let direct_first = direct.throughput("vault_info", half, plan.in_flight);
    let bridged = in_flight(&mut bridge, half, plan.in_flight).merge(in_flight(
        &mut bridge,
        half,
        plan.in_flight,
    ));
    let direct_burst = direct_first.merge(direct.throughput("vault_info", half, plan.in_flight));
    eprintln!(
        "[{name}] {} in flight: {:.0} calls/s (median {:.1} ms); direct {:.0} calls/s",
        plan.in_flight,
        bridged.calls_per_second(),
        bridged.median_latency_ms(),
        direct_burst.calls_per_second()
    );
    let rss_steady_mb = rss(&bridge);

    // On a bridge of its own: a bridge that chokes on it must not spoil the recovery measure.
    let mut big = setup.start(kind);
    big.initialize();
    let big_note = big_note(setup, &mut big, kind);
    eprintln!("[{name}] 20 MB note: {}", big_note.cell("ms"));
    let rss_peak_mb = rss(&big);
    drop(big);

    host.guard.kill();
    std::thread::sleep(Duration::from_millis(300));
    host = setup.host();
    let recovery_ms = recovery(&mut bridge);
    eprintln!("[{name}] recovery: {}", recovery_ms.cell("ms"));
    drop(bridge);
    drop(sent);
    drop(direct);
    host.stop();

    let (tools_down, tools_listed) = tools_while_down(setup, kind);
    eprintln!(
        "[{name}] tools/list with the plugin down: {}",
        tools_down.cell("ms")
    );

    BridgeFigures {
        initialize_ms: Figure::value(median(&spawn_times)),
        tools_down,
        tools_listed,
        call_ms: Figure::value(median(&through)),
        direct_ms: Figure::value(median(&straight)),
        overhead_ms: Figure::value(median(&differences)),
        throughput: Figure::value(bridged.calls_per_second()),
        throughput_latency_ms: Figure::value(bridged.median_latency_ms()),
        direct_throughput: Figure::value(direct_burst.calls_per_second()),
        direct_throughput_latency_ms: Figure::value(direct_burst.median_latency_ms()),
        rss_steady_mb,
        rss_peak_mb,
        big_note,
        recovery_ms,
        modern: None,
        launchers: None,
    }
}

/// The direct client that sends the plugin what `kind` sends it: obsmcp speaks 2026-07-28 to a plugin that offers it
/// (one stateless request per call); the peers open a 2025 session, which is measure 3's `direct` itself (`None`).
fn as_sent(kind: BridgeKind, port: u16) -> Option<Direct> {
    if !matches!(kind, BridgeKind::Obsmcp) {
        return None;
    }
    // A plugin of the 2025 era only (an older build, when the suite compares builds) is spoken to in a session.
    Some(Direct::stateless(port))
        .filter(|direct| direct.answer("vault_info", &json!({}))["result"].is_object())
}

fn rss(bridge: &Bridge) -> Figure {
    match peak_rss_mb(bridge.guard.pid()) {
        Some(megabytes) => Figure::value(megabytes),
        None => Figure::Failed("the bridge had exited".into()),
    }
}

/// `total` calls with `in_flight` requests kept outstanding on the bridge's stdio: each answer sends the next one.
fn in_flight(bridge: &mut Bridge, total: usize, in_flight: usize) -> Throughput {
    let started = Instant::now();
    let mut pending: HashMap<String, Instant> = HashMap::new();
    let mut latencies = Vec::with_capacity(total);
    let mut sent = 0;
    let call = json!({ "name": "vault_info", "arguments": {} });
    while sent < total.min(in_flight) {
        let id = bridge.send_request("tools/call", call.clone());
        pending.insert(id.to_string(), Instant::now());
        sent += 1;
    }
    while latencies.len() < total {
        let answer = bridge
            .wait_message(Duration::from_secs(30), |message| {
                message.get("method").is_none()
                    && message
                        .get("id")
                        .is_some_and(|id| pending.contains_key(&id.to_string()))
            })
            .expect("an answer within 30 s");
        assert!(
            answer.get("result").is_some() && !is_error(&answer),
            "{answer}"
        );
        let sent_at = pending.remove(&answer["id"].to_string()).unwrap();
        latencies.push(millis(sent_at.elapsed()));
        if sent < total {
            let id = bridge.send_request("tools/call", call.clone());
            pending.insert(id.to_string(), Instant::now());
            sent += 1;
        }
    }
    Throughput::new(latencies, started.elapsed())
}

/// Writes a 20 MB multi-byte note through the bridge and compares the file with what was sent. Written from a thread:
/// a bridge that stops reading must not stall the suite.
fn big_note(setup: &Setup, bridge: &mut Bridge, kind: BridgeKind) -> Figure {
    let unit = "é✓日本語🙂";
    let content = unit.repeat(20 * 1024 * 1024 / unit.len() + 1);
    let name = format!("Big {}.md", kind.key());
    let id = json!("big");
    let message = json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": { "name": "create_note", "arguments": { "path": name, "content": content, "if_exists": "overwrite" } } });
    let started = Instant::now();
    let written = bridge.send_in_background(&message);
    let figure = match written.recv_timeout(Duration::from_secs(30)) {
        Err(RecvTimeoutError::Timeout) => {
            Figure::Failed("had not read the 20 MB line from stdin after 30 s".into())
        }
        Err(RecvTimeoutError::Disconnected) => match bridge.guard.wait_exit(Duration::from_secs(2))
        {
            Some(status) => Figure::Failed(format!("exited ({status})")),
            None => Figure::Failed("closed its stdin".into()),
        },
        Ok(stdin) => {
            bridge.restore_stdin(stdin);
            match bridge.wait_message(Duration::from_secs(60), |message| {
                message.get("id") == Some(&id)
            }) {
                Some(answer) if is_error(&answer) || answer.get("result").is_none() => {
                    Figure::Failed(format!(
                        "answered {}",
                        answer.to_string().chars().take(100).collect::<String>()
                    ))
                }
                Some(_) => {
                    let elapsed = millis(started.elapsed());
                    let stored = std::fs::read(setup.vault.join(&name)).unwrap_or_default();
                    if stored == content.as_bytes() {
                        Figure::noted(elapsed, "intact")
                    } else {
                        Figure::Failed(format!(
                            "corrupted: {} bytes stored of {}",
                            stored.len(),
                            content.len()
                        ))
                    }
                }
                None => Figure::Failed("no answer in 60 s".into()),
            }
        }
    };
    // Every bridge meets the same vault: the plugin's next start must not read this one's big note.
    let _ = std::fs::remove_file(setup.vault.join(&name)); // Absent when the write failed; nothing to undo then.
    figure
}

/// From the restarted plugin listening to the first call answered by it (not an error, not from disk).
fn recovery(bridge: &mut Bridge) -> Figure {
    if bridge.guard.child.try_wait().ok().flatten().is_some() {
        return Figure::Failed("the bridge had exited".into());
    }
    let reopened = Instant::now();
    let mut last = String::from("no answer");
    while reopened.elapsed() < RECOVERY_LIMIT {
        let id = bridge.send_request(
            "tools/call",
            json!({ "name": "vault_info", "arguments": {} }),
        );
        let left = RECOVERY_LIMIT.saturating_sub(reopened.elapsed());
        match bridge.wait_message(left, |message| message.get("id") == Some(&id)) {
            Some(answer) if answered_by_the_plugin(&answer) => {
                return Figure::value(millis(reopened.elapsed()));
            }
            Some(answer) => {
                last = summary(&answer);
                std::thread::sleep(Duration::from_millis(20));
            }
            None if bridge.guard.child.try_wait().ok().flatten().is_some() => {
                return Figure::Failed("exited after the restart".into());
            }
            None => last = "a call left unanswered".into(),
        }
    }
    Figure::Failed(format!(
        "never within {} s (last: {last})",
        RECOVERY_LIMIT.as_secs()
    ))
}

fn answered_by_the_plugin(answer: &Value) -> bool {
    answer.get("result").is_some()
        && !is_error(answer)
        && answer["result"]["_meta"]["obsmcp/source"] != json!("disk")
}

/// A short account of an answer that was not a success.
fn summary(answer: &Value) -> String {
    let text = if let Some(error) = answer.get("error") {
        format!(
            "error {}",
            error["message"].as_str().unwrap_or("without a message")
        )
    } else if answer["result"]["_meta"]["obsmcp/source"] == json!("disk") {
        "answered from disk".into()
    } else {
        format!(
            "tool error {}",
            answer["result"]["content"][0]["text"]
                .as_str()
                .unwrap_or("")
        )
    };
    text.chars().take(90).collect()
}

/// A fresh bridge started while the plugin is down: how `initialize` and then `tools/list` go, and how many tools
/// were listed.
fn tools_while_down(setup: &Setup, kind: BridgeKind) -> (Figure, Option<usize>) {
    let started = Instant::now();
    let mut bridge = setup.start(kind);
    let id = bridge.send_request(
        "initialize",
        json!({ "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": { "name": "bench", "version": "1" } }),
    );
    let answer = bridge.wait_message(Duration::from_secs(15), |message| {
        message.get("id") == Some(&id)
    });
    let exited = |bridge: &mut Bridge| {
        bridge
            .guard
            .wait_exit(Duration::from_secs(1))
            .map(|status| {
                Figure::Failed(format!(
                    "exited ({status}) {:.0} ms after spawn, no list",
                    millis(started.elapsed())
                ))
            })
    };
    let figure = match answer {
        None => exited(&mut bridge)
            .unwrap_or_else(|| Figure::Failed("no initialize answer in 15 s".into())),
        Some(answer) if answer.get("result").is_none() => exited(&mut bridge)
            .unwrap_or_else(|| Figure::Failed(format!("initialize refused: {}", summary(&answer)))),
        Some(_) => {
            bridge.notify("notifications/initialized", json!({}));
            let listed = Instant::now();
            let id = bridge.send_request("tools/list", json!({}));
            match bridge.wait_message(Duration::from_secs(15), |message| {
                message.get("id") == Some(&id)
            }) {
                Some(answer) => match answer["result"]["tools"].as_array() {
                    Some(tools) => {
                        let figure = Figure::noted(
                            millis(listed.elapsed()),
                            format!("{} tools", tools.len()),
                        );
                        return (figure, Some(tools.len()));
                    }
                    None => Figure::Failed(format!(
                        "after {:.0} ms: {}",
                        millis(listed.elapsed()),
                        summary(&answer)
                    )),
                },
                None => exited(&mut bridge)
                    .unwrap_or_else(|| Figure::Failed("no tools/list answer in 15 s".into())),
            }
        }
    };
    (figure, None)
}
