//! Edits of large notes that were interrupted. Before it edits a note of a mebibyte or more, the plugin keeps the
//! note's text in `<config>/plugins/obsmcp/kept/ID.md` with a record `ID.json` (`{path, before, after}`: the note's
//! vault path and the SHA-256 of its text before and after the edit) and removes both once the edit is verified
//! (`obsidian-plugin/src/vault/kept.ts`). A record found here means Obsidian or the machine stopped during the edit.
//! Obsidian writes a note in place, so the note may then be cut: when it matches neither hash it is reported, and
//! `--fix` puts the kept text beside it (never over it: the note may have been edited since) for the user to compare.
//! A note that matches a hash lost nothing, and `--fix` only clears the leftover copy. A record is data in a folder a
//! synced vault carries, so its path is used only when it is a plain vault-relative note path, and the text is put
//! beside it only where the folder's real location is inside the vault and outside its config folder.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::doctor::report::{Check, Repair};
use crate::offline::content_hash;

/// The check's id.
const ID: &str = "notes.interrupted_edits";

/// What a name gets before `.md` when the kept text is put beside its note.
const BESIDE: &str = " (before an interrupted edit)";

#[derive(Deserialize)]
struct Record {
    path: String,
    before: String,
    after: Option<String>,
}

/// One edit's files in the kept folder (`ID.md`, `ID.json`, perhaps `ID.json.tmp`), judged.
struct Found {
    /// The folder and ID: the files are this with `.md`, `.json` and `.json.tmp` after it.
    id: PathBuf,
    state: State,
}

enum State {
    /// The note holds what it held before the edit, or what the edit wrote: nothing was lost.
    Whole,
    /// The note matches neither, or is gone: the kept text may be all that is left of it.
    Interrupted { note: String },
    /// No readable record, or no kept text (a crash before the edit began, or a file that is not the plugin's):
    /// nothing to offer back.
    Leftover,
}

impl Found {
    fn file(&self, ending: &str) -> PathBuf {
        let mut name = self.id.clone().into_os_string();
        name.push(ending);
        PathBuf::from(name)
    }
}

fn kept_folder(vault: &Path, config_dir: &str) -> PathBuf {
    vault
        .join(config_dir)
        .join("plugins")
        .join(obsmcp_installer::obsidian_files::plugin_data::PLUGIN_ID)
        .join("kept")
}

/// Every record in the kept folder, judged, in name order (oldest first).
fn survey(vault: &Path, config_dir: &str) -> Vec<Found> {
    let folder = kept_folder(vault, config_dir);
    let Ok(entries) = std::fs::read_dir(&folder) else {
        return Vec::new();
    };
    let mut ids: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let id = [".json.tmp", ".json", ".md"]
                .iter()
                .find_map(|ending| name.strip_suffix(ending))?;
            Some(folder.join(id))
        })
        .collect();
    ids.sort();
    ids.dedup();
    ids.into_iter()
        .map(|id| {
            let mut found = Found {
                id,
                state: State::Leftover,
            };
            let parsed = std::fs::read(found.file(".json"))
                .ok()
                .and_then(|bytes| serde_json::from_slice::<Record>(&bytes).ok())
                .filter(|parsed| {
                    found.file(".md").is_file() && plain_note_path(&parsed.path, config_dir)
                });
            let Some(parsed) = parsed else {
                return found;
            };
            let now = std::fs::read(vault.join(&parsed.path))
                .ok()
                .map(|bytes| content_hash(&String::from_utf8_lossy(&bytes)));
            found.state = match now {
                Some(hash) if hash == parsed.before || Some(&hash) == parsed.after.as_ref() => {
                    State::Whole
                }
                _ => State::Interrupted { note: parsed.path },
            };
            found
        })
        .collect()
}

/// Whether `path` is a note path the plugin could have written: relative, `/`-separated, no empty, `.` or `..`
/// segment, no backslash, colon or NUL, ending in `.md`, and not inside the config folder.
fn plain_note_path(path: &str, config_dir: &str) -> bool {
    let segments: Vec<&str> = path.split('/').collect();
    path.ends_with(".md")
        && !path.contains(['\\', ':', '\0'])
        && segments
            .iter()
            .all(|segment| !matches!(*segment, "" | "." | ".."))
        && !segments[0].eq_ignore_ascii_case(config_dir.split('/').next().unwrap_or(config_dir))
}

/// The check, when the kept folder holds any record.
pub(super) fn interrupted_edits(vault: &Path, config_dir: &str) -> Option<Check> {
    let found = survey(vault, config_dir);
    if found.is_empty() {
        return None;
    }
    let repair = Repair::KeptCopies {
        vault: vault.to_path_buf(),
        config_dir: config_dir.to_string(),
    };
    let interrupted: Vec<&str> = found
        .iter()
        .filter_map(|found| match &found.state {
            State::Interrupted { note } => Some(note.as_str()),
            _ => None,
        })
        .collect();
    let beside: Vec<String> = interrupted
        .iter()
        .map(|note| format!("`{}`", beside_name(note, 1)))
        .collect();
    let check = if interrupted.is_empty() {
        Check::warn(
            ID,
            format!(
                "{} leftover cop{} of notes from edits that were interrupted, but every note is whole",
                found.len(),
                if found.len() == 1 { "y" } else { "ies" }
            ),
            "`obsmcp doctor --fix` removes them",
        )
    } else {
        let named: Vec<String> = interrupted.iter().map(|note| format!("`{note}`")).collect();
        Check::fail(
            ID,
            format!(
                "an edit of {} was interrupted (Obsidian or the machine stopped while it wrote), and the note holds \
                 neither its text before the edit nor what the edit wrote: it may be cut short. Its text from before \
                 the edit is kept",
                named.join(", ")
            ),
            format!(
                "`obsmcp doctor --fix` puts the kept text beside the note, as {} (the note itself is left as it \
                 is); compare the two and keep what you want. The kept texts are in `{}`",
                beside.join(", "),
                kept_folder(vault, config_dir).display()
            ),
        )
    };
    Some(check.with_repair(repair))
}

/// `--fix`: puts each interrupted note's kept text beside it, and clears every record; what it did, in one line.
pub(crate) fn repair(vault: &Path, config_dir: &str) -> anyhow::Result<Option<String>> {
    use anyhow::Context as _;
    let mut restored = Vec::new();
    let mut cleared = 0;
    for found in survey(vault, config_dir) {
        if let State::Interrupted { note } = &found.state {
            let beside = place_beside(vault, config_dir, note, &found.file(".md"))
                .with_context(|| format!("could not put the kept text of `{note}` beside it"))?;
            restored.push(beside);
        }
        for file in [".json", ".json.tmp", ".md"].map(|ending| found.file(ending)) {
            match std::fs::remove_file(&file) {
                Ok(()) => {}
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
                Err(error) => {
                    return Err(error)
                        .with_context(|| format!("could not remove `{}`", file.display()));
                }
            }
        }
        cleared += 1;
    }
    Ok(match (cleared, restored.is_empty()) {
        (0, _) => None,
        (_, true) => Some(format!(
            "removed {cleared} leftover kept cop{}",
            if cleared == 1 { "y" } else { "ies" }
        )),
        (_, false) => Some(format!(
            "put the text from before an interrupted edit beside its note: {}",
            restored.join(", ")
        )),
    })
}

/// The vault path of the `number`th note beside `note` (`Folder/NAME (before an interrupted edit) 2.md`).
fn beside_name(note: &str, number: usize) -> String {
    let stem = note.strip_suffix(".md").unwrap_or(note);
    match number {
        1 => format!("{stem}{BESIDE}.md"),
        _ => format!("{stem}{BESIDE} {number}.md"),
    }
}

/// Copies `copy` to a new note beside `note` (`NAME (before an interrupted edit).md`, numbered when taken); its vault
/// path.
fn place_beside(vault: &Path, config_dir: &str, note: &str, copy: &Path) -> anyhow::Result<String> {
    let text = std::fs::read(copy)?;
    for number in 1.. {
        let path = beside_name(note, number);
        let full = vault.join(&path);
        let parent = full.parent().unwrap_or(vault);
        std::fs::create_dir_all(parent)?;
        // A folder on the way may be a link: the new note goes only where the folder really is inside the vault.
        let real_vault = obsmcp_installer::environment::real_path(vault)?;
        let real_parent = obsmcp_installer::environment::real_path(parent)?;
        if !real_parent.starts_with(&real_vault)
            || real_parent.starts_with(real_vault.join(config_dir))
        {
            anyhow::bail!(
                "`{}` leads outside the vault or into its config folder; the kept text stays in the kept folder",
                parent.display()
            );
        }
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&full)
        {
            Ok(mut file) => {
                std::io::Write::write_all(&mut file, &text)?;
                file.sync_all()?;
                return Ok(path);
            }
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(error) => return Err(error.into()),
        }
    }
    unreachable!("some number is free")
}
