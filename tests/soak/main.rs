//! The bounded fault soak: the real `obsmcp bridge --vault` under concurrent callers while a chaos loop kills
//! (SIGKILL, SIGTERM), freezes (SIGSTOP … SIGCONT) and reloads (SIGHUP) the plugin host, and a chaos proxy between
//! the two slows its answers down or replaces them with garbage. It stops by itself, touches only loopback and a
//! temporary home, and ends with figures and the checks of the bridge's contract: the bridge never exits, every call is
//! answered in time (a result, or `isError` within `--call-timeout` + `--connect-wait` + slack), no answer reaches the
//! wrong request, stdout holds only JSON-RPC, memory stays level, and no write made with `expected_hash` lands twice.
//! The proxy also poses as the plugin without its proof, answers everything with 500 (reconnection attempts must stay
//! at the backoff's pace) and floods notifications while the client pauses its reading; and a note is swapped for a
//! symlink to a file outside the vault while it is read (`swap.rs`): no read may return that file. While the host is
//! down, notes are created, edited, renamed and deleted on disk (`edits.rs`): offline answers must show each change
//! within 0.7 s (the file watcher), and memory must stay level through them.
//!
//! The host is given its own config folder (`--config-dir`), so the vault's `.obsidian/plugins/obsmcp/data.json`,
//! which the bridge reads, can name the proxy's port while the host listens on another: the bridge runs exactly as
//! users run it, offline fallback included.
//!
//! A bench target of its own (`[[bench]] soak` in Cargo.toml), so that `cargo test` never compiles it, and its one
//! test ignored besides (a minute is too long for a test run, and a few seconds would prove little): `.ci/run` runs a
//! 60 s version, `tests/soak/run` a 5 min one. `OBSMCP_SOAK_SECS` sets the duration,
//! `OBSMCP_SOAK_SEED` replays a run's chaos sequence (timings differ from run to run, the choices do not).
//!
//! Over 400 lines on purpose: the soak is one test of some 450 lines whose phases (set-up, chaos, checks, figures)
//! share their state and read best in order; the plugin host, the callers, the proxy, the symlink swap, the vault edits, the run's
//! inputs and its small measures live in their own files.

mod caller;
mod client;
mod edits;
mod figures;
mod host;
mod hostile;
mod inputs;
mod proxy;
// The integration tests' helpers, included from their one copy for the reason benches/suite/main.rs gives.
#[path = "../it/support/mod.rs"]
#[allow(unused_imports)]
mod support;
mod swap;

use std::collections::BTreeMap;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::rng::Rng;
use crate::support::{
    ChildGuard, TempHome, fixture_vault, free_port, rss_kib, signal, write_plugin_data,
};
use caller::{Answer, Caller, Results, WriteOutcome, classify, note_path};
use client::Client;
use edits::Edits;
use figures::{Storms, median, open_files};
use host::Host;
use inputs::{seconds_from_env, seed, write_notes};
use proxy::{ChaosProxy, Mode};
use swap::Swaps;

const TOKEN: &str = "soak-token-0123456789abcdef0123456789abcdef";
/// The host's config folder; the bridge reads the vault's `.obsidian`, which names the proxy.
const HOST_CONFIG_DIR: &str = ".obsmcp-host";
const CALLERS: usize = 6;
const CALL_TIMEOUT: Duration = Duration::from_secs(4);
const CONNECT_WAIT: Duration = Duration::from_secs(2);
/// Scheduling noise on a busy two-core machine: a call answered later than the limits plus this is a failure.
const SLACK: Duration = Duration::from_secs(3);

#[test]
#[ignore = "the fault soak runs for minutes: OBSMCP_SOAK_SECS=60 tests/soak/run"]
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
    hostile::write_hostile_files(&vault);
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
    let mut storms = Storms::default();
    let mut swaps = Swaps::default();
    let mut edits = Edits::default();
    let mut subscription_storms = hostile::SubscriptionStorms::default();
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
        // Every fifth event edits the vault, so that each run, however short, has edits under the watcher.
        let number: u64 = events.values().sum();
        // Every fifth event from the fourth on is a subscription storm, likewise.
        let pick = match number % 5 {
            1 => 89,
            3 => 95,
            _ => rng.below(100),
        };
        let event = match pick {
            0..10 => {
                proxy.close();
                host.end("KILL");
                thread::sleep(rng.millis(0, 1500));
                host.start();
                proxy.open();
                "SIGKILL, restart"
            }
            10..20 => {
                proxy.close();
                host.end("TERM");
                thread::sleep(rng.millis(0, 1500));
                host.start();
                proxy.open();
                "SIGTERM, restart"
            }
            20..30 => {
                signal(host.pid(), "STOP");
                thread::sleep(rng.millis(300, 12000));
                signal(host.pid(), "CONT");
                "SIGSTOP … SIGCONT"
            }
            30..35 => {
                host.reload();
                "plugin reload (SIGHUP)"
            }
            35..50 => {
                let delay = rng.millis(100, 6000);
                let trickle = rng.below(3) == 0;
                proxy.set_mode(Mode::Slow { delay, trickle });
                thread::sleep(rng.millis(1000, 6000));
                proxy.set_mode(Mode::Pass);
                "slow answers"
            }
            50..65 => {
                let percent = 30 + rng.below(71);
                proxy.set_mode(Mode::Garbage { percent });
                thread::sleep(rng.millis(300, 3000));
                proxy.set_mode(Mode::Pass);
                "garbage answers"
            }
            65..72 => {
                proxy.set_mode(Mode::Impostor);
                thread::sleep(rng.millis(1000, 4000));
                proxy.set_mode(Mode::Pass);
                "an impostor on the port"
            }
            72..79 => {
                let attempts = || {
                    // Every attempt opens with `server/discover`; one refused otherwise goes on to `initialize`.
                    let discover = proxy.count_of("500-storm: discover");
                    if discover > 0 {
                        discover
                    } else {
                        proxy.count_of("500-storm: initialize")
                    }
                };
                let before = (attempts(), proxy.count_of("500-storm: other"));
                let storm = Instant::now();
                proxy.set_mode(Mode::Storm500);
                thread::sleep(rng.millis(1000, 4000));
                proxy.set_mode(Mode::Pass);
                storms.seconds += storm.elapsed().as_secs_f64();
                storms.attempts += attempts() - before.0;
                storms.calls += proxy.count_of("500-storm: other") - before.1;
                "500-storm"
            }
            79..89 => {
                proxy.set_mode(Mode::Flood { notifications: 300 });
                client.pause_reading(true);
                thread::sleep(rng.millis(300, 2000));
                client.pause_reading(false);
                thread::sleep(rng.millis(300, 1500));
                proxy.set_mode(Mode::Pass);
                "notification flood at a paused reader"
            }
            89..95 => {
                proxy.close();
                host.end("KILL");
                edits.run(&vault, &client);
                host.start();
                proxy.open();
                "vault edits while Obsidian is down"
            }
            95..98 => {
                subscription_storms.run(&client, bridge_pid);
                "subscription storm"
            }
            _ => {
                swaps.run(
                    &vault,
                    &home.path().join("outside"),
                    &client,
                    rng.millis(1000, 3000),
                );
                "symlink swap during reads"
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

    for leak in &swaps.leaks {
        results.failures.push(format!(
            "a read of the swapped note returned the file outside the vault: {leak}"
        ));
    }
    for missed in &edits.missed {
        results.failures.push(format!(
            "an edit made on disk was not seen offline: {missed}"
        ));
    }
    if swaps.unanswered > 0 {
        results.failures.push(format!(
            "{} reads of the swapped note got no answer",
            swaps.unanswered
        ));
    }
    // The bridge's backoff allows about two attempts a second at a failing port, whatever the callers do (one per
    // waiting call was about 160 a second).
    if storms.attempts as f64 > 3.0 + 4.0 * storms.seconds {
        results.failures.push(format!(
            "{} reconnection attempts reached a port answering 500 during {:.1} s of storms",
            storms.attempts, storms.seconds
        ));
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
    eprintln!(
        "500-storms: {:.1} s; reconnection attempts {} ({:.1} per second), other requests {}",
        storms.seconds,
        storms.attempts,
        storms.attempts as f64 / storms.seconds.max(0.001),
        storms.calls
    );
    eprintln!(
        "symlink swaps: {} reads: {} of the note, {} refused, {} leaked, {} unanswered",
        swaps.reads,
        swaps.inside,
        swaps.refused,
        swaps.leaks.len(),
        swaps.unanswered
    );
    eprintln!(
        "subscription storms: {}, requests answered {}, unanswered {}, VmRSS KiB after each {:?}",
        subscription_storms.storms,
        subscription_storms.answered,
        subscription_storms.unanswered,
        subscription_storms.rss_after
    );
    if subscription_storms.unanswered > 0 {
        results.failures.push(format!(
            "{} subscription requests of the storms were not answered",
            subscription_storms.unanswered
        ));
    }
    eprintln!(
        "vault edits: {} rounds, {} steps checked, each seen by a call made at most {:?} after it, {} missed",
        edits.rounds,
        edits.steps,
        edits.slowest,
        edits.missed.len()
    );
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
