//! The soak's vault edits: while Obsidian (the plugin host) is down, notes are created, edited, renamed into a new
//! folder and deleted on disk, as another editor or a sync tool would; after each step an offline search through the
//! bridge must show it within [`SEEN_WITHIN`] (the file watcher marks the index stale, the next call checks it).

use std::path::Path;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::client::Client;
use super::figures::short;

/// How long after a write an offline answer may still show the vault as it was: well under the second for which an
/// index without a watcher is trusted, so only the watcher meets it every time (it takes tens of milliseconds here).
const SEEN_WITHIN: Duration = Duration::from_millis(700);

/// One edit: what it is, the change, the word searched for, and the one note it must then find (none: no note).
type Step<'a> = (&'static str, Box<dyn Fn() + 'a>, &'a str, Option<&'a str>);

/// What the edits' searches found.
#[derive(Default)]
pub struct Edits {
    /// Edit rounds run, and steps checked.
    pub rounds: u64,
    pub steps: u64,
    /// The longest time from a write to the call whose answer showed it (how stale offline answers were).
    pub slowest: Duration,
    /// Steps whose effect no answer showed in time, with the last answer.
    pub missed: Vec<String>,
}

/// The note paths a search for `word` finds (offline answers only), or why there is no such answer.
fn found(client: &Client, id: &str, word: &str) -> Result<Vec<String>, String> {
    let call = json!({ "name": "search", "arguments": { "query": word } });
    let (answer, _) = client
        .request(id, "tools/call", call, Duration::from_secs(20))
        .ok_or("no answer")?;
    if answer["result"]["_meta"]["obsmcp/source"] != "disk" {
        return Err(format!("not answered from disk: {}", short(&answer)));
    }
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or("");
    let result: Value = serde_json::from_str(text).map_err(|_| short(&answer))?;
    Ok(result["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|hit| hit["path"].as_str().map(str::to_string))
        .collect())
}

impl Edits {
    /// One round of edits in `vault`'s `Soak/edits/`, each checked by searches until it shows.
    pub fn run(&mut self, vault: &Path, client: &Client) {
        let round = self.rounds;
        self.rounds += 1;
        let folder = vault.join("Soak/edits");
        let moved = folder.join(format!("moved{round}"));
        let (note, renamed) = (
            format!("Soak/edits/e{round}.md"),
            format!("Soak/edits/moved{round}/e{round}.md"),
        );
        let (first, second) = (
            format!("soakedit{round}first"),
            format!("soakedit{round}second"),
        );
        std::fs::create_dir_all(&folder).unwrap();
        let steps: [Step<'_>; 4] = [
            (
                "created",
                Box::new(|| std::fs::write(vault.join(&note), format!("{first}\n")).unwrap()),
                &first,
                Some(&note),
            ),
            (
                "edited",
                Box::new(|| {
                    std::fs::write(vault.join(&note), format!("now {second}, longer\n")).unwrap()
                }),
                &second,
                Some(&note),
            ),
            (
                "renamed into a new folder",
                Box::new(|| {
                    std::fs::create_dir_all(&moved).unwrap();
                    std::fs::rename(vault.join(&note), vault.join(&renamed)).unwrap();
                }),
                &second,
                Some(&renamed),
            ),
            (
                "deleted",
                Box::new(|| std::fs::remove_file(vault.join(&renamed)).unwrap()),
                &second,
                None,
            ),
        ];
        for (step, (what, change, word, expected)) in steps.iter().enumerate() {
            change();
            let written = Instant::now();
            self.steps += 1;
            let mut last = Err(String::new());
            let mut shown = false;
            while !shown && written.elapsed() < SEEN_WITHIN {
                let asked = written.elapsed();
                last = found(
                    client,
                    &format!("edit-{round}-{step}-{}", asked.as_micros()),
                    word,
                );
                let shows = match (&last, expected) {
                    (Ok(paths), Some(path)) => paths.len() == 1 && paths[0] == *path,
                    (Ok(paths), None) => paths.is_empty(),
                    (Err(_), _) => false,
                };
                if shows {
                    self.slowest = self.slowest.max(asked);
                    shown = true;
                } else {
                    thread::sleep(Duration::from_millis(20));
                }
            }
            if !shown {
                self.missed
                    .push(format!("{what} ({word}): last answer {last:?}"));
            }
        }
        // The emptied folder goes too, as a user tidying up would.
        let _ = std::fs::remove_dir(&moved);
    }
}
