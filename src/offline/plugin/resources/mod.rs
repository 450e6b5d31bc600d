//! The vault's files as resources, from disk (`obsidian-plugin/src/resources/`): `resources/list` a page at a time,
//! the one file template, `resources/read` (text files as `read_note` renders them, other files as base64 blobs up to
//! [`BLOB_LIMIT`]) and the path completion. The rules both sides follow are in
//! `obsidian-plugin/src/resources/README.md`; `tests/it/offline/resources.rs` compares them through the bridge.

mod complete;
mod mime;
mod uri;

use base64::Engine;
use serde_json::{Value, json};

use crate::offline::obsidian::metadata::{Entry, Snapshot};
use crate::offline::plugin::tools::{self, Context, Output, ToolError, iso_time};
use crate::offline::plugin::vault::paths::{
    BytesRefusal, clean_vault_path, is_in_config_dir, mib, quote,
};
pub(crate) use complete::{Candidate, candidates, complete};
pub(crate) use mime::kind_of;
pub(crate) use uri::{PATH_TEMPLATE, URI_PREFIX, path_of, uri_of};

/// Resources per page of `resources/list`.
pub(crate) const PAGE_SIZE: usize = 500;

/// The largest file `resources/read` returns as a blob.
pub(crate) const BLOB_LIMIT: u64 = 10 * 1024 * 1024;

/// JSON-RPC's invalid-params code, which resource-not-found shares in both protocol eras.
const INVALID_PARAMS: i64 = -32602;

/// A request the vault cannot answer: a JSON-RPC error.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RpcFailure {
    pub(crate) code: i64,
    pub(crate) message: String,
    pub(crate) data: Option<Value>,
}

impl RpcFailure {
    pub(crate) fn invalid(message: String) -> Self {
        Self {
            code: INVALID_PARAMS,
            message,
            data: None,
        }
    }

    fn not_found(uri: &str, message: String) -> Self {
        Self {
            code: INVALID_PARAMS,
            message,
            data: Some(json!({ "uri": uri })),
        }
    }
}

/// One page of `resources/list`: the visible files after `cursor` in path order.
pub(crate) fn list(snapshot: &Snapshot, config_dir: &str, cursor: Option<&str>) -> Value {
    let files = snapshot.sorted_entries().filter_map(|entry| match entry {
        Entry::File(index) => Some(&snapshot.files[index]),
        Entry::Folder(_) => None,
    });
    let mut after = files
        .filter(|file| !is_in_config_dir(&file.path, config_dir))
        .skip_while(|file| {
            cursor.is_some_and(|cursor| crate::offline::js::js_cmp(&file.path, cursor).is_le())
        });
    let page: Vec<Value> = after
        .by_ref()
        .take(PAGE_SIZE)
        .map(|file| {
            json!({
                "uri": uri_of(&file.path),
                "name": file.path,
                "title": file.title(),
                "mimeType": kind_of(file.extension()).0,
                "size": file.size,
                "annotations": { "lastModified": iso_time(file.mtime) },
            })
        })
        .collect();
    let more = after.next().is_some();
    let mut result = json!({ "resources": page });
    if more
        && let Some(last) = result["resources"]
            .as_array()
            .and_then(|page| page.last())
            .map(|last| last["name"].clone())
    {
        result["nextCursor"] = last;
    }
    result
}

/// `resources/templates/list`.
pub(crate) fn templates() -> Value {
    json!({ "resourceTemplates": [{
        "uriTemplate": PATH_TEMPLATE,
        "name": "vault-file",
        "title": "Vault file",
        "description": "A note or attachment of the vault by its vault-relative path, e.g. Projects/Plan.md or Images/chart.png \
                        (completion suggests paths by file name, alias and path).",
    }] })
}

/// `resources/read` of one URI.
pub(crate) fn read(ctx: &Context<'_>, uri: &str) -> Result<Value, RpcFailure> {
    let Some(raw) = path_of(uri) else {
        return Err(RpcFailure::not_found(
            uri,
            format!(
                "Resource not found: {uri} is not a vault file URI (they look like {URI_PREFIX}Folder/Note.md)"
            ),
        ));
    };
    let refused = |ToolError(message): ToolError| RpcFailure::invalid(format!("{uri}: {message}"));
    let path = clean_vault_path(&raw, ctx.config_dir, "path").map_err(refused)?;
    let Some(file) = ctx.snapshot.file(&path) else {
        let what = if ctx.snapshot.is_folder(&path) {
            format!("{} is a folder, not a file", quote(&path))
        } else {
            format!("no file {} in the vault", quote(&path))
        };
        return Err(RpcFailure::not_found(
            uri,
            format!("Resource not found: {uri} ({what})"),
        ));
    };
    let (mime, text) = kind_of(file.extension());
    if text {
        let output = tools::run(ctx, "read_note", json!({ "path": path })).map_err(refused)?;
        let Output::Read { header, body } = output else {
            unreachable!("read_note renders a read");
        };
        return Ok(
            json!({ "contents": [{ "uri": uri, "mimeType": mime, "text": format!("{header}\n{body}") }] }),
        );
    }
    let bytes = ctx
        .bytes_of(file, BLOB_LIMIT)
        .map_err(|refusal| match refusal {
            BytesRefusal::Refused(error) => refused(error),
            BytesRefusal::TooLarge(size) => RpcFailure {
                code: INVALID_PARAMS,
                message: format!(
                    "{path} is {} MiB ({size} bytes); resources/read returns files up to {} MiB",
                    mib(size),
                    mib(BLOB_LIMIT)
                ),
                data: Some(json!({ "uri": uri, "size": size, "limit": BLOB_LIMIT })),
            },
        })?;
    let blob = base64::engine::general_purpose::STANDARD.encode(bytes);
    Ok(json!({ "contents": [{ "uri": uri, "mimeType": mime, "blob": blob }] }))
}

/// `completion/complete` of a resource template: the path completion of the file template; another template,
/// argument or reference type is refused (prompts are completed by `crate::offline::plugin::prompts`).
pub(crate) fn completion(
    snapshot: &Snapshot,
    candidates: &[Candidate],
    params: &Value,
) -> Result<Value, RpcFailure> {
    let reference = &params["ref"];
    let argument = params["argument"]["name"].as_str().unwrap_or_default();
    let typed = params["argument"]["value"].as_str().unwrap_or_default();
    match reference["type"].as_str() {
        Some("ref/resource") => {
            let template = reference["uri"].as_str().unwrap_or_default();
            if template != PATH_TEMPLATE {
                return Err(RpcFailure::invalid(format!(
                    "no resource template {template}: the vault's is {PATH_TEMPLATE}"
                )));
            }
            if argument != "path" {
                return Err(RpcFailure::invalid(format!(
                    "{PATH_TEMPLATE} has one argument, path, not {argument}"
                )));
            }
            Ok(json!({ "completion": complete(snapshot, candidates, typed) }))
        }
        _ => Err(RpcFailure::invalid(
            "completion/complete needs ref.type \"ref/resource\" or \"ref/prompt\"".into(),
        )),
    }
}
