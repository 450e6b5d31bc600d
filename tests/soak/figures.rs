//! What the soak measures and quotes: an answer shortened for a failure message, a process's open files, a median,
//! and the time and requests of the 500-storms.

use serde_json::Value;

pub(super) fn short(answer: &Value) -> String {
    let text = answer.to_string();
    text.chars().take(400).collect()
}

/// How many file descriptors a process has open.
pub(super) fn open_files(pid: u32) -> Option<usize> {
    Some(std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.count())
}

pub(super) fn median(values: &mut [u64]) -> u64 {
    values.sort_unstable();
    values.get(values.len() / 2).copied().unwrap_or(0)
}

/// Time spent in 500-storms and the requests that reached the port meanwhile: reconnection attempts (each opens with
/// a `server/discover`, counted once) and everything else (calls forwarded while a session still stood).
#[derive(Default)]
pub(super) struct Storms {
    pub(super) seconds: f64,
    pub(super) attempts: u64,
    pub(super) calls: u64,
}
