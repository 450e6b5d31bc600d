//! The exercise's steps, one method each, in the order `Steps::run_all` runs them. Every check that reads Obsidian's
//! metadata cache after a write goes through `Steps::settle`.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{Failed, Names, Steps, first_line, paths};
use crate::doctor::deep::client;

/// How long a change Obsidian learns from its file watcher (the canvas written on disk) may take to show.
const WATCHER_WAIT: Duration = Duration::from_secs(5);

impl Steps<'_> {
    pub(super) async fn create(&mut self) -> Result<String, Failed> {
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

    pub(super) async fn edit(&mut self) -> Result<String, Failed> {
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

    pub(super) async fn links(&mut self) -> Result<String, Failed> {
        self.settle(|steps| Box::pin(steps.check_links())).await
    }

    async fn check_links(&mut self) -> Result<String, Failed> {
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

    pub(super) async fn search(&mut self) -> Result<String, Failed> {
        self.settle(|steps| Box::pin(steps.check_search())).await
    }

    async fn check_search(&mut self) -> Result<String, Failed> {
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

    pub(super) async fn tasks(&mut self) -> Result<String, Failed> {
        let alpha = &self.names.alpha;
        let (line, text) = self
            .settle(|steps| Box::pin(steps.unchecked_task()))
            .await?;
        self.ok(
            "set_task",
            json!({"path": alpha, "line": line, "status": "x", "expected_text": text}),
        )
        .await?;
        self.settle(|steps| Box::pin(steps.task_checked())).await?;
        Ok(format!(
            "the task of {alpha} (line {line}) checked by set_task"
        ))
    }

    /// The one unchecked task of the scratch folder: its line and text.
    async fn unchecked_task(&mut self) -> Result<(u64, Value), Failed> {
        let prefix = format!("{}/", self.names.folder);
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
        Ok((task["line"].as_u64().unwrap_or(0), task["text"].clone()))
    }

    async fn task_checked(&mut self) -> Result<(), Failed> {
        let Names { folder, alpha, .. } = self.names;
        let prefix = format!("{folder}/");
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
        Ok(())
    }

    pub(super) async fn properties(&mut self) -> Result<String, Failed> {
        let Names { alpha, random, .. } = self.names;
        let key = format!("selftest{random}");
        self.ok(
            "set_property",
            json!({"path": alpha, "key": key, "value": random}),
        )
        .await?;
        self.settle(|steps| Box::pin(steps.property_found()))
            .await?;
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

    async fn property_found(&mut self) -> Result<(), Failed> {
        let Names { alpha, random, .. } = self.names;
        let key = format!("selftest{random}");
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
        Ok(())
    }

    pub(super) async fn canvas(&mut self) -> Result<String, Failed> {
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

    pub(super) async fn rename(&mut self) -> Result<String, Failed> {
        let Names {
            alpha, beta, moved, ..
        } = self.names;
        self.ok("move_note", json!({"path": alpha, "new_path": moved}))
            .await?;
        self.settle(|steps| Box::pin(steps.renamed())).await?;
        Ok(format!(
            "{alpha} moved to {moved}; {beta}'s links follow it"
        ))
    }

    async fn renamed(&mut self) -> Result<(), Failed> {
        let Names {
            alpha,
            beta,
            moved,
            random,
            ..
        } = self.names;
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
        Ok(())
    }

    pub(super) async fn trash(&mut self) -> Result<String, Failed> {
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
