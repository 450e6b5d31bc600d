//! The soak's symlink swap: while reads of one note run, another thread keeps replacing the note with a symlink to a
//! file outside the vault and back, as a program that can write in the vault could. No read may return that file.

use std::path::Path;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::json;

use super::client::Client;
use super::figures::short;

/// The note another thread turns into a symlink to a file outside the vault and back, during reads of it.
pub const SWAP_NOTE: &str = "Soak/swap.md";
pub const SWAP_SECRET: &str = "soak-secret-outside-the-vault";

/// What the reads of the swapped note got.
#[derive(Default)]
pub struct Swaps {
    pub reads: u64,
    pub inside: u64,
    pub refused: u64,
    pub unanswered: u64,
    /// Answers that held the text of the file outside the vault.
    pub leaks: Vec<String>,
}

impl Swaps {
    pub fn run(&mut self, vault: &Path, outside: &Path, client: &Client, duration: Duration) {
        use std::sync::atomic::{AtomicBool, Ordering};
        std::fs::create_dir_all(outside).unwrap();
        let secret = outside.join("secret.md");
        std::fs::write(&secret, format!("{SWAP_SECRET}\n")).unwrap();
        let note = vault.join(SWAP_NOTE);
        let spare = vault.join("Soak/swap.spare");
        let stop = Arc::new(AtomicBool::new(false));
        let swapper = {
            let (stop, note, spare) = (Arc::clone(&stop), note.clone(), spare.clone());
            thread::spawn(move || {
                while !stop.load(Ordering::SeqCst) {
                    // Renames replace the note in one step, as an editor or a sync tool would.
                    let _ = std::fs::write(&spare, "swap note inside\n");
                    let _ = std::fs::rename(&spare, &note);
                    // The soak runs on Unix (its chaos sends signals); the symlink is its escape attempt.
                    #[cfg(unix)]
                    let _ = std::os::unix::fs::symlink(&secret, &spare);
                    let _ = std::fs::rename(&spare, &note);
                }
            })
        };
        let until = Instant::now() + duration;
        while Instant::now() < until {
            let id = format!("swap-{}", self.reads + self.unanswered);
            let read = json!({ "name": "read_note", "arguments": { "path": SWAP_NOTE } });
            let Some((answer, _)) =
                client.request(&id, "tools/call", read, Duration::from_secs(20))
            else {
                self.unanswered += 1;
                continue;
            };
            self.reads += 1;
            if answer.to_string().contains(SWAP_SECRET) {
                self.leaks.push(short(&answer));
            } else if answer["result"]["isError"] == json!(true) {
                self.refused += 1;
            } else {
                self.inside += 1;
            }
        }
        stop.store(true, Ordering::SeqCst);
        swapper.join().unwrap();
        std::fs::write(&spare, "swap note inside\n").unwrap();
        std::fs::rename(&spare, &note).unwrap();
    }
}
