//! What a shared or synced vault can bring, and what a client can send, that once cost the bridge its life or its
//! memory: a base nested 20,000 deep (the offline reader's stack overflowed), a line of 40,000 links, frontmatter
//! nested 60,000 deep (each took the offline index seconds, growing with the square), and a storm of 3,000
//! subscriptions (the bridge's memory grew with their square). The callers ask about the hostile files throughout;
//! the chaos loop sends the storm.

use std::path::Path;
use std::time::Duration;

use serde_json::json;

use super::client::Client;

/// The base whose views nest far past the bound.
pub(super) const DEEP_BASE: &str = "Soak/Hostile/Deep.base";
/// Its views.
pub(super) const DEEP_VIEWS: [&str; 4] = ["sum", "parentheses", "negations", "chain"];
/// A word only the note of 40,000 links holds.
pub(super) const LINKS_WORD: &str = "manylinksword";

pub(super) fn write_hostile_files(vault: &Path) {
    let folder = vault.join("Soak/Hostile");
    std::fs::create_dir_all(&folder).unwrap();
    let deep = 20_000;
    let views = [
        ("sum", vec!["1"; deep + 1].join("+")),
        (
            "parentheses",
            format!("{}1{}", "(".repeat(deep), ")".repeat(deep)),
        ),
        ("negations", format!("{}true", "!".repeat(deep))),
        ("chain", format!("\"a\"{}", ".lower()".repeat(deep))),
    ];
    let mut base = String::from("views:\n");
    for (name, filter) in views {
        base.push_str(&format!("  - name: {name}\n    filters: '{filter}'\n"));
    }
    std::fs::write(vault.join(DEEP_BASE), base).unwrap();
    std::fs::write(
        folder.join("Links.md"),
        format!("{LINKS_WORD}\n{}\n", "[[Soak note]] ".repeat(40_000)),
    )
    .unwrap();
    std::fs::write(
        folder.join("Tags.md"),
        format!("{}\n", "#soaktag ".repeat(50_000)),
    )
    .unwrap();
    std::fs::write(
        folder.join("Frontmatter.md"),
        format!(
            "---\nnested: {}1{}\n---\nbody\n",
            "[".repeat(60_000),
            "]".repeat(60_000)
        ),
    )
    .unwrap();
}

/// What the subscription storms saw.
#[derive(Default)]
pub(super) struct SubscriptionStorms {
    pub(super) storms: u64,
    pub(super) answered: u64,
    pub(super) unanswered: u64,
    /// The bridge's VmRSS (KiB) after each storm.
    pub(super) rss_after: Vec<u64>,
}

impl SubscriptionStorms {
    /// 3,000 `resources/subscribe` of distinct notes in a row, then as many `unsubscribe`: every one must be answered
    /// (with an empty result, or an error while Obsidian is away).
    pub(super) fn run(&mut self, client: &Client, bridge_pid: u32) {
        self.storms += 1;
        for method in ["resources/subscribe", "resources/unsubscribe"] {
            for i in 0..3000 {
                let uri = format!("obsidian://note/Soak/Storm/{}/{i:05}.md", self.storms);
                let id = format!("storm-{}-{method}-{i}", self.storms);
                match client.request(&id, method, json!({ "uri": uri }), Duration::from_secs(10)) {
                    Some(_) => self.answered += 1,
                    None => self.unanswered += 1,
                }
            }
        }
        if let Some(kib) = crate::support::rss_kib(bridge_pid) {
            self.rss_after.push(kib);
        }
    }
}
