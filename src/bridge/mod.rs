//! `obsmcp bridge`: the stdio MCP server that AI clients start, forwarding to Obsidian (or any MCP server) and never
//! dying or hanging because of it.
//!
//! Three tasks and a reader: the stdin reader hands each line to the [`server::Server`]; one writer task owns stdout;
//! the upstream supervisor ([`upstream::Upstream::run`]) owns the connection; an event task carries catalogs and
//! notifications from the upstream to the server. Stdin EOF ends everything: the supervisor closes the session (and
//! kills a child upstream), the writer flushes, the process exits 0.

mod budget;
mod catalog;
mod config;
mod diagnostics;
pub(crate) mod jsonrpc;
mod offline;
mod outbox;
mod policy;
mod profile;
pub(crate) mod protocol;
mod server;
pub(crate) mod upstream;

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

pub(crate) use config::{BridgeConfig, IndexSearch, RawConfig};
pub(crate) use policy::Policy;
pub(crate) use profile::ToolProfile;

/// How long shutdown may take to close the upstream before the process exits anyway.
const SHUTDOWN_GRACE: Duration = Duration::from_millis(700);

/// How long requests still under way when stdin closes are given to be answered.
const ANSWER_GRACE: Duration = Duration::from_secs(10);

/// Runs the bridge until stdin closes (or SIGTERM/SIGINT).
pub(crate) fn run(config: BridgeConfig) -> anyhow::Result<ExitCode> {
    two_malloc_arenas();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(serve(config));
    // The stdin reader may still sit in a blocking read on some platforms; it must not hold the exit.
    runtime.shutdown_timeout(Duration::from_millis(100));
    Ok(ExitCode::SUCCESS)
}

/// At most two malloc arenas, set before any thread starts. glibc gives each thread that allocates an arena of its
/// own (up to eight per core), and each keeps what it once held: after the offline index's build on reading threads
/// (100,000 notes, 87 MB of live heap) the bridge held 220-240 MB; with two arenas 175 MB at the same build time,
/// with one 141 MB but a build 60% slower (the reading threads wait for the one lock).
fn two_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes the allocator's policy for arenas made from now on; no thread exists yet.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}

async fn serve(config: BridgeConfig) {
    let diagnostics = Arc::new(diagnostics::Diagnostics::open(config.log_file.clone()));
    diagnostics.record(&diagnostics::Record {
        event: "start",
        upstream: Some(config.upstream().kind()),
        ..Default::default()
    });
    let out = Arc::new(outbox::Outbox::new());
    let stdout_gone = tokio_util::sync::CancellationToken::new();
    let writer = tokio::spawn(write_stdout(Arc::clone(&out), stdout_gone.clone()));
    // One route per upstream, each with its own connection, events and offline reader: a vault whose Obsidian is
    // closed never delays another's.
    let mut routes = Vec::new();
    let mut event_queues = Vec::new();
    // One model for every vault, loaded at the first search by meaning.
    let state_home = obsmcp_installer::environment::Environment::from_process()
        .map(|environment| environment.state_home());
    let models = Arc::new(crate::offline::semantic::vault::ModelSource::new(
        config.model.clone(),
        state_home.as_deref(),
    ));
    for named in &config.upstreams {
        // Bounded like a link's queue: the upstream waits while the outbox takes what it sent.
        let (events, queue) = mpsc::channel(upstream::LINK_QUEUE);
        let upstream =
            upstream::Upstream::new(named.target.clone(), events, Arc::clone(&diagnostics));
        let offline = offline_reader(&config, &named.target, &upstream, &models);
        routes.push(server::Route::new(named, upstream, offline));
        event_queues.push(queue);
    }
    let upstreams: Vec<Arc<upstream::Upstream>> = routes
        .iter()
        .map(|route| Arc::clone(&route.upstream))
        .collect();
    let offline_at_exit: Vec<_> = routes
        .iter()
        .filter_map(|route| route.offline.clone())
        .collect();
    let server = server::Server::new(config, routes, Arc::clone(&out), Arc::clone(&diagnostics));
    let supervisors: Vec<_> = upstreams
        .iter()
        .map(|upstream| tokio::spawn(Arc::clone(upstream).run()))
        .collect();
    let event_tasks: Vec<_> = event_queues
        .into_iter()
        .enumerate()
        .map(|(route, mut queue)| {
            let event_server = Arc::clone(&server);
            tokio::spawn(async move {
                while let Some(event) = queue.recv().await {
                    event_server.upstream_event(route, event);
                }
            })
        })
        .collect();

    let stdin_closed = tokio::select! {
        () = read_stdin(&server, &out) => true,
        () = termination() => {
            tracing::info!("asked to stop; shutting down");
            false
        }
        // Nobody reads the answers any more: going on would only run calls whose results are lost.
        () = stdout_gone.cancelled() => {
            tracing::info!("stdout closed; shutting down");
            false
        }
    };
    if stdin_closed {
        answer_before_exit(&server, &stdout_gone).await;
    }

    server.abort_all();
    // A save of an offline index under way is let finish (bounded inside), so the next bridge starts from it.
    let finishing = offline_at_exit
        .into_iter()
        .map(|backend| tokio::task::spawn_blocking(move || backend.finish()));
    let _ = futures::future::join_all(finishing).await;
    // Bounded: a child that ignores SIGKILL or a server that never closes must not keep the client waiting.
    let closing = upstreams.iter().map(|upstream| upstream.shutdown());
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, futures::future::join_all(closing)).await;
    let _ = tokio::time::timeout(
        Duration::from_millis(200),
        futures::future::join_all(supervisors),
    )
    .await;
    event_tasks.iter().for_each(tokio::task::JoinHandle::abort);
    drop(server);
    // The writer ends once what is queued is written; give it a moment to flush.
    out.close();
    let _ = tokio::time::timeout(Duration::from_millis(200), writer).await;
    diagnostics.record(&diagnostics::Record {
        event: "stop",
        ..Default::default()
    });
}

/// After stdin closed: the requests read before it are answered first (a script that pipes its requests in and reads
/// the answers closes its end after the last), for at most [`ANSWER_GRACE`], unless the process is asked to stop or
/// nobody reads stdout any more. With nothing under way, the bridge goes at once.
async fn answer_before_exit(
    server: &server::Server,
    stdout_gone: &tokio_util::sync::CancellationToken,
) {
    let under_way = server.requests_under_way();
    if under_way == 0 {
        tracing::info!("stdin closed; shutting down");
        return;
    }
    tracing::info!(
        under_way,
        "stdin closed; answering the requests under way, then shutting down"
    );
    tokio::select! {
        () = server.answered_all() => {}
        () = tokio::time::sleep(ANSWER_GRACE) => tracing::warn!(
            under_way = server.requests_under_way(),
            "stdin closed; requests still under way after {} s were not answered",
            ANSWER_GRACE.as_secs()
        ),
        () = termination() => tracing::info!("asked to stop; shutting down"),
        () = stdout_gone.cancelled() => tracing::info!("stdout closed; shutting down"),
    }
}

/// The longest line read from the client: far above any real message (a 20 MB note is a 20 MB line), low enough that
/// a client that never sends a line break cannot make the bridge hold its whole output in memory.
pub(crate) const MAX_LINE: usize = 64 << 20;

/// Reads stdin line by line, on bytes, until EOF; while the client leaves more than the outbox's bound unread, it
/// reads no further requests.
async fn read_stdin(server: &Arc<server::Server>, out: &outbox::Outbox) {
    let mut reader = BufReader::with_capacity(1 << 16, tokio::io::stdin());
    let mut line = Vec::new();
    loop {
        out.room().await;
        line.clear();
        match read_line(&mut reader, &mut line, MAX_LINE).await {
            Ok(Some(Read::Line)) => server.handle_line(&line),
            Ok(Some(Read::TooLong(length))) => server.refuse_oversized(length, MAX_LINE),
            Ok(None) => return,
            Err(error) => {
                tracing::warn!("reading stdin failed: {error}");
                return;
            }
        }
    }
}

/// What [`read_line`] read.
#[derive(Debug, PartialEq, Eq)]
enum Read {
    /// A line (perhaps the last, without `\n`) is in the buffer.
    Line,
    /// A line longer than the limit was skipped; its length in bytes.
    TooLong(usize),
}

/// Reads one line into `line`, keeping at most `limit` bytes: the rest of a longer line is read and dropped. `None` at
/// EOF.
async fn read_line(
    reader: &mut (impl tokio::io::AsyncBufRead + Unpin),
    line: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<Option<Read>> {
    let mut length = 0;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(match length {
                0 => None,
                _ if length > limit => Some(Read::TooLong(length)),
                _ => Some(Read::Line),
            });
        }
        let (taken, ended) = match available.iter().position(|&byte| byte == b'\n') {
            Some(end) => (end + 1, true),
            None => (available.len(), false),
        };
        if length + taken <= limit {
            line.extend_from_slice(&available[..taken]);
        } else if !line.is_empty() {
            // Past the limit: what was kept is useless, and holding it is what the limit is against.
            *line = Vec::new();
        }
        length += taken;
        reader.consume(taken);
        if ended {
            return Ok(Some(if length > limit {
                Read::TooLong(length)
            } else {
                Read::Line
            }));
        }
    }
}

/// Writes the outbox's lines on stdout, the only writer of stdout in the process; cancels `gone` when a write fails
/// (the client closed its end).
async fn write_stdout(outgoing: Arc<outbox::Outbox>, gone: tokio_util::sync::CancellationToken) {
    let mut stdout = tokio::io::stdout();
    while let Some(line) = outgoing.next().await {
        let written = async {
            stdout.write_all(&line).await?;
            stdout.flush().await
        };
        if let Err(error) = written.await {
            tracing::warn!("writing stdout failed ({error}); the client is gone");
            gone.cancel();
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

/// The vault folder's reader for a vault upstream (unless `--no-offline`), readied as `--index-search` says.
fn offline_reader(
    config: &BridgeConfig,
    target: &config::UpstreamTarget,
    upstream: &Arc<upstream::Upstream>,
    models: &Arc<crate::offline::semantic::vault::ModelSource>,
) -> Option<Arc<dyn offline::OfflineBackend>> {
    let config::UpstreamTarget::Vault { path, config_dir } = target else {
        return None;
    };
    if !config.offline {
        return None;
    }
    let backend =
        offline::backend_for_vault(path, config_dir, config.index_memory_mb, Arc::clone(models))?;
    match config.index_search {
        // Searches while Obsidian is open use the index as soon as it is there.
        config::IndexSearch::Always => backend.build(),
        // A saved index is loaded beside the start (a third of a second at 100,000 notes).
        config::IndexSearch::Auto => backend.prepare(),
        config::IndexSearch::Never => {
            tokio::spawn(prepare_when_away(Arc::clone(&backend), upstream.watch()));
        }
    }
    Some(backend)
}

/// With `--index-search never`: readies offline mode (`OfflineBackend::prepare`) if the first connection attempt
/// fails: Obsidian is closed, so offline calls will come. (`auto` and `always` ready the index at start anyway.)
async fn prepare_when_away(
    backend: Arc<dyn offline::OfflineBackend>,
    mut states: tokio::sync::watch::Receiver<upstream::UpstreamState>,
) {
    loop {
        match &*states.borrow_and_update() {
            upstream::UpstreamState::Down { .. } => {
                backend.prepare();
                return;
            }
            upstream::UpstreamState::Ready | upstream::UpstreamState::Stopped => return,
            upstream::UpstreamState::Connecting => {}
        }
        if states.changed().await.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines(input: &[u8], limit: usize) -> Vec<(Option<Read>, Vec<u8>)> {
        // A tiny buffer, so lines span many reads.
        let mut reader = BufReader::with_capacity(3, input);
        let mut read = Vec::new();
        loop {
            let mut line = Vec::new();
            let outcome = read_line(&mut reader, &mut line, limit).await.unwrap();
            let end = outcome.is_none();
            read.push((outcome, line));
            if end {
                return read;
            }
        }
    }

    #[tokio::test]
    async fn a_line_over_the_limit_is_skipped_whole_and_the_next_one_is_read() {
        let read = lines(b"{\"a\":1}\n0123456789abcdef\nok\nlast", 10).await;
        assert_eq!(
            read,
            vec![
                (Some(Read::Line), b"{\"a\":1}\n".to_vec()),
                (Some(Read::TooLong(17)), Vec::new()),
                (Some(Read::Line), b"ok\n".to_vec()),
                (Some(Read::Line), b"last".to_vec()),
                (None, Vec::new()),
            ]
        );
    }

    #[tokio::test]
    async fn a_line_of_exactly_the_limit_is_kept_and_an_endless_one_is_refused_at_eof() {
        let read = lines(b"123456789\n12345678901", 10).await;
        assert_eq!(read[0], (Some(Read::Line), b"123456789\n".to_vec()));
        assert_eq!(read[1], (Some(Read::TooLong(11)), Vec::new()));
    }
}
