//! `--probe-bridge`: starts a client entry's exact command line, as the client would, and speaks MCP to it over
//! stdio (initialize, initialized, tools/list). Also the cheaper cousin used for every entry: `<command> --version`.
//!
//! Both are bounded: a child that hangs is killed at the deadline and reaped, so doctor never waits on it.

use std::collections::BTreeMap;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncReadExt as _, AsyncWriteExt as _, BufReader};
use tokio::process::Command;

use super::clients::ServerEntry;
use super::report::Check;
use crate::bridge::protocol;

/// How long a probed bridge may take for the whole exchange.
const PROBE_DEADLINE: Duration = Duration::from_secs(5);

/// How long `--version` may take.
const VERSION_DEADLINE: Duration = Duration::from_secs(2);

/// Runs `<command> --version` and returns its first line without the program name.
pub(crate) async fn version_of(command: String) -> Result<String, String> {
    let run = Command::new(&command)
        .arg("--version")
        .env(crate::version::BRIEF, "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .output();
    let output = match tokio::time::timeout(VERSION_DEADLINE, run).await {
        Ok(Ok(output)) => output,
        Ok(Err(error)) => return Err(error.to_string()),
        Err(_) => {
            return Err(format!(
                "`--version` gave no answer within {} s",
                VERSION_DEADLINE.as_secs()
            ));
        }
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout.lines().next().unwrap_or("").trim();
    if !output.status.success() || line.is_empty() {
        return Err(format!("`--version` failed ({})", output.status));
    }
    Ok(line.strip_prefix("obsmcp ").unwrap_or(line).to_owned())
}

/// Starts the entry's command and does a real MCP handshake through it; `obsmcp` is how the running binary is typed in
/// a shell, for the fix.
pub(crate) async fn probe(entry: ServerEntry, obsmcp: &str) -> Check {
    let started = Instant::now();
    match tokio::time::timeout(PROBE_DEADLINE, exchange(&entry)).await {
        Ok(Ok((server, tools))) => Check::ok(
            "client.probe",
            format!(
                "`{}` started; {server} answered initialize and listed {tools} tools in {} ms",
                entry.name,
                started.elapsed().as_millis()
            ),
        ),
        Ok(Err(error)) => Check::fail(
            "client.probe",
            format!(
                "`{}` failed as the client would see it: {error}",
                entry.name
            ),
            probe_fix(obsmcp),
        ),
        Err(_) => Check::fail(
            "client.probe",
            format!(
                "`{}` did not finish initialize + tools/list within {} s",
                entry.name,
                PROBE_DEADLINE.as_secs()
            ),
            probe_fix(obsmcp),
        ),
    }
}

fn probe_fix(obsmcp: &str) -> String {
    format!(
        "run the entry's command by hand to see its error, or `{obsmcp} setup` to rewrite the entry"
    )
}

async fn exchange(entry: &ServerEntry) -> Result<(String, usize), String> {
    let Some(command) = &entry.command else {
        return Err("the entry has no command".to_owned());
    };
    let mut child = Command::new(command)
        .args(&entry.args)
        .envs(&entry.env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|error| format!("could not start `{command}`: {error}"))?;
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout is piped")).lines();
    let mut stderr = child.stderr.take().expect("stderr is piped");
    let stderr_tail = tokio::spawn(async move {
        let mut text = String::new();
        // Whatever could be read is enough for a diagnosis; a read error just ends it.
        let _ = stderr.read_to_string(&mut text).await;
        text
    });

    let outcome = async {
        let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": protocol::PROBE, "capabilities": {},
            "clientInfo": {"name": "obsmcp-doctor", "version": env!("CARGO_PKG_VERSION")}}});
        send(&mut stdin, &initialize).await?;
        let reply = receive(&mut stdout, 1).await?;
        let info = reply
            .get("result")
            .ok_or_else(|| format!("initialize was refused: {}", reply["error"]))?;
        let server = format!(
            "{} {}",
            info.pointer("/serverInfo/name")
                .and_then(Value::as_str)
                .unwrap_or("a server"),
            info.pointer("/serverInfo/version")
                .and_then(Value::as_str)
                .unwrap_or("")
        );
        send(
            &mut stdin,
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        )
        .await?;
        send(
            &mut stdin,
            &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}),
        )
        .await?;
        let reply = receive(&mut stdout, 2).await?;
        let tools = reply
            .pointer("/result/tools")
            .and_then(Value::as_array)
            .ok_or_else(|| format!("tools/list gave no tools: {reply}"))?
            .len();
        Ok::<_, String>((server.trim().to_owned(), tools))
    }
    .await;

    drop(stdin);
    // A bridge exits on stdin EOF; one that does not is killed, and either way it is reaped here.
    if tokio::time::timeout(Duration::from_millis(1000), child.wait())
        .await
        .is_err()
    {
        let _ = child.kill().await; // Already exiting or gone: nothing more to do.
    }
    match outcome {
        Ok(found) => Ok(found),
        Err(error) => {
            let status = child.try_wait().ok().flatten();
            let stderr = tokio::time::timeout(Duration::from_millis(300), stderr_tail)
                .await
                .ok()
                .and_then(Result::ok)
                .unwrap_or_default();
            // The line that names the error says more than a trailing usage hint.
            let last = stderr
                .lines()
                .find(|line| line.to_ascii_lowercase().contains("error"))
                .or_else(|| stderr.lines().rev().find(|line| !line.trim().is_empty()))
                .unwrap_or("")
                .trim()
                .to_owned();
            let mut message = error;
            if let Some(status) = status {
                message.push_str(&format!(" (it exited: {status})"));
            }
            if !last.is_empty() {
                message.push_str(&format!("; its stderr said: {}", truncate(&last, 200)));
            }
            Err(message)
        }
    }
}

async fn send(stdin: &mut tokio::process::ChildStdin, message: &Value) -> Result<(), String> {
    let mut line = message.to_string();
    line.push('\n');
    stdin
        .write_all(line.as_bytes())
        .await
        .map_err(|error| format!("could not write to it: {error}"))?;
    stdin
        .flush()
        .await
        .map_err(|error| format!("could not write to it: {error}"))
}

async fn receive(
    stdout: &mut tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
    id: u64,
) -> Result<Value, String> {
    loop {
        let line = stdout
            .next_line()
            .await
            .map_err(|error| format!("could not read its output: {error}"))?
            .ok_or_else(|| "it closed stdout before answering".to_owned())?;
        if line.trim().is_empty() {
            continue;
        }
        let message: Value = serde_json::from_str(&line).map_err(|_| {
            format!(
                "it wrote something that is not JSON-RPC on stdout: {}",
                truncate(&line, 120)
            )
        })?;
        if message.get("id") == Some(&json!(id)) {
            return Ok(message);
        }
    }
}

fn truncate(text: &str, limit: usize) -> String {
    match text.char_indices().nth(limit) {
        Some((index, _)) => format!("{}…", &text[..index]),
        None => text.to_owned(),
    }
}

/// Asks every distinct absolute command its version, all at once.
pub(crate) async fn versions(commands: Vec<String>) -> BTreeMap<String, Result<String, String>> {
    let runs = commands.into_iter().map(|command| async move {
        let version = version_of(command.clone()).await;
        (command, version)
    });
    futures::future::join_all(runs).await.into_iter().collect()
}
