//! Downloads a pinned model's files from the Hugging Face Hub (`{endpoint}/{repository}/resolve/{revision}/{file}`,
//! the Hub's own layout; `HF_ENDPOINT` names a mirror, as for Hugging Face's own tools) and checks each file's size
//! and SHA-256 before anything is kept.
//!
//! The transfer is the system's `curl` (on Windows 10 and later, macOS and nearly every Linux): every other
//! connection obsmcp makes is to loopback, and a TLS stack in the binary for one 30 MB download would weigh on every
//! install (its C code would also need a C compiler for each target); the integrity check, the part that matters, is
//! obsmcp's own.

use std::path::Path;
use std::process::Command;

use sha2::{Digest, Sha256};

use super::pin::{Pin, PinnedFile};

/// Why a file could not be downloaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub(crate) enum FetchError {
    #[error(
        "downloading needs `curl`, which is not on PATH ({0}); download the model's files yourself and run \
         `obsmcp setup --semantic --model FOLDER`"
    )]
    NoCurl(std::io::Error),
    #[error("downloading {url} failed: {reason}")]
    Transfer { url: String, reason: String },
    #[error(
        "{name} from {url} is not the pinned file: expected {expected_bytes} bytes with SHA-256 {expected_sha256}, got \
         {bytes} bytes with SHA-256 {sha256} (a truncated or changed download); nothing was installed"
    )]
    Mismatch {
        name: String,
        url: String,
        expected_bytes: u64,
        expected_sha256: String,
        bytes: u64,
        sha256: String,
    },
    #[error("cannot write {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
}

/// Where models are downloaded from: `HF_ENDPOINT`, or the Hub.
pub(crate) fn endpoint(env: impl Fn(&str) -> Option<String>) -> String {
    env("HF_ENDPOINT")
        .filter(|endpoint| !endpoint.trim().is_empty())
        .unwrap_or_else(|| "https://huggingface.co".to_owned())
        .trim_end_matches('/')
        .to_owned()
}

/// A pinned file's address.
pub(crate) fn url(endpoint: &str, pin: &Pin, file: &PinnedFile) -> String {
    format!(
        "{endpoint}/{}/resolve/{}/{}",
        pin.repository, pin.revision, file.name
    )
}

/// Downloads `file` into `to` and checks it; a file that is not the pinned one is removed.
pub(crate) fn download(url: &str, file: &PinnedFile, to: &Path) -> Result<(), FetchError> {
    let mut curl = Command::new("curl");
    curl.args(["--fail", "--silent", "--show-error", "--location"])
        .args(["--max-redirs", "10", "--connect-timeout", "30"])
        .args(["--retry", "2", "--retry-delay", "1"])
        // One byte more than the pin: a server that sends more is cut there, and the size check names it.
        .args(["--max-filesize", &(file.bytes + 1).to_string()]);
    if url.starts_with("https://") {
        // Never a redirect to plain HTTP.
        curl.args(["--proto", "=https", "--proto-redir", "=https"]);
    }
    let output = curl
        .arg("--output")
        .arg(to)
        .arg(url)
        .output()
        .map_err(FetchError::NoCurl)?;
    if !output.status.success() {
        let _ = std::fs::remove_file(to); // A partial file is of no use; a missing one is fine.
        let said = String::from_utf8_lossy(&output.stderr).trim().to_owned();
        return Err(FetchError::Transfer {
            url: url.to_owned(),
            reason: if said.is_empty() {
                format!("curl ended with {}", output.status)
            } else {
                said
            },
        });
    }
    check(url, file, to)
}

/// Checks a file on disk against its pin.
pub(crate) fn check(url: &str, file: &PinnedFile, at: &Path) -> Result<(), FetchError> {
    let (bytes, sha256) = hash_file(at).map_err(|source| FetchError::Write {
        path: at.display().to_string(),
        source,
    })?;
    if bytes == file.bytes && sha256.eq_ignore_ascii_case(&file.sha256) {
        return Ok(());
    }
    let _ = std::fs::remove_file(at); // The wrong file must not stay where the model is assembled.
    Err(FetchError::Mismatch {
        name: file.name.clone(),
        url: url.to_owned(),
        expected_bytes: file.bytes,
        expected_sha256: file.sha256.clone(),
        bytes,
        sha256,
    })
}

/// A file's size and SHA-256 in hex.
pub(crate) fn hash_file(path: &Path) -> std::io::Result<(u64, String)> {
    use std::io::Read;
    let mut reader = std::fs::File::open(path)?;
    let mut hash = Sha256::new();
    let mut buffer = vec![0u8; 1 << 16];
    let mut bytes = 0u64;
    loop {
        let read = reader.read(&mut buffer)?;
        if read == 0 {
            break;
        }
        bytes += read as u64;
        hash.update(&buffer[..read]);
    }
    Ok((
        bytes,
        crate::offline::semantic::model::hex(&hash.finalize()),
    ))
}
