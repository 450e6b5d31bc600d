//! The requests other than tool calls that offline mode answers (`OfflineVault::request`): resources, prompts and
//! completion, each marked as served from disk. Resources are `resources/`, prompts `prompts/`.

use std::sync::Arc;

use serde_json::{Value, json};

use super::prompts;
use super::resources::{self, Candidate, RpcFailure};
use crate::lock::lock;
use crate::offline::js::js_trim;
use crate::offline::obsidian::metadata::Snapshot;
use crate::offline::{OfflineVault, SOURCE_META_KEY};

impl OfflineVault {
    /// Answers `resources/list`, `resources/templates/list`, `resources/read`, `prompts/list`, `prompts/get` or
    /// `completion/complete` from disk, marked as served from disk; `None` for any other method.
    pub(crate) fn request(
        &self,
        method: &str,
        params: &Value,
    ) -> Option<Result<Value, RpcFailure>> {
        match method {
            "resources/list"
            | "resources/read"
            | "prompts/list"
            | "prompts/get"
            | "completion/complete" => {}
            "resources/templates/list" => return Some(Ok(marked(resources::templates()))),
            _ => return None,
        }
        let snapshot = match self.fresh_snapshot(false) {
            Ok(snapshot) => snapshot,
            Err(refused) => {
                return Some(Err(RpcFailure {
                    code: -32603,
                    message: refused.to_string(),
                    data: None,
                }));
            }
        };
        let ctx = self.context(&snapshot);
        let answer = match method {
            "resources/list" => Ok(resources::list(
                &snapshot,
                &self.config_dir,
                params.get("cursor").and_then(Value::as_str),
            )),
            "resources/read" => resources::read(&ctx, params["uri"].as_str().unwrap_or_default())
                .map(|mut result| {
                    if let Some(text) = result.pointer_mut("/contents/0/text")
                        && let Some((header, body)) =
                            text.as_str().and_then(|text| text.split_once('\n'))
                    {
                        *text = json!(format!("{header} served_from=disk\n{body}"));
                    }
                    result
                }),
            "prompts/list" => Ok(prompts::list(&ctx, &self.prompts_folder())),
            "prompts/get" => prompts::get(&ctx, &self.prompts_folder(), params),
            _ => {
                let candidates = self.candidates(&snapshot);
                let reference = &params["ref"];
                if reference["type"] == "ref/prompt" {
                    prompts::complete_argument(
                        &ctx,
                        &self.prompts_folder(),
                        &candidates,
                        reference["name"].as_str().unwrap_or_default(),
                        params["argument"]["name"].as_str().unwrap_or_default(),
                        params["argument"]["value"].as_str().unwrap_or_default(),
                    )
                    .map(|completion| json!({ "completion": completion }))
                } else {
                    resources::completion(&snapshot, &candidates, params)
                }
            }
        };
        Some(answer.map(marked))
    }

    /// The prompts folder the plugin's settings name (`promptsFolder` in `data.json`, read again at each request as
    /// the plugin applies a change at once); the default when it names none.
    fn prompts_folder(&self) -> String {
        let path = obsmcp_installer::obsidian_files::plugin_data::data_json_path(
            &self.root,
            &self.config_dir,
        );
        let stored = std::fs::read_to_string(path)
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
            .and_then(|data| {
                data.get("promptsFolder")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            });
        match stored {
            Some(folder) => js_trim(&folder).trim_matches('/').to_string(),
            None => prompts::DEFAULT_FOLDER.to_string(),
        }
    }

    /// The completion candidates of `snapshot`, kept until the next snapshot.
    fn candidates(&self, snapshot: &Arc<Snapshot>) -> Arc<Vec<Candidate>> {
        if let Some((of, candidates)) = &lock(&self.state).candidates
            && Arc::ptr_eq(of, snapshot)
        {
            return Arc::clone(candidates);
        }
        let candidates = Arc::new(resources::candidates(snapshot, &self.config_dir));
        lock(&self.state).candidates = Some((Arc::clone(snapshot), Arc::clone(&candidates)));
        candidates
    }
}

/// A result with the mark of an answer from disk.
fn marked(mut result: Value) -> Value {
    result["_meta"] = json!({SOURCE_META_KEY: "disk"});
    result
}
