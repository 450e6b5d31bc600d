//! The self-test's exercise: every tool family through the live plugin, in a scratch folder of its own
//! (`obsmcp-selftest-<random>/`), each step checking what Obsidian did, not only that the call answered.
//!
//! Notes are created, edited, linked, searched, tasked, given properties, put on a canvas, renamed (Obsidian must
//! rewrite the link to the renamed note) and trashed, all through the plugin. One thing is done on disk, inside the
//! scratch folder: the empty canvas file is written there, since no tool creates a canvas. The first step that
//! fails ends the run; cleanup (`cleanup.rs`) runs whatever happened before it.

use std::future::Future;
use std::path::Path;
use std::pin::Pin;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;

mod steps;

use super::cleanup::{self, Cleanup};
use super::client::{self, PluginClient};
use super::{Step, millis};
use crate::doctor::report::Status;

/// The exercise's outcome.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Exercise {
    /// `ok` when every step passed and cleanup left nothing; `fail` otherwise.
    pub(crate) status: Status,
    /// Why nothing was written, when the exercise was refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) refused: Option<String>,
    /// The scratch folder (vault path).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) folder: Option<String>,
    /// The steps, in order; after a failed step the rest are not run.
    pub(crate) steps: Vec<Step>,
    /// What cleanup removed and what it could not.
    pub(crate) cleanup: Cleanup,
}

impl Exercise {
    /// The exercise refused because the plugin is read-only: nothing was written.
    pub(crate) fn refused() -> Self {
        Self {
            status: Status::Fail,
            refused: Some(
                "refused: the plugin is read-only (Obsidian → Settings → obsmcp → Read-only), so the write half of the \
                 self-test did not run and nothing was written; turn Read-only off for the self-test and back on \
                 after it, or read the comparison above alone"
                    .to_owned(),
            ),
            folder: None,
            steps: Vec::new(),
            cleanup: Cleanup::default(),
        }
    }
}

/// A step's failure: what went wrong, in one line.
type Failed = String;

/// A check under way (see [`Steps::settle`]).
type Checking<'a, T> = Pin<Box<dyn Future<Output = Result<T, Failed>> + 'a>>;

/// How long a change may take to show in Obsidian's metadata cache before a check of it fails.
const SETTLE: Duration = Duration::from_secs(3);

/// The scratch notes, by role.
struct Names {
    folder: String,
    alpha: String,
    beta: String,
    gamma: String,
    canvas: String,
    moved: String,
    marker: String,
    random: String,
}

impl Names {
    fn new(random: &str) -> Self {
        let folder = format!("obsmcp-selftest-{random}");
        Self {
            alpha: format!("{folder}/Alpha {random}.md"),
            beta: format!("{folder}/Beta {random}.md"),
            gamma: format!("{folder}/Gamma {random}.md"),
            canvas: format!("{folder}/Board {random}.canvas"),
            moved: format!("{folder}/Moved/Renamed {random}.md"),
            marker: format!("obsmcpselftest{random}"),
            random: random.to_owned(),
            folder,
        }
    }
}

/// Runs the exercise in a fresh scratch folder of `vault`, then cleans up.
pub(crate) async fn exercise(
    client: &mut PluginClient,
    vault: &Path,
    config_dir: &str,
) -> Exercise {
    let random = random_hex();
    let names = Names::new(&random);
    let folder_on_disk = vault.join(&names.folder);
    let mut exercise = Exercise {
        status: Status::Ok,
        refused: None,
        folder: Some(format!("{}/", names.folder)),
        steps: Vec::new(),
        cleanup: Cleanup::default(),
    };
    if folder_on_disk.exists() {
        exercise.status = Status::Fail;
        exercise.steps.push(Step {
            id: "folder",
            status: Status::Fail,
            finding: format!("{} exists already; nothing was written", names.folder),
            elapsed_ms: 0,
        });
        return exercise;
    }
    let trash = cleanup::Trash::before(vault);

    let mut steps = Steps {
        client: &mut *client,
        names: &names,
        vault,
        out: Vec::new(),
    };
    steps.run_all().await;
    exercise.steps = steps.out;

    exercise.cleanup = cleanup::run(
        client,
        vault,
        config_dir,
        &names.folder,
        &names.random,
        trash,
    )
    .await;
    if exercise
        .steps
        .iter()
        .any(|step| step.status == Status::Fail)
        || !exercise.cleanup.left.is_empty()
    {
        exercise.status = Status::Fail;
    }
    exercise
}

/// The steps and where their findings go.
struct Steps<'a> {
    client: &'a mut PluginClient,
    names: &'a Names,
    vault: &'a Path,
    out: Vec<Step>,
}

impl Steps<'_> {
    /// Each step in order; the first that fails ends the run (the later ones build on it).
    async fn run_all(&mut self) {
        macro_rules! step {
            ($id:literal, $body:expr) => {{
                let started = Instant::now();
                let outcome: Result<String, Failed> = $body;
                let failed = outcome.is_err();
                let (status, finding) = match outcome {
                    Ok(finding) => (Status::Ok, finding),
                    Err(finding) => (Status::Fail, finding),
                };
                self.out.push(Step {
                    id: $id,
                    status,
                    finding,
                    elapsed_ms: millis(started.elapsed()),
                });
                if failed {
                    return;
                }
            }};
        }
        step!("create", self.create().await);
        step!("edit", self.edit().await);
        step!("links", self.links().await);
        step!("search", self.search().await);
        step!("tasks", self.tasks().await);
        step!("properties", self.properties().await);
        step!("canvas", self.canvas().await);
        step!("rename", self.rename().await);
        step!("trash", self.trash().await);
    }

    /// Runs a read-only check until it passes, for at most [`SETTLE`]: Obsidian indexes a note a few milliseconds
    /// after it was written, so a check made at once may see its metadata cache from before the write.
    async fn settle<T>(
        &mut self,
        check: impl for<'b> Fn(&'b mut Self) -> Checking<'b, T>,
    ) -> Result<T, Failed> {
        let started = Instant::now();
        loop {
            match check(self).await {
                Ok(value) => return Ok(value),
                Err(_) if started.elapsed() < SETTLE => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(failed) => return Err(failed),
            }
        }
    }

    /// Calls a tool that must succeed; its result's text.
    async fn ok(&mut self, tool: &str, arguments: Value) -> Result<String, Failed> {
        let result = self
            .client
            .call(tool, arguments)
            .await
            .map_err(|error| format!("{tool}: {error}"))?;
        let text = client::text_of(&result).to_owned();
        if client::is_error(&result) {
            return Err(format!("{tool} failed: {}", first_line(&text)));
        }
        Ok(text)
    }

    /// Calls a tool that must succeed with a JSON result.
    async fn ok_json(&mut self, tool: &str, arguments: Value) -> Result<Value, Failed> {
        let text = self.ok(tool, arguments).await?;
        serde_json::from_str(&text).map_err(|_| format!("{tool} did not answer with JSON"))
    }
}

/// The `path` of each item of a JSON list.
fn paths(list: &Value) -> Vec<&str> {
    list.as_array()
        .into_iter()
        .flatten()
        .filter_map(|item| item["path"].as_str())
        .collect()
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

/// Eight random hex digits: the scratch folder's name must not be one the user could already have.
fn random_hex() -> String {
    let mut bytes = [0u8; 4];
    if getrandom::fill(&mut bytes).is_err() {
        // No system randomness: the time still makes a name no earlier run used.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.subsec_nanos());
        bytes = nanos.to_le_bytes();
    }
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}
