//! Text search and the vault-wide reads from the index while Obsidian is open (the bridge's side is
//! `bridge/server/index_search.rs`): the index answers only while its answer is the plugin's, which needs a watcher it
//! can trust (so it is no older than Obsidian's last save), every note's text (none over the size offline mode reads)
//! and its word index (else a search is slow too). The answer is offline mode's, marked `index`.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use serde_json::Value;

use crate::offline::plugin::tools;
use crate::offline::{OfflineVault, Source, marked};

/// Why the index does not answer a search when nothing has built it yet (the bridge says then what would).
pub(crate) const NOT_BUILT: &str = "not built";

/// Why the index does not answer while another call holds it.
pub(crate) const BUSY: &str = "being built or checked against the folder";

/// How long a call waits for a check of the folder that another call runs, once the index exists: a few
/// milliseconds in a small vault, where Obsidian answered every such call before; at 100,000 notes a check can
/// take a second, and Obsidian answers after this wait.
const CHECK_WAIT: std::time::Duration = std::time::Duration::from_millis(100);

/// The tools the index answers while Obsidian is open: `search`, and the reads that look at every note, which the
/// plugin answers from Obsidian's metadata cache in 0.03 to 1.4 s at 100,000 notes, and `bases`, whose views test every
/// note (1.1 s through the plugin, 0.26 s here). The parity tests compare each with the plugin's answer on 10,000 notes, before and after edits through
/// Obsidian.
pub(crate) const INDEX_TOOLS: &[&str] = &[
    "search",
    "list_files",
    "tags",
    "files_by_tag",
    "tasks",
    "orphans",
    "unresolved_links",
    "properties",
    "bases",
];

impl OfflineVault {
    /// Whether a text search can be answered from the index while Obsidian is open, with the answer the plugin would
    /// give (`answer_from_index`), or why not. It never waits: an index being built or checked is not ready.
    pub(crate) fn index_search_ready(&self) -> Result<(), &'static str> {
        use std::sync::TryLockError;
        let state = match self.state.try_lock() {
            Ok(state) => state,
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(TryLockError::WouldBlock) => return Err(BUSY),
        };
        let Some(snapshot) = &state.snapshot else {
            return Err(if self.building.load(Ordering::SeqCst) {
                "being built"
            } else {
                NOT_BUILT
            });
        };
        if state.refused.is_some() {
            return Err("the hidden-path rules cannot be applied from disk");
        }
        match &state.watch {
            Some(watch) if watch.trouble().is_none() => {}
            // Without events it would trust a listing up to a second old: Obsidian's answer may be newer.
            _ => return Err("no file watcher it can trust"),
        }
        if !snapshot.too_large.is_empty() {
            return Err("some notes are over the size it reads (Obsidian searches them)");
        }
        if crate::lock::read(&self.words).dropped().is_some() {
            return Err("its word index was dropped for the memory budget");
        }
        Ok(())
    }

    /// [`Self::index_search_ready`], after waiting up to [`CHECK_WAIT`] for a check of the folder another call runs
    /// on an index that exists (blocking: call it off the async workers).
    pub(crate) fn ready_after_check(&self) -> Result<(), &'static str> {
        let started = std::time::Instant::now();
        loop {
            match self.index_search_ready() {
                Err(BUSY)
                    if self.built.load(Ordering::SeqCst) && started.elapsed() < CHECK_WAIT =>
                {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
                ready => return ready,
            }
        }
    }

    /// Answers one of [`INDEX_TOOLS`] from the index while Obsidian is open, when that answer is the plugin's
    /// ([`Self::index_search_ready`]): the same result as offline, marked `index` instead of `disk`. `None` when it
    /// cannot (then Obsidian answers): another tool, an index not ready, or a check of the folder that found what
    /// makes it unready.
    pub(crate) fn answer_from_index(&self, tool: &str, arguments: Value) -> Option<Value> {
        if !INDEX_TOOLS.contains(&tool) {
            return None;
        }
        self.ready_after_check().ok()?;
        let snapshot = self.fresh_snapshot(false).ok()?;
        // The check may have read a note too large to read, or passed the budget.
        self.index_search_ready().ok()?;
        let output = tools::run(&self.context(&snapshot), tool, arguments);
        Some(marked(output, Source::Index))
    }

    /// Builds (or loads) the index on a thread of its own, once: for searches while Obsidian is open.
    pub(crate) fn build_in_background(self: &Arc<Self>) {
        // A held lock means a build or a check of the folder runs already.
        let built = self
            .state
            .try_lock()
            .map_or(true, |state| state.snapshot.is_some());
        if built || self.building.swap(true, Ordering::SeqCst) {
            return;
        }
        let vault = Arc::clone(self);
        let spawned = std::thread::Builder::new()
            .name("obsmcp-index-build".into())
            .spawn(move || {
                vault.prepare();
                vault.catch_up_in_background();
                vault.building.store(false, Ordering::SeqCst);
            });
        if let Err(error) = spawned {
            self.building.store(false, Ordering::SeqCst);
            tracing::warn!(%error, "the offline index could not be built in the background");
        }
    }

    /// After an answer: the walk a first build owes (see `State::catch_up`), on a thread of its own, so that the
    /// first answer does not wait for it (a quarter to a third of a second at 100,000 notes) and the next most often
    /// finds it done. A call that comes meanwhile waits for it, as for any check.
    pub(crate) fn catch_up_in_background(self: &Arc<Self>) {
        if !self.catch_up_owed.swap(false, Ordering::SeqCst) {
            return;
        }
        let vault = Arc::clone(self);
        let spawned = std::thread::Builder::new()
            .name("obsmcp-index-catch-up".into())
            .spawn(move || {
                if let Err(refused) = vault.fresh_snapshot(false) {
                    tracing::debug!(%refused, "offline index: the walk after the first build was refused");
                }
            });
        if let Err(error) = spawned {
            tracing::warn!(%error, "offline index: no thread for the walk after the first build; the next call walks");
        }
    }

    /// Obsidian was passed a call that may change the vault: the next call checks the folder first.
    pub(crate) fn vault_may_have_changed(&self) {
        self.wrote.store(true, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::offline::tests::vault;
    use crate::offline::{SOURCE_META_KEY, strip_disk_marks};

    fn search(query: &str) -> Value {
        json!({"query": query, "limit": 500})
    }

    #[test]
    fn a_call_waits_a_moment_for_another_calls_check_of_the_folder_then_lets_obsidian_answer() {
        let (_dir, offline) = vault(&[("a.md", "alpha beta\n")]);
        let offline = std::sync::Arc::new(offline);
        offline.prepare();
        // Another call checks the folder: it holds the index until told to let go.
        let hold = |release: std::sync::mpsc::Receiver<()>| {
            let (held, holding) = std::sync::mpsc::channel();
            let vault = std::sync::Arc::clone(&offline);
            let holder = std::thread::spawn(move || {
                let _state = crate::lock::lock(&vault.state);
                held.send(()).unwrap();
                release.recv().unwrap();
            });
            holding.recv().unwrap();
            holder
        };
        let (release, released) = std::sync::mpsc::channel();
        let holder = hold(released);
        assert_eq!(offline.index_search_ready(), Err(super::BUSY));
        let letting_go = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            release.send(()).unwrap();
        });
        let answer = offline.answer_from_index("search", search("beta"));
        assert_eq!(answer.unwrap()["_meta"][SOURCE_META_KEY], "index");
        holder.join().unwrap();
        letting_go.join().unwrap();

        // A check that takes longer than the wait: Obsidian answers (no answer from the index).
        let (release, released) = std::sync::mpsc::channel();
        let holder = hold(released);
        assert!(
            offline
                .answer_from_index("search", search("beta"))
                .is_none()
        );
        release.send(()).unwrap();
        holder.join().unwrap();
    }

    #[test]
    fn the_index_answers_a_search_as_offline_mode_does_marked_as_the_index() {
        let (dir, offline) = vault(&[("a.md", "alpha beta\n"), ("b/c.md", "beta gamma\n")]);
        assert_eq!(offline.index_search_ready(), Err("not built"));
        assert!(
            offline
                .answer_from_index("search", search("beta"))
                .is_none()
        );
        offline.prepare();
        offline.index_search_ready().unwrap();
        let from_index = offline.answer_from_index("search", search("beta")).unwrap();
        assert_eq!(from_index["_meta"][SOURCE_META_KEY], "index");
        let text = from_index["content"][0]["text"].as_str().unwrap();
        assert!(text.ends_with(r#","served_from":"index"}"#), "{text}");
        let from_disk = offline.call_tool("search", search("beta")).unwrap();
        assert_eq!(
            strip_disk_marks(&from_disk)["content"],
            json!([{"type": "text", "text": text.replace(r#","served_from":"index""#, "")}])
        );

        // A change the bridge reports is in the very next answer, whatever the watcher said so far.
        std::fs::write(dir.path().join("d.md"), "beta delta\n").unwrap();
        offline.vault_may_have_changed();
        let after = offline
            .answer_from_index("search", search("delta"))
            .unwrap();
        assert!(
            after["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains(r#""path":"d.md""#),
            "{after}"
        );
    }

    #[test]
    fn the_index_does_not_answer_when_its_answer_could_differ_from_the_plugins() {
        // No watcher: a listing up to a second old would be trusted.
        let (_dir, unwatched) = vault(&[("a.md", "alpha\n")]);
        let unwatched = unwatched.with_refresh_interval(std::time::Duration::from_secs(1));
        unwatched.prepare();
        assert_eq!(
            unwatched.index_search_ready(),
            Err("no file watcher it can trust")
        );
        assert!(
            unwatched
                .answer_from_index("search", search("alpha"))
                .is_none()
        );

        // Past its memory budget: no word index, so it would read every note too.
        let (_dir, tight) = vault(&[("a.md", "alpha\n")]);
        let tight = tight.with_memory_budget_mb(0);
        tight.prepare();
        assert_eq!(
            tight.index_search_ready(),
            Err("its word index was dropped for the memory budget")
        );

        // A note over the size offline mode reads: Obsidian searches it, the index cannot.
        let big = "x".repeat(
            usize::try_from(crate::offline::plugin::vault::paths::MAX_FILE_BYTES).unwrap() + 1,
        );
        let (_dir, large) = vault(&[("a.md", "alpha\n"), ("big.md", &big)]);
        large.prepare();
        assert_eq!(
            large.index_search_ready(),
            Err("some notes are over the size it reads (Obsidian searches them)")
        );
        assert!(large.answer_from_index("search", search("alpha")).is_none());
        // Offline mode itself still answers, saying what it left out.
        let offline = large.call_tool("search", search("alpha")).unwrap();
        assert!(
            offline["content"][0]["text"]
                .as_str()
                .unwrap()
                .starts_with(r#"{"skipped_notes""#)
        );
    }

    #[test]
    fn a_build_in_the_background_makes_the_index_ready_once() {
        let (_dir, offline) = vault(&[("a.md", "alpha\n")]);
        let offline = std::sync::Arc::new(offline);
        offline.build_in_background();
        offline.build_in_background();
        let started = std::time::Instant::now();
        while offline.index_search_ready().is_err() {
            assert!(
                started.elapsed() < std::time::Duration::from_secs(10),
                "{:?}",
                offline.index_search_ready()
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(
            offline
                .answer_from_index("search", search("alpha"))
                .is_some()
        );
    }
}
