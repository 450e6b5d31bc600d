//! The self-test's exercise: every tool family through the live plugin, in a scratch folder of its own
//! (`obsmcp-selftest-<random>/`), each step checking what Obsidian did, not only that the call answered.
//!
//! Notes are created, edited, linked, searched, tasked, given properties, put on a canvas, renamed (Obsidian must
//! rewrite the link to the renamed note) and trashed, all through the plugin. One thing is done on disk, inside the
//! scratch folder: the empty canvas file is written there, since no tool creates a canvas. The first step that
//! fails ends the run; cleanup (`cleanup.rs`) runs whatever happened before it.

use std::path::Path;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Value, json};

use super::cleanup::{self, Cleanup};
use super::client::{self, PluginClient};
use super::{Step, millis};
use crate::doctor::report::Status;

/// How long a change Obsidian learns from its file watcher (the canvas written on disk) may take to show.
const WATCHER_WAIT: Duration = Duration::from_secs(5);

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

    async fn create(&mut self) -> Result<String, Failed> {
        let Names {
            alpha,
            beta,
            gamma,
            marker,
            random,
            ..
        } = self.names;
        let alpha_text = format!(
            "---\nstage: start\n---\n# Alpha {random}\n\nThe marker {marker} is here. ^block{random}\n\n- [ ] check the box {marker}\n"
        );
        let beta_text = format!(
            "# Beta {random}\n\nSee [[Alpha {random}]] and [[Alpha {random}#^block{random}]].\n"
        );
        let gamma_text = format!("# Gamma {random}\n\nTo be trashed.\n");
        for (path, text) in [(alpha, alpha_text), (beta, beta_text), (gamma, gamma_text)] {
            self.ok("create_note", json!({"path": path, "content": text}))
                .await?;
        }
        let again = self
            .client
            .call("create_note", json!({"path": alpha, "content": "x"}))
            .await
            .map_err(|error| format!("create_note: {error}"))?;
        if !client::is_error(&again) {
            return Err(format!(
                "create_note over the existing {alpha} was not refused"
            ));
        }
        Ok(format!(
            "3 notes created, a second create of {alpha} refused"
        ))
    }

    async fn edit(&mut self) -> Result<String, Failed> {
        let alpha = &self.names.alpha;
        let read = self.ok("read_note", json!({"path": alpha})).await?;
        let hash = read
            .lines()
            .next()
            .and_then(|header| header.split(" sha256=").nth(1))
            .map(|rest| rest.split_whitespace().next().unwrap_or("").to_owned())
            .ok_or_else(|| format!("read_note of {alpha} gave no sha256 in its header"))?;
        self.ok(
            "str_replace",
            json!({"path": alpha, "old_text": "is here", "new_text": "is still here", "expected_hash": hash}),
        )
        .await?;
        let stale = self
            .client
            .call(
                "str_replace",
                json!({"path": alpha, "old_text": "still", "new_text": "no longer", "expected_hash": hash}),
            )
            .await
            .map_err(|error| format!("str_replace: {error}"))?;
        if !client::is_error(&stale) {
            return Err(format!(
                "str_replace on {alpha} with a stale expected_hash was not refused"
            ));
        }
        self.ok(
            "append",
            json!({"path": self.names.beta, "content": format!("\nAppended {}.\n", self.names.marker)}),
        )
        .await?;
        let now = self.ok("read_note", json!({"path": alpha})).await?;
        if !now.contains("is still here") || now.contains("no longer") {
            return Err(format!(
                "{alpha} does not hold what str_replace wrote (or the refused edit reached it)"
            ));
        }
        Ok("str_replace with expected_hash, a stale hash refused, append".to_owned())
    }

    async fn links(&mut self) -> Result<String, Failed> {
        let Names { alpha, beta, .. } = self.names;
        let outgoing = self
            .ok_json("outgoing_links", json!({"path": beta}))
            .await?;
        let resolved: Vec<&str> = outgoing["links"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|link| link["resolved"].as_str())
            .collect();
        if resolved.len() != 2 || resolved.iter().any(|path| path != alpha) {
            return Err(format!(
                "outgoing_links of {beta}: expected its 2 links resolved to {alpha}, got {resolved:?}"
            ));
        }
        let backlinks = self.ok_json("backlinks", json!({"path": alpha})).await?;
        let sources = paths(&backlinks["backlinks"]);
        if sources != [beta.as_str()] {
            return Err(format!(
                "backlinks of {alpha}: expected [{beta}], got {sources:?}"
            ));
        }
        Ok(format!(
            "{beta}'s links resolve to {alpha}, which lists it as its backlink"
        ))
    }

    async fn search(&mut self) -> Result<String, Failed> {
        let Names {
            folder,
            alpha,
            beta,
            marker,
            ..
        } = self.names;
        let found = self
            .ok_json(
                "search",
                json!({"query": marker, "path_prefix": format!("{folder}/")}),
            )
            .await?;
        let text = found.to_string();
        for note in [alpha, beta] {
            if !text.contains(&json!(note).to_string()) {
                return Err(format!("search for the marker did not find {note}"));
            }
        }
        Ok(format!("search found {alpha} and {beta}"))
    }

    async fn tasks(&mut self) -> Result<String, Failed> {
        let Names { folder, alpha, .. } = self.names;
        let prefix = format!("{folder}/");
        let open = self
            // Checkbox characters, compared as they are: the user's Tasks plugin statuses cannot change the count.
            .ok_json("tasks", json!({"path_prefix": prefix, "status": " "}))
            .await?;
        let tasks = open["tasks"].as_array().cloned().unwrap_or_default();
        let [task] = tasks.as_slice() else {
            return Err(format!(
                "tasks in {prefix}: expected 1 unchecked task, got {}",
                tasks.len()
            ));
        };
        let line = task["line"].as_u64().unwrap_or(0);
        self.ok(
            "set_task",
            json!({"path": alpha, "line": line, "status": "x", "expected_text": task["text"]}),
        )
        .await?;
        let done = self
            .ok_json("tasks", json!({"path_prefix": prefix, "status": "x"}))
            .await?;
        let count = done["tasks"].as_array().map_or(0, Vec::len);
        if count != 1 {
            return Err(format!(
                "after set_task, tasks in {prefix} lists {count} checked tasks, not 1"
            ));
        }
        let text = self.ok("read_note", json!({"path": alpha})).await?;
        if !text.contains("- [x] check the box") {
            return Err(format!("{alpha} does not show the task checked"));
        }
        Ok(format!(
            "the task of {alpha} (line {line}) checked by set_task"
        ))
    }

    async fn properties(&mut self) -> Result<String, Failed> {
        let Names { alpha, random, .. } = self.names;
        let key = format!("selftest{random}");
        self.ok(
            "set_property",
            json!({"path": alpha, "key": key, "value": random}),
        )
        .await?;
        let found = self
            .ok_json("properties", json!({"name": key, "value": random}))
            .await?;
        if !found.to_string().contains(&json!(alpha).to_string()) {
            return Err(format!(
                "properties did not find {alpha} by the property set on it"
            ));
        }
        let metadata = self
            .ok_json("note_metadata", json!({"path": alpha}))
            .await?;
        if metadata["frontmatter"][&key] != json!(random)
            || metadata["frontmatter"]["stage"] != "start"
        {
            return Err(format!(
                "note_metadata of {alpha} does not show both of its properties"
            ));
        }
        let deleted = self
            .ok_json("delete_property", json!({"path": alpha, "key": key}))
            .await?;
        if deleted["existed"] != json!(true) {
            return Err(format!(
                "delete_property did not find the property on {alpha}"
            ));
        }
        Ok(format!(
            "a property set on {alpha}, found vault-wide, read back, deleted"
        ))
    }

    async fn canvas(&mut self) -> Result<String, Failed> {
        let Names { canvas, alpha, .. } = self.names;
        std::fs::write(self.vault.join(canvas), "{\"nodes\":[],\"edges\":[]}\n")
            .map_err(|error| format!("could not write {canvas} on disk: {error}"))?;
        // Obsidian learns of a file written on disk from its watcher, a moment later.
        let started = Instant::now();
        loop {
            let result = self
                .client
                .call("canvas", json!({"path": canvas}))
                .await
                .map_err(|error| format!("canvas: {error}"))?;
            if !client::is_error(&result) {
                break;
            }
            if started.elapsed() > WATCHER_WAIT {
                return Err(format!(
                    "Obsidian did not see {canvas}, written on disk, within {} s: {}",
                    WATCHER_WAIT.as_secs(),
                    first_line(client::text_of(&result))
                ));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let first = self
            .ok_json(
                "edit_canvas",
                json!({"path": canvas, "node": {"type": "file", "file": alpha}}),
            )
            .await?;
        let file_node = first["node"]
            .as_str()
            .or_else(|| first["added"]["node"].as_str())
            .map(str::to_owned);
        let edge = file_node
            .as_ref()
            .map(|id| json!({"from": "new", "to": id}));
        let mut second = json!({"path": canvas, "node": {"type": "text", "text": "self-test"}});
        if let Some(edge) = edge {
            second["edge"] = edge;
        }
        self.ok("edit_canvas", second).await?;
        let read = self.ok_json("canvas", json!({"path": canvas})).await?;
        let nodes = read["nodes"].as_array().map_or(0, Vec::len);
        let edges = read["edges"].as_array().map_or(0, Vec::len);
        let wanted_edges = usize::from(file_node.is_some());
        if nodes != 2 || edges != wanted_edges {
            return Err(format!(
                "canvas {canvas}: expected 2 nodes and {wanted_edges} edge, read {nodes} and {edges}"
            ));
        }
        Ok(format!(
            "{canvas}: a file node, a text node and an edge added"
        ))
    }

    async fn rename(&mut self) -> Result<String, Failed> {
        let Names {
            alpha,
            beta,
            moved,
            random,
            ..
        } = self.names;
        self.ok("move_note", json!({"path": alpha, "new_path": moved}))
            .await?;
        let text = self.ok("read_note", json!({"path": beta})).await?;
        if text.contains(&format!("[[Alpha {random}"))
            || !text.contains(&format!("Renamed {random}"))
        {
            return Err(format!(
                "after move_note {alpha} → {moved}, {beta} still links to the old name: Obsidian did not update the links"
            ));
        }
        let backlinks = self.ok_json("backlinks", json!({"path": moved})).await?;
        let sources = paths(&backlinks["backlinks"]);
        if sources != [beta.as_str()] {
            return Err(format!(
                "backlinks of {moved} after the move: expected [{beta}], got {sources:?}"
            ));
        }
        let old = self
            .client
            .call("read_note", json!({"path": alpha}))
            .await
            .map_err(|error| format!("read_note: {error}"))?;
        if !client::is_error(&old) {
            return Err(format!("{alpha} can still be read after its move"));
        }
        Ok(format!(
            "{alpha} moved to {moved}; {beta}'s links follow it"
        ))
    }

    async fn trash(&mut self) -> Result<String, Failed> {
        let gamma = &self.names.gamma;
        let trashed = self.ok_json("delete_note", json!({"path": gamma})).await?;
        if trashed["trashed"] != json!(true) {
            return Err(format!("delete_note of {gamma} did not say it was trashed"));
        }
        let gone = self
            .client
            .call("read_note", json!({"path": gamma}))
            .await
            .map_err(|error| format!("read_note: {error}"))?;
        if !client::is_error(&gone) {
            return Err(format!("{gamma} can still be read after delete_note"));
        }
        Ok(format!("{gamma} trashed"))
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
