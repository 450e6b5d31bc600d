//! The content hash every read reports and every write may be guarded by (`vault/hash.ts`).

use sha2::{Digest, Sha256};

/// SHA-256 hex of the note's UTF-8 text.
pub(crate) fn content_hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    digest.iter().map(|byte| format!("{byte:02x}")).collect()
}
