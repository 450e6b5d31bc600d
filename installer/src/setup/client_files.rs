//! The chosen clients' config files, each read and parsed once before planning, so that every vault's server name
//! and entry is decided against the same view of them; and, once the files are planned, the report lines for each
//! client's entries and permission rules, read back from those planned files.

use std::path::PathBuf;

use serde_json::Value;

use super::{SetupPlan, SetupRequest};
use crate::clients::{ClientSpec, read_servers};
use crate::document;
use crate::plan::write;
use crate::plan::{Change, Item, Problem, change_of};

/// One client's current file, read once.
pub(super) struct ClientFile {
    pub(super) client: &'static ClientSpec,
    pub(super) path: PathBuf,
    pub(super) servers: serde_json::Map<String, Value>,
}

pub(super) fn read_clients(request: &SetupRequest<'_>, plan: &mut SetupPlan) -> Vec<ClientFile> {
    let mut found = Vec::new();
    for client in &request.clients {
        let location = client.locate(request.environment);
        if let Some(problem) = location.problem {
            plan.problems.push(Problem {
                scope: client.name.to_owned(),
                message: problem,
                hint: None,
            });
            continue;
        }
        let path = write::resolve(&location.config);
        let text = match write::read_text(&path) {
            Ok(text) => text.unwrap_or_default(),
            Err(error) => {
                plan.problems.push(Problem {
                    scope: client.name.to_owned(),
                    message: error.to_string(),
                    hint: None,
                });
                continue;
            }
        };
        match read_servers(client, &text) {
            Ok(servers) => found.push(ClientFile {
                client,
                path,
                servers,
            }),
            Err(error) => plan.problems.push(Problem {
                scope: client.name.to_owned(),
                message: format!("`{}` was left untouched: {error}", path.display()),
                hint: Some(format!(
                    "fix the file, or leave {} out with --client",
                    client.name
                )),
            }),
        }
    }
    found
}

/// Reports one item per client entry and per permission set, from the planned files.
pub(super) fn describe_client_items(
    request: &SetupRequest<'_>,
    client_files: &[ClientFile],
    plan: &mut SetupPlan,
) {
    let mut items = Vec::new();
    for client_file in client_files {
        let client = client_file.client;
        let Some(change) = plan
            .files
            .iter()
            .find(|change| change.path == client_file.path)
        else {
            continue;
        };
        let (before, after) = change.values();
        for vault in &plan.vaults {
            let path = client.entry_path(&vault.server_name);
            items.push(Item {
                scope: client.name.to_owned(),
                subject: format!("server `{}` → vault {}", vault.server_name, vault.name),
                change: change_of(
                    document::lookup(&before, &path),
                    document::lookup(&after, &path),
                ),
                path: client_file.path.clone(),
            });
        }
        if let Some(permissions) = client.permissions.as_ref().filter(|_| request.permissions) {
            let settings = write::resolve(&(permissions.locate)(request.environment));
            if let Some(change) = plan.files.iter().find(|change| change.path == settings) {
                let state = if !change.is_change() {
                    Change::Unchanged
                } else if change.before.is_none() {
                    Change::Added
                } else {
                    Change::Updated
                };
                items.push(Item {
                    scope: client.name.to_owned(),
                    subject: format!(
                        "permission rules pre-approving {} read-only tools (settings.json)",
                        request.read_only_tools.len()
                    ),
                    change: state,
                    path: settings,
                });
            }
        }
    }
    plan.items.extend(items);
}
