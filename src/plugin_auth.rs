//! How the bridge and doctor authenticate to a vault's plugin without handing the token to whoever holds the port.
//!
//! Any local program can listen on the plugin's port while Obsidian is closed. A bare `Authorization: Bearer` would
//! give it the token, and its answers would pass for the vault's. So every request to the plugin carries, instead:
//! - `Authorization: obsmcp-v1 ts=<unix seconds> nonce=<32 hex> sig=<hex>`, where `sig` is
//!   HMAC-SHA256(token, `obsmcp-v1 request <ts> <nonce>`): it proves the caller knows the token and cannot be used
//!   again (the plugin refuses a nonce twice and a timestamp outside its window);
//! - `Obsmcp-Challenge: <nonce>`, which the plugin answers with the header `Obsmcp-Proof`:
//!   HMAC-SHA256(token, `obsmcp-v1 response <nonce>`). An answer without the right proof is not the
//!   plugin's and is never read.
//!
//! The port is not signed, so that a loopback proxy in front of the plugin (the fault soak's) keeps working. A program
//! on the port could relay to the real plugin only if that listened on another port, which obsmcp never sets up.
//!
//! The plugin's side is `obsidian-plugin/src/server/guard.ts`; a change here changes it there. Clients configured by
//! hand (`mcp-remote` with a header) keep using the bearer token, which the plugin still accepts.

use hmac::{KeyInit, Mac};
use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderName, HeaderValue};

type HmacSha256 = hmac::Hmac<sha2::Sha256>;

/// The request header that carries the challenge.
pub(crate) const CHALLENGE_HEADER: &str = "obsmcp-challenge";
/// The response header that carries the plugin's proof.
pub(crate) const PROOF_HEADER: &str = "obsmcp-proof";

/// What a request to one vault's plugin is signed with: its token and the port it listens on.
#[derive(Clone)]
pub(crate) struct PluginKey {
    token: String,
    port: u16,
}

impl std::fmt::Debug for PluginKey {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The token never reaches a log.
        formatter
            .debug_struct("PluginKey")
            .field("port", &self.port)
            .finish_non_exhaustive()
    }
}

/// The proof an answer to one signed request must carry.
#[derive(Debug)]
pub(crate) struct Challenge {
    expected: String,
    port: u16,
}

impl PluginKey {
    /// The key of the plugin that listens on `port` with `token`.
    pub(crate) fn new(token: &str, port: u16) -> Self {
        Self {
            token: token.to_string(),
            port,
        }
    }

    /// Headers for one request (the signed authorization and the challenge), and the proof its answer must carry.
    pub(crate) fn sign(&self) -> (HeaderMap, Challenge) {
        let nonce = fresh_nonce();
        let ts = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_secs());
        let sig = self.mac(&format!("obsmcp-v1 request {ts} {nonce}"));
        let mut headers = HeaderMap::new();
        let mut authorization =
            HeaderValue::from_str(&format!("obsmcp-v1 ts={ts} nonce={nonce} sig={sig}"))
                .expect("hex and digits are valid in a header");
        authorization.set_sensitive(true);
        headers.insert(AUTHORIZATION, authorization);
        headers.insert(
            HeaderName::from_static(CHALLENGE_HEADER),
            HeaderValue::from_str(&nonce).expect("hex is valid in a header"),
        );
        let challenge = Challenge {
            expected: self.mac(&format!("obsmcp-v1 response {nonce}")),
            port: self.port,
        };
        (headers, challenge)
    }

    fn mac(&self, message: &str) -> String {
        let mut mac = HmacSha256::new_from_slice(self.token.as_bytes())
            .expect("HMAC takes a key of any length");
        mac.update(message.as_bytes());
        hex(&mac.finalize().into_bytes())
    }
}

impl Challenge {
    /// Whether an answer's headers prove it comes from the plugin that knows the token; compared in constant time.
    pub(crate) fn is_met_by(&self, headers: &HeaderMap) -> bool {
        let Some(given) = headers
            .get(PROOF_HEADER)
            .and_then(|value| value.to_str().ok())
        else {
            return false;
        };
        let (given, expected) = (given.trim().as_bytes(), self.expected.as_bytes());
        given.len() == expected.len()
            && given
                .iter()
                .zip(expected)
                .fold(0u8, |differences, (a, b)| differences | (a ^ b))
                == 0
    }

    /// What the caller is told when the answer was not the plugin's.
    pub(crate) fn impostor_message(&self) -> String {
        format!(
            "the program listening on port {} is not this vault's obsmcp plugin: it could not prove that it knows the \
             vault's token, so nothing was sent to it that would reveal the token and its answer was ignored. Close \
             that program, or give the plugin another port (obsmcp setup); if the plugin is older than this obsmcp, \
             run obsmcp setup to update it",
            self.port
        )
    }
}

/// 128 random bits as hex.
fn fresh_nonce() -> String {
    let mut bytes = [0u8; 16];
    // Without a random source no request could be signed safely; a time-derived fallback keeps nonces unique,
    // which is what the plugin's replay check needs (secrecy of the nonce is not required).
    if getrandom::fill(&mut bytes).is_err() {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_nanos());
        bytes = (now ^ u128::from(std::process::id()) << 64).to_le_bytes();
    }
    hex(&bytes)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_and_the_proof_follow_the_documented_messages() {
        let key = PluginKey::new("secret-token", 22400);
        let (headers, challenge) = key.sign();
        let authorization = headers[AUTHORIZATION].to_str().unwrap();
        let nonce = headers[CHALLENGE_HEADER].to_str().unwrap();
        assert!(!authorization.contains("secret-token"));
        let fields: Vec<&str> = authorization.split(' ').collect();
        assert_eq!(fields[0], "obsmcp-v1");
        let ts = fields[1].strip_prefix("ts=").unwrap();
        assert_eq!(fields[2], format!("nonce={nonce}"));
        assert_eq!(
            fields[3],
            format!(
                "sig={}",
                key.mac(&format!("obsmcp-v1 request {ts} {nonce}"))
            )
        );
        let mut answer = HeaderMap::new();
        answer.insert(
            PROOF_HEADER,
            HeaderValue::from_str(&key.mac(&format!("obsmcp-v1 response {nonce}"))).unwrap(),
        );
        assert!(challenge.is_met_by(&answer));
    }

    #[test]
    fn an_answer_without_the_right_proof_is_not_the_plugins() {
        let (_, challenge) = PluginKey::new("secret-token", 22400).sign();
        assert!(!challenge.is_met_by(&HeaderMap::new()));
        let mut forged = HeaderMap::new();
        forged.insert(PROOF_HEADER, HeaderValue::from_static("00"));
        assert!(!challenge.is_met_by(&forged));
        // A proof made with another token (another vault's plugin) does not count.
        let other = PluginKey::new("another-token", 22400);
        let mut wrong = HeaderMap::new();
        let (_, theirs) = other.sign();
        wrong.insert(
            PROOF_HEADER,
            HeaderValue::from_str(&theirs.expected).unwrap(),
        );
        assert!(!challenge.is_met_by(&wrong));
    }

    #[test]
    fn nonces_differ() {
        assert_ne!(fresh_nonce(), fresh_nonce());
        assert_eq!(fresh_nonce().len(), 32);
    }

    #[test]
    fn the_key_never_prints_its_token() {
        assert!(!format!("{:?}", PluginKey::new("secret-token", 1)).contains("secret"));
    }
}
