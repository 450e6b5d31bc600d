//! The bounded fault soak: the real `obsmcp bridge --vault` under concurrent callers while a chaos loop kills
//! (SIGKILL, SIGTERM), freezes (SIGSTOP … SIGCONT) and reloads (SIGHUP) the plugin host, and a chaos proxy between
//! the two slows its answers down or replaces them with garbage. It stops by itself, touches only loopback and a
//! temporary home, and ends with figures and the checks of the bridge's contract: the bridge never exits, every call is
//! answered in time (a result, or `isError` within `--call-timeout` + `--connect-wait` + slack), no answer reaches the
//! wrong request, stdout holds only JSON-RPC, memory stays level, and no write made with `expected_hash` lands twice.
//!
//! The host is given its own config folder (`--config-dir`), so the vault's `.obsidian/plugins/obsmcp/data.json`,
//! which the bridge reads, can name the proxy's port while the host listens on another: the bridge runs exactly as
//! users run it, offline fallback included.
//!
//! Ignored in the default test run (a minute is too long for `cargo test`, and a few seconds would prove little);
//! `.ci/run` runs a 60 s version, `tests/soak/run` a 5 min one. `OBSMCP_SOAK_SECS` sets the duration,
//! `OBSMCP_SOAK_SEED` replays a run's chaos sequence (timings differ from run to run, the choices do not).

mod client;
mod proxy;
mod rng;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{
    ChildGuard, TempHome, fixture_vault, free_port, line_channel, rss_kib, signal,
    write_plugin_data,
};
use client::Client;
use proxy::{ChaosProxy, Mode};
use rng::Rng;

const TOKEN: &str = "soak-token-0123456789abcdef0123456789abcdef";
/// The host's config folder; the bridge reads the vault's `.obsidian`, which names the proxy.
const HOST_CONFIG_DIR: &str = ".obsmcp-host";
const CALLERS: usize = 6;
const CALL_TIMEOUT: Duration = Duration::from_secs(4);
const CONNECT_WAIT: Duration = Duration::from_secs(2);
/// Scheduling noise on a busy two-core machine: a call answered later than the limits plus this is a failure.
const SLACK: Duration = Duration::from_secs(3);

/// The plugin host, restarted on the same port as often as the chaos loop likes.
struct Host {
    vault: PathBuf,
    port: u16,
    guard: Option<ChildGuard>,
    lines: Option<Receiver<String>>,
}

impl Host {
    fn start(&mut self) {
        for attempt in 0..5 {
            let mut command = Command::new("node");
            command
                .arg(crate::support::repo_root().join("obsidian-plugin/test/host.mjs"))
                .arg("--vault")
                .arg(&self.vault)
                .args(["--port", &self.port.to_string(), "--token", TOKEN])
                .args(["--config-dir", HOST_CONFIG_DIR])
                .stdin(Stdio::null())
                .stdout(Stdio::piped());
            let mut guard = ChildGuard::spawn("plugin host", command);
            // Kept open for the host's life: a reload prints `listening on` again into it.
            let lines = line_channel(guard.child.stdout.take().unwrap());
            if self.listening(&lines) {
                self.guard = Some(guard);
                self.lines = Some(lines);
                return;
            }
            eprintln!(
                "soak: the host did not start (attempt {}): {}",
                attempt + 1,
                guard.stderr()
            );
            drop(guard);
            thread::sleep(Duration::from_millis(300));
        }
        panic!("the plugin host would not start on port {}", self.port);
    }

    fn listening(&self, lines: &Receiver<String>) -> bool {
        matches!(lines.recv_timeout(Duration::from_secs(30)), Ok(line) if line.trim() == format!("listening on {}", self.port))
    }

    fn pid(&self) -> u32 {
        self.guard.as_ref().expect("the host runs").pid()
    }

    /// Sends `signal_name` and waits for the exit; a host that outlives SIGTERM for 5 s is killed.
    fn end(&mut self, signal_name: &str) {
        let mut guard = self.guard.take().expect("the host runs");
        signal(guard.pid(), signal_name);
        if guard.wait_exit(Duration::from_secs(5)).is_none() {
            eprintln!("soak: the host outlived SIG{signal_name} for 5 s; killing it");
            guard.kill();
        }
        self.lines = None;
    }

    /// A plugin reload inside the running host (SIGHUP), waited for.
    fn reload(&mut self) {
        signal(self.pid(), "HUP");
        let lines = self.lines.take().expect("the host runs");
        assert!(
            self.listening(&lines),
            "the host did not come back from a reload"
        );
        self.lines = Some(lines);
    }
}

/// The outcome of one caller's calls.
#[derive(Default)]
struct Results {
    calls: u64,
    ok: BTreeMap<&'static str, u64>,
    errors: BTreeMap<String, u64>,
    /// Broken rules, each described.
    failures: Vec<String>,
    latencies: Vec<Duration>,
    /// The marker of every write attempted, and what its answer said.
    writes: Vec<(String, WriteOutcome)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum WriteOutcome {
    /// Answered with success: the marker must be in the note exactly once.
    Applied,
    /// Answered with an error that says nothing was written (conflict, or never sent): the marker must be absent.
    NotApplied,
    /// Lost, timed out, refused by HTTP or not answered: at most once.
    Unknown,
}

/// What the bridge's answer to a `tools/call` says.
enum Answer {
    Ok(String, bool),
    ToolError(String, String),
    Protocol(String),
}

fn classify(answer: &Value) -> Answer {
    if let Some(error) = answer.get("error") {
        return Answer::Protocol(error.to_string());
    }
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    if answer["result"]["isError"] == json!(true) {
        let kind = if text.starts_with("conflict:") {
            "conflict (plugin)"
        } else if text.contains("is not reachable") {
            "unreachable"
        } else if text.contains("was lost during this call") {
            "lost"
        } else if text.contains("did not answer within") {
            "timeout"
        } else if text.contains("refused the call") {
            "rejected"
        } else {
            "other"
        };
        return Answer::ToolError(kind.to_string(), text);
    }
    let from_disk = answer["result"]["_meta"]["obsmcp/source"] == "disk";
    Answer::Ok(text, from_disk)
}

fn note_path(caller: usize) -> String {
    format!("Soak/caller-{caller}.md")
}

fn owner_line(caller: usize) -> String {
    format!("owner: caller-{caller}")
}

/// The `sha256=` of a `read_note` header.
fn hash_of(text: &str) -> Option<String> {
    let start = text.lines().next()?.find("sha256=")? + "sha256=".len();
    text.get(start..start + 64).map(str::to_string)
}

struct Caller {
    index: usize,
    vault: PathBuf,
    client: Arc<Client>,
    stop_at: Instant,
    bound: Duration,
    seed: u64,
}

impl Caller {
    fn run(self) -> Results {
        let mut rng = Rng::new(self.seed ^ (self.index as u64 + 1).wrapping_mul(0x1234_5678_9ABC));
        let mut results = Results::default();
        let mut sequence = 0;
        while Instant::now() < self.stop_at {
            sequence += 1;
            let id = format!("c{}-{sequence}", self.index);
            match rng.below(100) {
                0..45 => {
                    if let Some(hash) = self.read(&id, &mut results) {
                        self.append(&format!("{id}w"), &hash, &mut results);
                    }
                }
                45..75 => drop(self.read(&id, &mut results)),
                75..85 => {
                    if let Some(answer) = self.call(
                        &id,
                        "tools/call",
                        json!({ "name": "obsidian_status", "arguments": {} }),
                        &mut results,
                    ) {
                        let report = &answer["result"]["structuredContent"];
                        if report["state"].is_string() && report["catalog"]["tools"].is_u64() {
                            *results.ok.entry("status").or_default() += 1;
                        } else {
                            results
                                .failures
                                .push(format!("{id}: the status tool answered {answer}"));
                        }
                    }
                }
                85..93 => {
                    if let Some(answer) = self.call(&id, "tools/list", json!({}), &mut results) {
                        let tools = answer["result"]["tools"].as_array().map_or(0, Vec::len);
                        if tools > 20 {
                            *results.ok.entry("tools/list").or_default() += 1;
                        } else {
                            results
                                .failures
                                .push(format!("{id}: tools/list answered {answer}"));
                        }
                    }
                }
                _ => {
                    if let Some(answer) = self.call(&id, "ping", json!({}), &mut results) {
                        if answer["result"] == json!({}) {
                            *results.ok.entry("ping").or_default() += 1;
                        } else {
                            results
                                .failures
                                .push(format!("{id}: ping answered {answer}"));
                        }
                    }
                }
            }
            thread::sleep(rng.millis(0, 80));
        }
        results
    }

    /// One request; `None` (with the failure recorded) when it was not answered within the bound.
    fn call(&self, id: &str, method: &str, params: Value, results: &mut Results) -> Option<Value> {
        results.calls += 1;
        // Wait past the bound, so a late answer is measured rather than left for the tap to call stray.
        let Some((answer, latency)) =
            self.client
                .request(id, method, params, self.bound + Duration::from_secs(30))
        else {
            results.failures.push(format!(
                "{id} ({method}): no answer at all within {:?}",
                self.bound + Duration::from_secs(30)
            ));
            return None;
        };
        results.latencies.push(latency);
        if latency > self.bound {
            results.failures.push(format!(
                "{id} ({method}): answered after {latency:?}, over the bound of {:?}: {}",
                self.bound,
                short(&answer)
            ));
        }
        Some(answer)
    }

    /// Reads the caller's own note; the hash when the read succeeded and was the caller's note.
    fn read(&self, id: &str, results: &mut Results) -> Option<String> {
        let path = note_path(self.index);
        let answer = self.call(
            id,
            "tools/call",
            json!({ "name": "read_note", "arguments": { "path": path } }),
            results,
        )?;
        match classify(&answer) {
            Answer::Ok(text, from_disk) => {
                let header = text.lines().next().unwrap_or_default();
                let own = header.contains(&format!("path=\"{path}\""))
                    && text.lines().nth(2) == Some(owner_line(self.index).as_str());
                if !own && from_disk && self.torn(&text) {
                    // The plugin writes a note as Obsidian does (truncate, then write), so a read from disk while the
                    // bridge thought Obsidian gone but it was still finishing a write sees part of the note. Counted,
                    // not failed: it is the writer's, and nothing the bridge can prevent; a misrouted answer would
                    // name another note or owner and still fail.
                    *results
                        .ok
                        .entry("read_note (from disk, torn by a plugin write)")
                        .or_default() += 1;
                    return None;
                }
                if !own {
                    results.failures.push(format!(
                        "{id}: the answer is not about {path}: {}",
                        short(&answer)
                    ));
                    return None;
                }
                *results
                    .ok
                    .entry(if from_disk {
                        "read_note (from disk)"
                    } else {
                        "read_note"
                    })
                    .or_default() += 1;
                hash_of(&text)
            }
            Answer::ToolError(kind, text) => {
                self.tool_error(id, kind, &text, results);
                None
            }
            Answer::Protocol(error) => {
                results.failures.push(format!(
                    "{id}: a protocol error instead of a tool result: {error}"
                ));
                None
            }
        }
    }

    /// Whether a read's content is a beginning of the caller's note as it is now (notes only ever grow).
    fn torn(&self, text: &str) -> bool {
        let header = text.lines().next().unwrap_or_default();
        let content = &text[(header.len() + 1).min(text.len())..];
        let now =
            std::fs::read_to_string(self.vault.join(note_path(self.index))).unwrap_or_default();
        header.contains(&format!("path=\"{}\"", note_path(self.index))) && now.starts_with(content)
    }

    /// Appends a unique marker line with `expected_hash`.
    fn append(&self, id: &str, hash: &str, results: &mut Results) {
        let path = note_path(self.index);
        let marker = format!("<{id}>");
        let arguments =
            json!({ "path": path, "content": format!("marker {marker}\n"), "expected_hash": hash });
        let Some(answer) = self.call(
            id,
            "tools/call",
            json!({ "name": "append", "arguments": arguments }),
            results,
        ) else {
            results.writes.push((marker, WriteOutcome::Unknown));
            return;
        };
        let outcome = match classify(&answer) {
            Answer::Ok(text, _) => {
                let written: Value = serde_json::from_str(&text).unwrap_or_default();
                if written["path"] != json!(path) {
                    results.failures.push(format!(
                        "{id}: the answer is not about {path}: {}",
                        short(&answer)
                    ));
                }
                *results.ok.entry("append").or_default() += 1;
                WriteOutcome::Applied
            }
            Answer::ToolError(kind, text) => {
                let outcome = match kind.as_str() {
                    "conflict (plugin)" | "unreachable" => WriteOutcome::NotApplied,
                    _ => WriteOutcome::Unknown,
                };
                self.tool_error(id, kind, &text, results);
                outcome
            }
            Answer::Protocol(error) => {
                results.failures.push(format!(
                    "{id}: a protocol error instead of a tool result: {error}"
                ));
                WriteOutcome::Unknown
            }
        };
        results.writes.push((marker, outcome));
    }

    fn tool_error(&self, id: &str, kind: String, text: &str, results: &mut Results) {
        if kind == "other" {
            results
                .failures
                .push(format!("{id}: an unexpected tool error: {text}"));
        }
        *results.errors.entry(kind).or_default() += 1;
    }
}

fn short(answer: &Value) -> String {
    let text = answer.to_string();
    text.chars().take(400).collect()
}

/// How many file descriptors a process has open.
fn open_files(pid: u32) -> Option<usize> {
    Some(std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.count())
}

fn median(values: &mut [u64]) -> u64 {
    values.sort_unstable();
    values.get(values.len() / 2).copied().unwrap_or(0)
}

fn seconds_from_env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .map(|value| {
            value
                .parse()
                .unwrap_or_else(|_| panic!("{name}={value} is not a number of seconds"))
        })
        .unwrap_or(default)
}

fn seed() -> u64 {
    match std::env::var("OBSMCP_SOAK_SEED") {
        Ok(value) => value
            .parse()
            .unwrap_or_else(|_| panic!("OBSMCP_SOAK_SEED={value} is not a number")),
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64,
    }
}

/// Creates each caller's note, whose second line names its owner.
fn write_notes(vault: &Path) {
    std::fs::create_dir_all(vault.join("Soak")).unwrap();
    for caller in 0..CALLERS {
        std::fs::write(
            vault.join(note_path(caller)),
            format!("# Soak note\n{}\n", owner_line(caller)),
        )
        .unwrap();
    }
}

#[test]
#[ignore = "the fault soak runs for minutes: OBSMCP_SOAK_SECS=60 cargo test --test it soak -- --ignored --nocapture"]
fn bridge_survives_a_bounded_fault_soak() {
    let duration = Duration::from_secs(seconds_from_env("OBSMCP_SOAK_SECS", 300));
    let seed = seed();
    // `OBSMCP_SOAK_CHAOS=off`: the same callers without faults, a baseline for the memory figures.
    let chaos = std::env::var("OBSMCP_SOAK_CHAOS").as_deref() != Ok("off");
    eprintln!(
        "soak: seed {seed} (replay with OBSMCP_SOAK_SEED={seed}), {duration:?}, {CALLERS} callers"
    );
    let home = TempHome::new();
    let vault = fixture_vault(&home);
    write_notes(&vault);
    let host_port = free_port();
    let proxy = ChaosProxy::new(free_port(), host_port, seed ^ 0xC4A0_5EED);
    write_plugin_data(&vault, proxy.port, TOKEN);
    let mut host = Host {
        vault: vault.clone(),
        port: host_port,
        guard: None,
        lines: None,
    };
    host.start();
    proxy.open();

    let mut command = Command::new(env!("CARGO_BIN_EXE_obsmcp"));
    command
        .arg("bridge")
        .arg("--vault")
        .arg(&vault)
        .args(["--call-timeout", &CALL_TIMEOUT.as_secs().to_string()])
        .args(["--connect-wait", &CONNECT_WAIT.as_secs().to_string()])
        .args(["--log-level", "warn"])
        .env("HTTP_PROXY", "http://127.0.0.1:9")
        .env("RUST_BACKTRACE", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    for (name, value) in home.env() {
        command.env(name, value);
    }
    let mut bridge = ChildGuard::spawn("obsmcp bridge", command);
    let bridge_pid = bridge.pid();
    let client = Arc::new(Client::new(
        bridge.child.stdin.take().unwrap(),
        bridge.child.stdout.take().unwrap(),
    ));
    let initialize = json!({ "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "obsmcp-soak", "version": "1" } });
    let (answer, _) = client
        .request("init", "initialize", initialize, Duration::from_secs(10))
        .expect("initialize is answered");
    assert_eq!(answer["result"]["serverInfo"]["name"], "obsmcp", "{answer}");
    client.notify("notifications/initialized", json!({}));

    let started = Instant::now();
    let stop_at = started + duration;
    let bound = CALL_TIMEOUT + CONNECT_WAIT + SLACK;
    let rss: Arc<Mutex<Vec<(f64, u64)>>> = Arc::default();
    // Open file descriptors beside memory: a leaked connection or task holding one shows here first.
    let fds: Arc<Mutex<Vec<usize>>> = Arc::default();
    let sampler = {
        let rss = Arc::clone(&rss);
        let fds = Arc::clone(&fds);
        thread::spawn(move || {
            while Instant::now() < stop_at {
                match rss_kib(bridge_pid) {
                    Some(kib) => rss
                        .lock()
                        .unwrap()
                        .push((started.elapsed().as_secs_f64(), kib)),
                    None => return false,
                }
                if let Some(open) = open_files(bridge_pid) {
                    fds.lock().unwrap().push(open);
                }
                thread::sleep(Duration::from_secs(1));
            }
            true
        })
    };
    let callers: Vec<_> = (0..CALLERS)
        .map(|index| {
            let caller = Caller {
                index,
                vault: vault.clone(),
                client: Arc::clone(&client),
                stop_at,
                bound,
                seed,
            };
            thread::spawn(move || caller.run())
        })
        .collect();

    // The chaos loop, on this thread: calm, one event, calm, … until the end.
    let mut rng = Rng::new(seed);
    let mut events: BTreeMap<&'static str, u64> = BTreeMap::new();
    let mut bridge_exited = None;
    while Instant::now() < stop_at {
        thread::sleep(
            rng.millis(300, 2500)
                .min(stop_at.saturating_duration_since(Instant::now())),
        );
        if let Some(status) = bridge.child.try_wait().unwrap() {
            bridge_exited = Some(status);
            break;
        }
        if Instant::now() >= stop_at {
            break;
        }
        if !chaos {
            continue;
        }
        let event = match rng.below(100) {
            0..14 => {
                proxy.close();
                host.end("KILL");
                thread::sleep(rng.millis(0, 1500));
                host.start();
                proxy.open();
                "SIGKILL, restart"
            }
            14..28 => {
                proxy.close();
                host.end("TERM");
                thread::sleep(rng.millis(0, 1500));
                host.start();
                proxy.open();
                "SIGTERM, restart"
            }
            28..40 => {
                signal(host.pid(), "STOP");
                thread::sleep(rng.millis(300, 12000));
                signal(host.pid(), "CONT");
                "SIGSTOP … SIGCONT"
            }
            40..46 => {
                host.reload();
                "plugin reload (SIGHUP)"
            }
            46..68 => {
                let delay = rng.millis(100, 6000);
                let trickle = rng.below(3) == 0;
                proxy.set_mode(Mode::Slow { delay, trickle });
                thread::sleep(rng.millis(1000, 6000));
                proxy.set_mode(Mode::Pass);
                "slow answers"
            }
            _ => {
                let percent = 30 + rng.below(71);
                proxy.set_mode(Mode::Garbage { percent });
                thread::sleep(rng.millis(300, 3000));
                proxy.set_mode(Mode::Pass);
                "garbage answers"
            }
        };
        *events.entry(event).or_default() += 1;
    }
    proxy.set_mode(Mode::Pass);
    let mut results = Results::default();
    for caller in callers {
        let part = caller.join().expect("a caller panicked");
        results.calls += part.calls;
        for (kind, count) in part.ok {
            *results.ok.entry(kind).or_default() += count;
        }
        for (kind, count) in part.errors {
            *results.errors.entry(kind).or_default() += count;
        }
        results.failures.extend(part.failures);
        results.latencies.extend(part.latencies);
        results.writes.extend(part.writes);
    }
    let sampler_saw_it_alive = sampler.join().unwrap();
    let elapsed = started.elapsed();

    // After the chaos, the system must come back: a read served by the plugin within a few seconds.
    let mut recovered = false;
    let recovery = Instant::now();
    for attempt in 0.. {
        if recovery.elapsed() > Duration::from_secs(20) {
            break;
        }
        let arguments = json!({ "name": "read_note", "arguments": { "path": note_path(0) } });
        if let Some((answer, _)) =
            client.request(&format!("final-{attempt}"), "tools/call", arguments, bound)
            && matches!(classify(&answer), Answer::Ok(_, false))
        {
            recovered = true;
            break;
        }
        thread::sleep(Duration::from_millis(200));
    }

    // Writes: every marker at most once; answered OK exactly once; "nothing was written" never.
    let mut notes = String::new();
    for caller in 0..CALLERS {
        notes.push_str(&std::fs::read_to_string(vault.join(note_path(caller))).unwrap());
    }
    let mut write_counts: BTreeMap<&'static str, u64> = BTreeMap::new();
    for (marker, outcome) in &results.writes {
        let found = notes.matches(marker.as_str()).count();
        *write_counts
            .entry(match outcome {
                WriteOutcome::Applied => "answered OK",
                WriteOutcome::NotApplied => "answered: nothing written",
                WriteOutcome::Unknown => "outcome unknown",
            })
            .or_default() += 1;
        if *outcome == WriteOutcome::Unknown && found == 1 {
            *write_counts
                .entry("outcome unknown, found applied")
                .or_default() += 1;
        }
        let wrong = match outcome {
            WriteOutcome::Applied => found != 1,
            WriteOutcome::NotApplied => found != 0,
            WriteOutcome::Unknown => found > 1,
        };
        if wrong {
            results.failures.push(format!(
                "write {marker} answered {outcome:?} is in the notes {found} times"
            ));
        }
    }

    let samples = rss.lock().unwrap().clone();
    let window = |from: f64, to: f64| -> Vec<u64> {
        let total = elapsed.as_secs_f64();
        samples
            .iter()
            .filter(|(at, _)| *at >= from * total && *at <= to * total)
            .map(|(_, kib)| *kib)
            .collect()
    };
    let warm = median(&mut window(0.2, 0.4));
    let late = median(&mut window(0.8, 1.0));
    let rss_max = samples.iter().map(|(_, kib)| *kib).max().unwrap_or(0);
    if late > warm + warm / 2 + 10 * 1024 {
        results.failures.push(format!(
            "memory grew: median VmRSS {warm} KiB after warm-up, {late} KiB at the end"
        ));
    }

    let exited_during = bridge_exited.or_else(|| bridge.child.try_wait().unwrap());
    let client = Arc::try_unwrap(client).ok().expect("every caller is done");
    let tap = client.close();
    let exit = bridge.wait_exit(Duration::from_secs(5));
    // Let the tap read the last bytes before judging them.
    thread::sleep(Duration::from_millis(200));
    let tap = tap.lock().unwrap();

    let mut latencies = results.latencies.clone();
    latencies.sort_unstable();
    let at = |share: f64| {
        latencies
            .get(((latencies.len() as f64 - 1.0) * share) as usize)
            .copied()
            .unwrap_or_default()
    };
    let ok_total: u64 = results.ok.values().sum();
    let error_total: u64 = results.errors.values().sum();
    eprintln!("\n===== soak figures (seed {seed}) =====");
    eprintln!(
        "duration {:.1} s, {CALLERS} callers, bound per call {bound:?} (call timeout {CALL_TIMEOUT:?} + connect wait {CONNECT_WAIT:?} + slack {SLACK:?})",
        elapsed.as_secs_f64()
    );
    eprintln!(
        "calls {} : OK {ok_total} {:?}; isError {error_total} {:?}",
        results.calls, results.ok, results.errors
    );
    eprintln!(
        "latency: median {:?}, p99 {:?}, max {:?}",
        at(0.5),
        at(0.99),
        at(1.0)
    );
    eprintln!("chaos events {:?}", events);
    eprintln!("proxy connections {:?}", proxy.counts());
    eprintln!("writes {:?}", write_counts);
    eprintln!(
        "stdout: {} lines, {} bytes, {} not JSON-RPC, {} stray answers, notifications {:?}",
        tap.lines,
        tap.bytes,
        tap.invalid_count,
        tap.stray.len(),
        tap.notifications
    );
    eprintln!(
        "VmRSS KiB: first {}, after warm-up (median 20-40 %) {warm}, end (median 80-100 %) {late}, last {}, max {rss_max}; {} samples",
        samples.first().map_or(0, |sample| sample.1),
        samples.last().map_or(0, |sample| sample.1),
        samples.len()
    );
    let trace: Vec<u64> = (0..=10)
        .filter_map(|tenth| {
            let at = elapsed.as_secs_f64() * f64::from(tenth) / 10.0;
            samples
                .iter()
                .min_by(|a, b| (a.0 - at).abs().total_cmp(&(b.0 - at).abs()))
                .map(|sample| sample.1)
        })
        .collect();
    eprintln!("VmRSS KiB at each tenth of the run: {trace:?}");
    {
        let fds = fds.lock().unwrap();
        eprintln!(
            "open file descriptors: first {}, last {}, max {}",
            fds.first().copied().unwrap_or(0),
            fds.last().copied().unwrap_or(0),
            fds.iter().max().copied().unwrap_or(0)
        );
    }
    eprintln!("recovered after the chaos: {recovered}; bridge exit on stdin EOF: {exit:?}");
    for failure in results.failures.iter().take(30) {
        eprintln!("FAILURE: {failure}");
    }
    eprintln!("===== end of soak figures =====\n");

    assert!(
        exited_during.is_none() && sampler_saw_it_alive,
        "the bridge exited during the soak: {exited_during:?}"
    );
    assert!(
        exit.is_some_and(|status| status.success()),
        "the bridge did not exit 0 on stdin EOF: {exit:?}"
    );
    assert!(
        tap.invalid.is_empty(),
        "stdout held lines that are not JSON-RPC: {:?}",
        tap.invalid
    );
    assert!(
        tap.stray.is_empty(),
        "answers to ids nobody waits for: {:?}",
        tap.stray
    );
    assert!(
        recovered,
        "no call succeeded through the plugin after the chaos"
    );
    assert!(
        results.failures.is_empty(),
        "{} broken rules (seed {seed}), the first: {:?}",
        results.failures.len(),
        &results.failures[..results.failures.len().min(10)]
    );
    // A soak in which nothing worked or nothing went wrong proves nothing.
    assert!(
        results.ok.get("append").copied().unwrap_or(0) > 0
            && (!chaos || (error_total > 0 && !events.is_empty())),
        "the soak did not exercise both sides"
    );
}
