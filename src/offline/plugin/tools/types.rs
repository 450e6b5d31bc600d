//! What every tool shares (`tools/types.ts`): the context a run may use and its output; its error is
//! `crate::offline::plugin::vault::errors`, one floor down.

use std::path::Path;

use serde_json::Value;

use crate::offline::obsidian::metadata::Snapshot;
use crate::offline::plugin::vault::paths;

/// What a tool run may use.
pub(crate) struct Context<'a> {
    pub(crate) snapshot: &'a Snapshot,
    pub(crate) root: &'a Path,
    pub(crate) real: &'a paths::RealVault,
    pub(crate) config_dir: &'a str,
    pub(crate) read_only: bool,
    /// The word index the snapshot's notes are numbered in.
    pub(crate) words: &'a std::sync::RwLock<crate::offline::index::words::Words>,
    /// What answers a `search` the plugin has no mode for (search by meaning, `offline/semantic/`), so that a `batch`
    /// can hold one; none where there is no such answer.
    pub(crate) meaning: Option<&'a dyn MeaningSearch>,
}

/// A `search` answered outside the plugin's twin: by meaning (`offline/semantic/`).
pub(crate) trait MeaningSearch: Sync {
    /// Whether this call is one it answers.
    fn answers(&self, arguments: &Value) -> bool;
    /// Its answer, as a tool's output.
    fn search(
        &self,
        arguments: Value,
    ) -> Result<Output, crate::offline::plugin::vault::errors::ToolError>;
}

/// What a tool produced: compact JSON, or a note read (`[lines a-b of N]` header and text).
pub(crate) enum Output {
    Json(Value),
    Read {
        header: String,
        body: String,
    },
    /// `read_attachment`: a header line, then the image, audio or embedded-resource block.
    Attachment {
        header: String,
        block: Value,
    },
}

impl Output {
    /// The text the plugin would send.
    pub(crate) fn text(&self) -> String {
        match self {
            Output::Json(value) => serde_json::to_string(value).unwrap_or_default(),
            Output::Read { header, body } => format!("{header}\n{body}"),
            Output::Attachment { header, .. } => header.clone(),
        }
    }
}
