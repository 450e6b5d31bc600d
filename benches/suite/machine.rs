//! Facts about the run that a reader needs to weigh its figures: the machine, its load when the suite started, the
//! tools' versions, the obsmcp commit and the date. Read from `/proc` and the tools themselves (Linux).

use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use super::bridges::BridgeKind;
use crate::support::repo_root;

/// The facts, gathered once at the start of a run.
pub struct Machine {
    pub cpu_model: String,
    pub cores: usize,
    pub memory_gb: f64,
    pub kernel: String,
    pub load_average: String,
    pub node: String,
    pub rustc: String,
    pub commit: String,
    pub date: String,
}

impl Machine {
    pub fn gather() -> Self {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let cpu_model = cpuinfo
            .lines()
            .find_map(|line| line.strip_prefix("model name"))
            .and_then(|rest| rest.split_once(':'))
            .map_or("unknown", |(_, model)| model.trim())
            .to_string();
        let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
        let memory_kb: f64 = meminfo
            .lines()
            .find_map(|line| line.strip_prefix("MemTotal:"))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|kb| kb.parse().ok())
            .unwrap_or(f64::NAN);
        let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
        let commit = output("git", &["rev-parse", "--short=12", "HEAD"]);
        // Only what the measured binary is built from: the tests and the rest of the tree do not change a figure.
        let dirty = !output(
            "git",
            &[
                "status",
                "--porcelain",
                "--",
                "src",
                "installer",
                "Cargo.toml",
                "Cargo.lock",
                "build.rs",
            ],
        )
        .is_empty();
        Self {
            cpu_model,
            cores: std::thread::available_parallelism().map_or(0, usize::from),
            memory_gb: memory_kb / 1024.0 / 1024.0,
            kernel: std::fs::read_to_string("/proc/sys/kernel/osrelease")
                .unwrap_or_default()
                .trim()
                .to_string(),
            load_average: load
                .split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" "),
            node: output("node", &["--version"]),
            rustc: output("rustc", &["--version"]),
            commit: if dirty {
                format!("{commit} (plus uncommitted changes to its sources)")
            } else {
                commit
            },
            date: utc_now(),
        }
    }

    /// The facts as JSON, with each bridge's version and the command line it ran with.
    pub fn json(&self) -> Value {
        let bridges: serde_json::Map<String, Value> = BridgeKind::ALL
            .iter()
            .map(|kind| {
                let version = kind
                    .version()
                    .unwrap_or_else(|| format!("git {}", self.commit));
                (
                    kind.key().to_string(),
                    json!({ "version": version, "command": kind.command_line() }),
                )
            })
            .collect();
        json!({
            "date": self.date,
            "cpu_model": self.cpu_model,
            "cores": self.cores,
            "memory_gb": super::figure::round(self.memory_gb),
            "kernel": self.kernel,
            "load_average_at_start": self.load_average,
            "node": self.node,
            "rustc": self.rustc,
            "obsmcp_commit": self.commit,
            "bridges": bridges,
        })
    }
}

/// A command's trimmed stdout, run in the repository (empty when it cannot run).
fn output(program: &str, args: &[&str]) -> String {
    Command::new(program)
        .args(args)
        .current_dir(repo_root())
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_string())
        .unwrap_or_default()
}

/// The current time in UTC as `YYYY-MM-DDTHH:MM:SSZ`.
fn utc_now() -> String {
    let seconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs());
    iso_date(seconds)
}

/// Seconds since the Unix epoch as an ISO 8601 UTC time (Howard Hinnant's days-to-civil algorithm).
fn iso_date(seconds: u64) -> String {
    let days = (seconds / 86_400) as i64;
    let of_day = seconds % 86_400;
    let shifted = days + 719_468;
    let era = shifted.div_euclid(146_097);
    let day_of_era = shifted - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        of_day / 3600,
        of_day % 3600 / 60,
        of_day % 60
    )
}

#[cfg(test)]
mod tests {
    use super::iso_date;

    #[test]
    fn dates_are_iso_8601_in_utc() {
        assert_eq!(iso_date(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso_date(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(iso_date(1_798_675_199), "2026-12-30T23:59:59Z");
    }
}
