//! Against the obsmcp plugin hosted in Node (`--vault`): Obsidian closed, restarted, killed mid-call, sessions gone
//! stale, read-only, legacy SSE, shutdown. This file holds the harness (a temporary home with the fixture vault and
//! the plugin's data); the tests are grouped by what they exercise: the plugin coming and going, the client's stdio,
//! and what the bridge refuses or keeps back.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::bridge::{Bridge, is_error, text_of};
use crate::support::{PluginHost, TempHome, fixture_vault, free_port, signal, write_plugin_data};

mod annotations;
mod eras;
mod guards;
mod meaning;
mod profiles;
mod resources;
mod restarts;
mod several;
mod startup;
mod stdio;
pub(super) const TOKEN: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

pub(super) fn catalog_names() -> Vec<String> {
    let text =
        std::fs::read_to_string(crate::support::repo_root().join("obsidian-plugin/catalog.json"))
            .unwrap();
    let catalog: Value = serde_json::from_str(&text).unwrap();
    catalog["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_string())
        .collect()
}

pub(super) struct Setup {
    pub(super) home: TempHome,
    pub(super) vault: std::path::PathBuf,
    pub(super) port: u16,
}

pub(super) fn setup() -> Setup {
    let home = TempHome::new();
    let vault = fixture_vault(&home);
    let port = free_port();
    write_plugin_data(&vault, port, TOKEN);
    Setup { home, vault, port }
}

impl Setup {
    pub(super) fn host(&self) -> PluginHost {
        PluginHost::start(&self.vault, self.port, TOKEN, &[])
    }

    /// `obsmcp bridge --vault` with piped stdio and no test client on it, for tests that read or close its raw
    /// streams themselves.
    pub(super) fn raw_bridge(&self) -> crate::support::ChildGuard {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_obsmcp"));
        command
            .args(["bridge", "--vault", self.vault.to_str().unwrap()])
            .envs(self.home.env())
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped());
        crate::support::ChildGuard::spawn("bridge", command)
    }

    pub(super) fn bridge(&self, extra: &[&str]) -> Bridge {
        let mut args = vec!["--vault", self.vault.to_str().unwrap()];
        args.extend_from_slice(extra);
        Bridge::start(&self.home, &args)
    }
}
