//! The bridge's validated settings, built once from the raw command line (and the older Node bridge's environment
//! variables) so that the rest of the bridge never sees a half-checked value.

use std::path::PathBuf;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use thiserror::Error;
use url::Url;

use super::policy::Policy;
use super::profile::ToolProfile;

/// Which server the bridge forwards to.
#[derive(Debug, Clone)]
pub(crate) enum UpstreamTarget {
    /// The obsmcp plugin of a vault; port and token are read from its `data.json` at every connection attempt.
    Vault { path: PathBuf, config_dir: String },
    /// Any MCP server over HTTP.
    Url {
        url: Url,
        headers: HeaderMap,
        flavor: HttpFlavor,
    },
    /// A stdio MCP server run as a child process.
    Command { program: String, args: Vec<String> },
}

/// The HTTP transport a `--url` upstream speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HttpFlavor {
    /// Try Streamable HTTP, fall back to legacy SSE when the server refuses it.
    Probe,
    /// Legacy HTTP+SSE, because the URL ends in `/sse`.
    LegacySse,
}

impl UpstreamTarget {
    /// A short word for logs and the status tool.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Self::Vault { .. } => "vault",
            Self::Url { .. } => "url",
            Self::Command { .. } => "command",
        }
    }

    /// What the user should call this upstream in messages.
    pub(crate) fn display_name(&self) -> String {
        match self {
            Self::Vault { .. } => "Obsidian".into(),
            Self::Url { url, .. } => format!("the MCP server at {}", redacted(url)),
            Self::Command { program, .. } => format!("the MCP server command `{program}`"),
        }
    }
}

/// A URL without credentials, query or fragment, safe to show.
pub(crate) fn redacted(url: &Url) -> String {
    let mut shown = url.clone();
    // Setting these only fails for URLs that cannot carry them, which then have none to hide.
    let _ = shown.set_username("");
    let _ = shown.set_password(None);
    shown.set_query(None);
    shown.set_fragment(None);
    shown.to_string()
}

/// An upstream and the name an agent gives it: a vault's folder name (unique among the bridge's vaults).
#[derive(Debug, Clone)]
pub(crate) struct NamedTarget {
    pub(crate) name: String,
    pub(crate) target: UpstreamTarget,
}

/// Everything the bridge runs with.
#[derive(Debug, Clone)]
pub(crate) struct BridgeConfig {
    /// The upstream servers: one per `--vault`, the first the default, or the one `--url` or command.
    pub(crate) upstreams: Vec<NamedTarget>,
    /// Which tools are offered.
    pub(crate) policy: Policy,
    /// How long one tool call may take.
    pub(crate) call_timeout: Duration,
    /// How long a call waits for a down upstream.
    pub(crate) connect_wait: Duration,
    /// How long `tools/list` waits for a live catalog when none is known at all.
    pub(crate) startup_grace: Duration,
    /// Whether read tools may be answered from the vault folder while Obsidian is closed.
    pub(crate) offline: bool,
    /// Where the diagnostics log goes; `None` for the platform's default.
    pub(crate) log_file: Option<PathBuf>,
    /// How much is logged.
    pub(crate) log_level: tracing::Level,
    /// `--max-chars`: the `max_chars` every call gets and may ask for at most, whatever the client.
    pub(crate) max_chars: Option<u64>,
    /// `--index-memory-mb`: the offline index's memory budget.
    pub(crate) index_memory_mb: u64,
    /// `--index-search`: when text searches and vault-wide reads are answered from the bridge's index while Obsidian
    /// is open.
    pub(crate) index_search: IndexSearch,
    /// `--tools`: how much of the plugin's catalog `tools/list` carries.
    pub(crate) tools: ToolProfile,
    /// `--model`: the embedding model's folder for search by meaning (default: the state folder's `model`).
    pub(crate) model: Option<PathBuf>,
}

/// When the bridge answers text searches and vault-wide reads (`crate::offline::INDEX_TOOLS`) from its own index of
/// the vault folder while Obsidian is open: only ever with the plugin's answer, from an index a file watcher keeps
/// current.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum IndexSearch {
    /// Once the index is there: a saved one is loaded at start, and a search or vault-wide read through Obsidian
    /// slower than 300 ms (a large vault) has it built in the background
    Auto,
    /// The index is built at start, so searches use it as soon as it is ready
    Always,
    /// Obsidian answers every call while it is open
    Never,
}

impl IndexSearch {
    /// The word `obsidian_status` and `--help` use.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Always => "always",
            Self::Never => "never",
        }
    }
}

/// A search or vault-wide read through Obsidian slower than this has `--index-search auto` build the index (its
/// `--help` says 300 ms): the plugin's bound for a search, which a vault of some tens of thousands of notes passes.
pub(crate) const SLOW_SEARCH: Duration = Duration::from_millis(300);

/// A flag value the bridge cannot run with.
#[derive(Debug, Error)]
#[non_exhaustive]
pub(crate) enum ConfigError {
    #[error("no upstream given")]
    NoUpstream,
    #[error("give only one upstream: --vault, --url (or OBSIDIAN_MCP_URL) or a command after --")]
    SeveralUpstreams,
    #[error("`{0}` is not a valid URL: {1}")]
    BadUrl(String, url::ParseError),
    #[error("`{0}` is not an http:// or https:// URL")]
    UnsupportedScheme(String),
    #[error("--header `{0}` is not of the form 'Name: value'")]
    BadHeader(String),
    #[error("--header and --token-env need an HTTP upstream (--url or OBSIDIAN_MCP_URL)")]
    HeaderWithoutUrl,
    #[error("environment variable `{0}` named by --token-env is not set")]
    MissingTokenVariable(String),
    #[error("--{0} must be a positive number of seconds, not {1}")]
    BadDuration(&'static str, f64),
    #[error("--log-level `{0}` is not one of error, warn, info, debug, trace")]
    BadLogLevel(String),
    #[error("--max-chars must be a whole number from 100 to 200000, not {0}")]
    BadMaxChars(u64),
    #[error(
        "--config-dir names the config folder of one --vault; with several, each vault's is found in its folder"
    )]
    ConfigDirWithSeveralVaults,
}

impl BridgeConfig {
    /// The default upstream: the first vault, or the one `--url` or command.
    pub(crate) fn upstream(&self) -> &UpstreamTarget {
        &self.upstreams[0].target
    }
}

/// The raw values, gathered from clap and the environment.
pub(crate) struct RawConfig {
    /// The vaults, each with its config folder when known (from setup's record); in their order, the first the default.
    pub(crate) vaults: Vec<(PathBuf, Option<String>)>,
    /// `--config-dir`, for one vault.
    pub(crate) config_dir: Option<String>,
    pub(crate) url: Option<String>,
    pub(crate) env_url: Option<String>,
    pub(crate) headers: Vec<String>,
    pub(crate) token_env: Option<String>,
    pub(crate) command: Vec<String>,
    pub(crate) policy: Policy,
    pub(crate) call_timeout: f64,
    pub(crate) connect_wait: f64,
    pub(crate) startup_grace_ms: u64,
    pub(crate) no_offline: bool,
    pub(crate) log_file: Option<PathBuf>,
    pub(crate) log_level: String,
    pub(crate) max_chars: Option<u64>,
    pub(crate) index_memory_mb: u64,
    pub(crate) index_search: IndexSearch,
    pub(crate) tools: ToolProfile,
    pub(crate) model: Option<PathBuf>,
}

impl RawConfig {
    /// Validates the raw values. `env` looks up environment variables (injected so tests need no real environment).
    pub(crate) fn validate(
        self,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<BridgeConfig, ConfigError> {
        // The older Node bridge's variable only applies when no upstream was given on the command line, so an
        // environment left over from it never overrides an explicit flag.
        let url = self
            .url
            .or(if self.vaults.is_empty() && self.command.is_empty() {
                self.env_url
            } else {
                None
            });
        let given = usize::from(!self.vaults.is_empty())
            + usize::from(url.is_some())
            + usize::from(!self.command.is_empty());
        if given > 1 {
            return Err(ConfigError::SeveralUpstreams);
        }
        if url.is_none() && (!self.headers.is_empty() || self.token_env.is_some()) {
            return Err(ConfigError::HeaderWithoutUrl);
        }
        if self.config_dir.is_some() && self.vaults.len() > 1 {
            return Err(ConfigError::ConfigDirWithSeveralVaults);
        }
        let upstreams = if !self.vaults.is_empty() {
            vault_targets(self.vaults, self.config_dir)
        } else if let Some(text) = url {
            let url =
                Url::parse(&text).map_err(|error| ConfigError::BadUrl(text.clone(), error))?;
            if !matches!(url.scheme(), "http" | "https") {
                return Err(ConfigError::UnsupportedScheme(text));
            }
            let mut headers = HeaderMap::new();
            for header in &self.headers {
                let (name, value) = parse_header(header)?;
                headers.append(name, value);
            }
            if let Some(variable) = self.token_env {
                let token = env(&variable)
                    .ok_or_else(|| ConfigError::MissingTokenVariable(variable.clone()))?;
                let mut value = HeaderValue::from_str(&format!("Bearer {}", token.trim()))
                    .map_err(|_| {
                        ConfigError::BadHeader(format!("Authorization from ${variable}"))
                    })?;
                value.set_sensitive(true);
                headers.insert(reqwest::header::AUTHORIZATION, value);
            }
            let flavor = if url.path().trim_end_matches('/').ends_with("/sse") {
                HttpFlavor::LegacySse
            } else {
                HttpFlavor::Probe
            };
            vec![NamedTarget {
                name: "upstream".into(),
                target: UpstreamTarget::Url {
                    url,
                    headers,
                    flavor,
                },
            }]
        } else if let Some((program, args)) = self.command.split_first() {
            vec![NamedTarget {
                name: "upstream".into(),
                target: UpstreamTarget::Command {
                    program: program.clone(),
                    args: args.to_vec(),
                },
            }]
        } else {
            return Err(ConfigError::NoUpstream);
        };
        if let Some(max_chars) = self.max_chars
            && !(100..=200_000).contains(&max_chars)
        {
            return Err(ConfigError::BadMaxChars(max_chars));
        }
        Ok(BridgeConfig {
            max_chars: self.max_chars,
            index_memory_mb: self.index_memory_mb,
            index_search: self.index_search,
            model: self.model,
            // Only our plugin's catalog has a core; any other upstream's tools are all listed.
            tools: match upstreams[0].target {
                UpstreamTarget::Vault { .. } => self.tools,
                _ => ToolProfile::All,
            },
            upstreams,
            policy: self.policy,
            call_timeout: seconds("call-timeout", self.call_timeout)?,
            connect_wait: seconds("connect-wait", self.connect_wait)?,
            startup_grace: Duration::from_millis(self.startup_grace_ms),
            offline: !self.no_offline,
            log_file: self.log_file,
            log_level: self
                .log_level
                .parse()
                .map_err(|_| ConfigError::BadLogLevel(self.log_level.clone()))?,
        })
    }
}

/// The vaults as upstreams: each with its own config folder (known, given with `--config-dir`, else found in its
/// folder), named by its folder, a name two vaults share told apart by a number.
fn vault_targets(
    vaults: Vec<(PathBuf, Option<String>)>,
    config_dir: Option<String>,
) -> Vec<NamedTarget> {
    let mut targets: Vec<NamedTarget> = Vec::new();
    for (path, known) in vaults {
        let config_dir = known.or_else(|| config_dir.clone()).unwrap_or_else(|| {
            obsmcp_installer::obsidian_files::registry::config_dir(&path, None).0
        });
        let folder = obsmcp_installer::obsidian_files::registry::vault_name(&path);
        let mut name = folder.clone();
        let mut number = 1;
        while targets.iter().any(|target| target.name == name) {
            number += 1;
            name = format!("{folder} {number}");
        }
        targets.push(NamedTarget {
            name,
            target: UpstreamTarget::Vault { path, config_dir },
        });
    }
    targets
}

fn parse_header(text: &str) -> Result<(HeaderName, HeaderValue), ConfigError> {
    let bad = || ConfigError::BadHeader(text.to_string());
    let (name, value) = text.split_once(':').ok_or_else(bad)?;
    let name = HeaderName::from_bytes(name.trim().as_bytes()).map_err(|_| bad())?;
    let mut value = HeaderValue::from_str(value.trim()).map_err(|_| bad())?;
    value.set_sensitive(true);
    Ok((name, value))
}

fn seconds(flag: &'static str, value: f64) -> Result<Duration, ConfigError> {
    if value.is_finite() && value > 0.0 && value < 1e9 {
        Ok(Duration::from_secs_f64(value))
    } else {
        Err(ConfigError::BadDuration(flag, value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw() -> RawConfig {
        RawConfig {
            vaults: vec![],
            config_dir: None,
            url: None,
            env_url: None,
            headers: vec![],
            token_env: None,
            command: vec![],
            policy: Policy::default(),
            call_timeout: 60.0,
            connect_wait: 3.0,
            startup_grace_ms: 2000,
            no_offline: false,
            log_file: None,
            log_level: "info".into(),
            max_chars: None,
            index_memory_mb: crate::offline::DEFAULT_MEMORY_BUDGET_MB,
            index_search: IndexSearch::Auto,
            tools: ToolProfile::Core,
            model: None,
        }
    }

    #[test]
    fn a_url_host_is_ascii_or_refused_with_the_url_in_the_message() {
        let validate = |url: &str| {
            RawConfig {
                url: Some(url.into()),
                ..raw()
            }
            .validate(|_| None)
        };
        assert!(validate("http://localhost:22360/sse").is_ok());
        assert!(validate("http://127.0.0.1:22360/mcp").is_ok());
        // Cargo.toml pins idna_adapter 1.0: international names are not converted but refused, saying which URL.
        let refused = validate("http://bücher.example:22360/mcp").unwrap_err();
        assert!(matches!(refused, ConfigError::BadUrl(..)), "{refused}");
        assert!(refused.to_string().contains("bücher.example"), "{refused}");
    }

    #[test]
    fn the_old_bridge_variable_gives_the_url_but_never_beats_a_flag() {
        let config = RawConfig {
            env_url: Some("http://127.0.0.1:1/sse".into()),
            ..raw()
        }
        .validate(|_| None)
        .unwrap();
        assert!(matches!(
            config.upstream(),
            UpstreamTarget::Url {
                flavor: HttpFlavor::LegacySse,
                ..
            }
        ));
        let config = RawConfig {
            env_url: Some("http://127.0.0.1:1/mcp".into()),
            vaults: vec![("v".into(), None)],
            ..raw()
        }
        .validate(|_| None)
        .unwrap();
        assert!(matches!(config.upstream(), UpstreamTarget::Vault { .. }));
    }

    #[test]
    fn headers_and_token_variable_become_headers() {
        let config = RawConfig {
            url: Some("http://127.0.0.1:1/mcp".into()),
            headers: vec!["X-Api-Key:  abc ".into()],
            token_env: Some("TOKEN".into()),
            ..raw()
        }
        .validate(|name| (name == "TOKEN").then(|| "s3cret".into()))
        .unwrap();
        let UpstreamTarget::Url {
            headers, flavor, ..
        } = config.upstream().clone()
        else {
            panic!("not a url upstream")
        };
        assert_eq!(flavor, HttpFlavor::Probe);
        assert_eq!(headers["x-api-key"], "abc");
        assert_eq!(headers["authorization"], "Bearer s3cret");
    }

    #[test]
    fn bad_values_are_refused_with_their_reason() {
        let url = || Some("http://127.0.0.1:1/mcp".to_string());
        assert!(matches!(
            raw().validate(|_| None),
            Err(ConfigError::NoUpstream)
        ));
        assert!(matches!(
            RawConfig {
                url: url(),
                headers: vec!["nocolon".into()],
                ..raw()
            }
            .validate(|_| None),
            Err(ConfigError::BadHeader(_))
        ));
        assert!(matches!(
            RawConfig {
                url: url(),
                token_env: Some("NOPE".into()),
                ..raw()
            }
            .validate(|_| None),
            Err(ConfigError::MissingTokenVariable(_))
        ));
        assert!(matches!(
            RawConfig {
                url: Some("ftp://x".into()),
                ..raw()
            }
            .validate(|_| None),
            Err(ConfigError::UnsupportedScheme(_))
        ));
        assert!(matches!(
            RawConfig {
                url: url(),
                call_timeout: 0.0,
                ..raw()
            }
            .validate(|_| None),
            Err(ConfigError::BadDuration("call-timeout", _))
        ));
        assert!(matches!(
            RawConfig {
                vaults: vec![("v".into(), None)],
                command: vec!["x".into()],
                ..raw()
            }
            .validate(|_| None),
            Err(ConfigError::SeveralUpstreams)
        ));
        assert!(matches!(
            RawConfig {
                vaults: vec![("a".into(), None), ("b".into(), None)],
                config_dir: Some(".obs".into()),
                ..raw()
            }
            .validate(|_| None),
            Err(ConfigError::ConfigDirWithSeveralVaults)
        ));
    }

    #[test]
    fn several_vaults_are_named_by_their_folders_and_a_shared_name_gets_a_number() {
        let config = RawConfig {
            vaults: vec![
                ("/w/Work".into(), None),
                ("/p/Notes".into(), Some(".config".into())),
                ("/q/Notes".into(), None),
            ],
            ..raw()
        }
        .validate(|_| None)
        .unwrap();
        let names: Vec<&str> = config
            .upstreams
            .iter()
            .map(|named| named.name.as_str())
            .collect();
        assert_eq!(names, ["Work", "Notes", "Notes 2"]);
        let UpstreamTarget::Vault { config_dir, .. } = &config.upstreams[1].target else {
            panic!("a vault");
        };
        assert_eq!(config_dir, ".config");
    }

    #[test]
    fn shown_urls_hide_credentials_and_queries() {
        let url = Url::parse("http://user:pw@127.0.0.1:5/sse?token=abc#x").unwrap();
        assert_eq!(redacted(&url), "http://127.0.0.1:5/sse");
    }
}
