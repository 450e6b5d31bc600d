//! `obsmcp doctor --deep`: a self-test of one vault through its live plugin, run by the user on their own vault.
//!
//! Two parts, in this order:
//! 1. parity (`parity.rs`): the same read-only calls on a sample of the user's notes, answered by the plugin and by
//!    the offline reader (`crate::offline`, what the bridge serves while Obsidian is closed), compared field by
//!    field; the differences are reported with paths, never with note content unless `--show-content` asks;
//! 2. the exercise (`scratch.rs`): every tool family through the plugin in a scratch folder of its own
//!    (`obsmcp-selftest-<random>/`): create, edit, link, search, backlinks, tasks, properties, canvas, rename with
//!    link updates, trash. Everything it makes is removed at the end, also when a step fails; nothing else is
//!    touched. It is refused when the plugin is read-only.
//!
//! Parity runs first so that it sees the vault before anything was made in it: a real Obsidian notices the scratch
//! folder's removal a moment later, and a comparison made meanwhile would report the self-test's own traces.
//! Both wait for Obsidian's metadata cache to be complete (`resolved`), since until then the plugin answers from an
//! incomplete index, and says so.

mod cleanup;
mod client;
mod parity;
pub(crate) mod print;
mod scratch;

use std::path::Path;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::json;

use self::client::PluginClient;
use super::report::Status;

/// How long the self-test waits for Obsidian to finish indexing before it gives up on the comparisons.
const INDEX_WAIT: Duration = Duration::from_secs(120);

/// What the command line asked of the self-test.
#[derive(Debug, Clone)]
pub(crate) struct DeepOptions {
    /// How many of the user's notes to compare.
    pub(crate) sample: usize,
    /// Whether differences may show the values that differ (note text, headings, tags).
    pub(crate) show_content: bool,
}

/// The self-test of one vault.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct DeepReport {
    /// The vault folder.
    pub(crate) vault: String,
    /// `ok` when every step passed and the plugin and the offline reader agreed; `skip` when the plugin did not
    /// answer (the vault is not open); `fail` otherwise.
    pub(crate) verdict: Status,
    /// Why the self-test could not run at all (the plugin unreachable), when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) not_run: Option<String>,
    /// The plugin's version, as it said.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) plugin_version: Option<String>,
    /// How long Obsidian's index took to be complete, when the self-test had to wait for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) waited_for_index_ms: Option<u64>,
    /// The comparison of the plugin's answers with the offline reader's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) parity: Option<parity::Parity>,
    /// The exercise in the scratch folder.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) exercise: Option<scratch::Exercise>,
    /// How long the whole self-test took.
    pub(crate) elapsed_ms: u64,
}

impl DeepReport {
    fn not_run(vault: &Path, why: String, started: Instant) -> Self {
        Self {
            vault: vault.display().to_string(),
            verdict: Status::Fail,
            not_run: Some(why),
            plugin_version: None,
            waited_for_index_ms: None,
            parity: None,
            exercise: None,
            elapsed_ms: millis(started.elapsed()),
        }
    }
}

/// Whether the self-tests make the run fail: one failed, or none could run at all (every vault closed).
pub(crate) fn failed(reports: &[DeepReport]) -> bool {
    reports.iter().any(|report| report.verdict == Status::Fail)
        || reports.iter().all(|report| report.verdict == Status::Skip)
}

/// One step of the self-test: what was tried and how it came out.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Step {
    /// Stable identifier, e.g. `rename`.
    pub(crate) id: &'static str,
    /// How it came out.
    pub(crate) status: Status,
    /// What was found, in one line (paths, never note content).
    pub(crate) finding: String,
    /// How long it took.
    pub(crate) elapsed_ms: u64,
}

/// Runs the self-test on one vault whose plugin's `data.json` is at `config_dir`.
pub(crate) async fn run(vault: &Path, config_dir: &str, options: &DeepOptions) -> DeepReport {
    let started = Instant::now();
    let data = match obsmcp_installer::obsidian_files::plugin_data::read(vault, config_dir) {
        Ok(data) => data,
        Err(error) => {
            return DeepReport::not_run(
                vault,
                format!("no port and token to reach the plugin with: {error}"),
                started,
            );
        }
    };
    let mut client = match PluginClient::connect(data.port, &data.token).await {
        Ok(client) => client,
        Err(error) => {
            // A vault that is not open is passed over: the run fails only when no vault could be tested (see
            // `failed`), so one open vault of several is enough.
            let mut report = DeepReport::not_run(
                vault,
                format!(
                    "the plugin did not answer on port {} ({error}): open this vault in Obsidian with obsmcp enabled, see the obsidian.* checks above",
                    data.port
                ),
                started,
            );
            report.verdict = Status::Skip;
            return report;
        }
    };
    let mut report = DeepReport {
        vault: vault.display().to_string(),
        verdict: Status::Ok,
        not_run: None,
        plugin_version: None,
        waited_for_index_ms: None,
        parity: None,
        exercise: None,
        elapsed_ms: 0,
    };
    let read_only = match client.tools().await {
        Ok((_, read_only)) => read_only,
        Err(error) => {
            client.close().await;
            return DeepReport::not_run(vault, format!("tools/list failed: {error}"), started);
        }
    };
    report.plugin_version = client.version();
    match wait_for_index(&mut client).await {
        Ok(waited) => report.waited_for_index_ms = waited.map(millis),
        Err(why) => {
            client.close().await;
            return DeepReport::not_run(vault, why, started);
        }
    }
    report.parity = Some(parity::compare(&mut client, vault, config_dir, options).await);
    report.exercise = Some(if read_only {
        scratch::Exercise::refused()
    } else {
        scratch::exercise(&mut client, vault, config_dir).await
    });
    client.close().await;
    let failed = report
        .parity
        .as_ref()
        .is_some_and(|parity| parity.status == Status::Fail)
        || report
            .exercise
            .as_ref()
            .is_some_and(|exercise| exercise.status == Status::Fail);
    if failed {
        report.verdict = Status::Fail;
    }
    report.elapsed_ms = millis(started.elapsed());
    report
}

/// Waits until `vault_info` no longer starts with `indexing` (Obsidian fired `resolved`); how long it waited, when
/// it did.
async fn wait_for_index(client: &mut PluginClient) -> Result<Option<Duration>, String> {
    let started = Instant::now();
    let mut waited = false;
    loop {
        let result = client.call("vault_info", json!({})).await?;
        let info = client::json_of(&result);
        if client::is_error(&result) || !info.is_object() {
            return Err(format!(
                "vault_info did not answer as expected: {}",
                first_line(client::text_of(&result))
            ));
        }
        let Some(indexing) = info.get("indexing") else {
            return Ok(waited.then(|| started.elapsed()));
        };
        if started.elapsed() > INDEX_WAIT {
            return Err(format!(
                "Obsidian was still indexing this vault after {} s ({} of {} notes): the comparison would report its incomplete index, not obsmcp; run the self-test again once Obsidian is done",
                INDEX_WAIT.as_secs(),
                indexing["done"],
                indexing["total"]
            ));
        }
        waited = true;
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}
