//! `obsmcp bridge`: the stdio MCP server that AI clients start, forwarding to Obsidian (or any MCP server) and never
//! dying or hanging because of it.
//!
//! Three tasks and a reader: the stdin reader hands each line to the [`server::Server`]; one writer task owns stdout;
//! the upstream supervisor ([`upstream::Upstream::run`]) owns the connection; an event task carries catalogs and
//! notifications from the upstream to the server. Stdin EOF ends everything: the supervisor closes the session (and
//! kills a child upstream), the writer flushes, the process exits 0.

mod catalog;
mod config;
mod diagnostics;
mod jsonrpc;
mod offline;
mod policy;
mod server;
mod upstream;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

pub(crate) use config::{BridgeConfig, RawConfig};
pub(crate) use policy::Policy;

/// How long shutdown may take to close the upstream before the process exits anyway.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(700);

/// Runs the bridge until stdin closes (or SIGTERM/SIGINT).
pub(crate) fn run(config: BridgeConfig) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(serve(config));
    // The stdin reader may still sit in a blocking read on some platforms; it must not hold the exit.
    runtime.shutdown_timeout(Duration::from_millis(100));
    Ok(ExitCode::SUCCESS)
}

async fn serve(config: BridgeConfig) {
    let diagnostics = Arc::new(diagnostics::Diagnostics::open(config.log_file.clone()));
    diagnostics.record(&diagnostics::Record {
        event: "start",
        upstream: Some(config.upstream.kind()),
        ..Default::default()
    });
    let (out, outgoing) = mpsc::unbounded_channel::<Value>();
    let writer = tokio::spawn(write_stdout(outgoing));
    let (events, mut upstream_events) = mpsc::unbounded_channel();
    let upstream =
        upstream::Upstream::new(config.upstream.clone(), events, Arc::clone(&diagnostics));
    let offline = match &config.upstream {
        config::UpstreamTarget::Vault { path, config_dir } if config.offline => {
            offline::backend_for_vault(path, config_dir)
        }
        _ => None,
    };
    let server = server::Server::new(
        config,
        Arc::clone(&upstream),
        out,
        Arc::clone(&diagnostics),
        offline,
    );
    let supervisor = tokio::spawn(Arc::clone(&upstream).run());
    let event_server = Arc::clone(&server);
    let event_task = tokio::spawn(async move {
        while let Some(event) = upstream_events.recv().await {
            event_server.upstream_event(event);
        }
    });

    tokio::select! {
        () = read_stdin(&server) => tracing::info!("stdin closed; shutting down"),
        () = termination() => tracing::info!("asked to stop; shutting down"),
    }

    server.abort_all();
    // Bounded: a child that ignores SIGKILL or a server that never closes must not keep the client waiting.
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, upstream.shutdown()).await;
    let _ = tokio::time::timeout(Duration::from_millis(200), supervisor).await;
    event_task.abort();
    drop(server);
    // The writer ends once every sender is gone; give it a moment to flush what is queued.
    let _ = tokio::time::timeout(Duration::from_millis(200), writer).await;
    diagnostics.record(&diagnostics::Record {
        event: "stop",
        ..Default::default()
    });
}

/// Reads stdin line by line, on bytes, until EOF.
async fn read_stdin(server: &Arc<server::Server>) {
    let mut reader = BufReader::with_capacity(1 << 16, tokio::io::stdin());
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) => return,
            Ok(_) => server.handle_line(&line),
            Err(error) => {
                tracing::warn!("reading stdin failed: {error}");
                return;
            }
        }
    }
}

/// Writes each message as one line on stdout, the only writer of stdout in the process.
async fn write_stdout(mut outgoing: mpsc::UnboundedReceiver<Value>) {
    let mut stdout = tokio::io::stdout();
    let mut buffer = Vec::new();
    while let Some(message) = outgoing.recv().await {
        buffer.clear();
        serde_json::to_writer(&mut buffer, &message).expect("a JSON value serializes");
        buffer.push(b'\n');
        let written = async {
            stdout.write_all(&buffer).await?;
            stdout.flush().await
        };
        if let Err(error) = written.await {
            tracing::warn!("writing stdout failed ({error}); the client is gone");
            return;
        }
    }
}

/// Resolves on SIGTERM or SIGINT (Ctrl-C elsewhere).
async fn termination() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) {
            (Ok(mut terminate), Ok(mut interrupt)) => {
                tokio::select! {
                    _ = terminate.recv() => {}
                    _ = interrupt.recv() => {}
                }
            }
            _ => std::future::pending().await,
        }
    }
    #[cfg(not(unix))]
    {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}
