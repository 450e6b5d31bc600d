//! Command-line structure, and nothing else: clap derives the raw values here, and each command turns them into a
//! validated form of its own before acting, so that parsing stays declarative and testable.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// The top-level command line.
#[derive(Debug, Parser)]
#[command(
    name = "obsmcp",
    version = crate::version::LONG,
    about = "Connect AI agents to an Obsidian vault, and keep them connected",
    long_about = "Connect AI agents (Claude Code, Codex, Hermes Agent, any MCP client) to an Obsidian vault, and keep \
                  them connected.\n\nStart with `obsmcp setup`; when tools go missing, run `obsmcp doctor`."
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Install the Obsidian plugin in a vault and register obsmcp with your AI clients.
    Setup(SetupArgs),
    /// Check every link from AI client to vault, say what is wrong and how to fix it.
    Doctor(DoctorArgs),
    /// Run the stdio MCP server that AI clients start (they run this for you).
    Bridge(Box<BridgeArgs>),
    /// Undo what setup did: remove client entries and the plugin.
    Uninstall(UninstallArgs),
    /// Print a shell completion script on stdout (bash, zsh, fish, elvish, powershell).
    Completions(CompletionsArgs),
}

/// Flags of `obsmcp setup`.
#[derive(Debug, Args)]
pub(crate) struct SetupArgs {
    /// Vault folder to set up (repeatable), also one that moved or was renamed (its entries follow it); without it,
    /// the vaults set up before, where they are now, or on a first run every vault in Obsidian's registry.
    #[arg(long, value_name = "PATH")]
    pub(crate) vault: Vec<PathBuf>,
    /// The vault's config folder, when it is not `.obsidian`.
    #[arg(long, value_name = "NAME")]
    pub(crate) config_dir: Option<String>,
    #[arg(long, value_name = "NAME", help = client_help("AI client to register with (repeatable); without it, every detected client"))]
    pub(crate) client: Vec<String>,
    #[command(flatten)]
    pub(crate) run: RunArgs,
    /// Register the bridge in read-only mode.
    #[arg(long)]
    pub(crate) read_only: bool,
    /// Replace an existing entry of the same name that runs something else.
    #[arg(long)]
    pub(crate) replace_existing: bool,
    /// Do not pre-approve the read-only tools in Claude Code's settings.json.
    #[arg(long)]
    pub(crate) no_claude_permissions: bool,
    /// Hide notes from every agent (repeatable): a name (Therapy) hides every file or folder of that name, a path
    /// (Health/Journal) that folder or note; * ? ** are wildcards. Added to the rules already set in Obsidian.
    #[arg(long, value_name = "RULE")]
    pub(crate) hide: Vec<String>,
    /// Also hide what Obsidian's Settings → Files and links → Excluded files lists.
    #[arg(long)]
    pub(crate) hide_excluded_files: bool,
    /// Do not install the companion skill (SKILL.md) for Claude Code, Codex and Hermes.
    #[arg(long)]
    pub(crate) no_skill: bool,
    /// Mark Claude Code's entry "alwaysLoad": true: its tools are always in context, never deferred by tool search.
    #[arg(long)]
    pub(crate) always_load: bool,
    /// Set up search by meaning: download the pinned embedding model (minishlab/potion-base-8M, 31 MB, size and
    /// SHA-256 checked) into obsmcp's state folder, where the bridge finds it. `HF_ENDPOINT` names a mirror.
    #[arg(long)]
    pub(crate) semantic: bool,
    /// With --semantic: copy this Model2Vec model folder (model.safetensors, tokenizer.json, config.json) instead of
    /// downloading one.
    #[arg(long, value_name = "FOLDER", requires = "semantic")]
    pub(crate) model: Option<PathBuf>,
    /// Give each vault an entry of its own (`obsidian`, `obsidian-<vault>`), as setup did before one entry served every
    /// vault: for a policy per vault (`--read-only` for one alone, say). Splits an entry that serves several.
    #[arg(long)]
    pub(crate) entry_per_vault: bool,
}

/// How setup and uninstall run: asking, or told what to do; writing, or only showing; for people, or for agents.
#[derive(Debug, Clone, Copy, Args)]
pub(crate) struct RunArgs {
    /// Answer yes to every question; needed when there is no terminal.
    #[arg(long, short = 'y')]
    pub(crate) yes: bool,
    /// Print the planned changes as unified diffs and write nothing.
    #[arg(long)]
    pub(crate) dry_run: bool,
    /// Print a machine-readable report on stdout.
    #[arg(long)]
    pub(crate) json: bool,
}

/// Flags of `obsmcp doctor`.
#[derive(Debug, Args)]
pub(crate) struct DoctorArgs {
    /// Vault folder to check (repeatable); without it, the vaults found in client entries and Obsidian's registry.
    #[arg(long, value_name = "PATH")]
    pub(crate) vault: Vec<PathBuf>,
    /// The config folder of the `--vault` vaults, when it is not `.obsidian` (detected otherwise).
    #[arg(long, value_name = "NAME", requires = "vault")]
    pub(crate) config_dir: Option<String>,
    /// Print the report as JSON on stdout.
    #[arg(long)]
    pub(crate) json: bool,
    /// Apply the fixes setup can make, then check again.
    #[arg(long)]
    pub(crate) fix: bool,
    /// Start each client's obsmcp entry exactly as the client would and talk MCP through it.
    #[arg(long)]
    pub(crate) probe_bridge: bool,
    /// Write a redacted bug-report archive to this file.
    #[arg(long, value_name = "FILE.zip")]
    pub(crate) bundle: Option<PathBuf>,
    /// Self-test each vault through its live plugin (Obsidian must be open): compare the plugin's answers with the
    /// offline reader's on a sample of your notes (read only), then exercise every tool family in a scratch folder
    /// `obsmcp-selftest-<random>/` that is removed at the end, also after a failed step. Differences name paths,
    /// never note content. The scratch half is refused while the plugin is read-only.
    #[arg(long)]
    pub(crate) deep: bool,
    /// With --deep: how many of your notes to compare.
    #[arg(long, value_name = "N", default_value_t = 25, requires = "deep")]
    pub(crate) sample: usize,
    /// With --deep: show the values that differ (note text, headings, tags, properties) in the report.
    #[arg(long, requires = "deep")]
    pub(crate) show_content: bool,
}

/// Flags of `obsmcp bridge`.
#[derive(Debug, Args)]
pub(crate) struct BridgeArgs {
    /// Vault whose obsmcp plugin to connect to (port and token come from the plugin's data.json); repeat it to serve
    /// several vaults through this one bridge (each tool then takes a `vault` argument; the first is the default).
    /// Without it and any other upstream: OBSMCP_VAULT, else every vault `obsmcp setup` set up.
    #[arg(long, value_name = "PATH", conflicts_with = "url")]
    pub(crate) vault: Vec<PathBuf>,
    /// The vault's config folder, when it is not `.obsidian` (one --vault only: with several, each vault's is found
    /// in its folder).
    #[arg(long, value_name = "NAME", requires = "vault")]
    pub(crate) config_dir: Option<String>,
    /// Any MCP server over Streamable HTTP or legacy HTTP+SSE (a URL ending in /sse); OBSIDIAN_MCP_URL gives it when no
    /// other upstream is named.
    #[arg(long, value_name = "URL")]
    pub(crate) url: Option<String>,
    /// Extra header for `--url` upstreams, as 'Name: value' (repeatable).
    #[arg(long, value_name = "HEADER")]
    pub(crate) header: Vec<String>,
    /// Send `Authorization: Bearer <value of this environment variable>` to a `--url` upstream.
    #[arg(long, value_name = "NAME")]
    pub(crate) token_env: Option<String>,
    /// Hide and refuse every tool that is not marked read-only.
    #[arg(long)]
    pub(crate) read_only: bool,
    /// Offer only these tools (repeatable).
    #[arg(long, value_name = "TOOL")]
    pub(crate) allow_tool: Vec<String>,
    /// Never offer these tools (repeatable).
    #[arg(long, value_name = "TOOL")]
    pub(crate) deny_tool: Vec<String>,
    /// Seconds a tool call may take before it is answered with an error.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub(crate) call_timeout: f64,
    /// Seconds a call waits for a down upstream before it is answered with an error (at once when the upstream has
    /// been away for over a second and refuses a fresh attempt).
    #[arg(long, value_name = "SECONDS", default_value_t = 3.0)]
    pub(crate) connect_wait: f64,
    /// Milliseconds `tools/list` may wait for an upstream when no catalog is known (older bridge's variable).
    #[arg(
        long,
        value_name = "MS",
        env = "OBSIDIAN_MCP_STARTUP_GRACE_MS",
        default_value_t = 2000
    )]
    pub(crate) startup_grace_ms: u64,
    /// Never answer read tools from the vault folder when Obsidian is closed.
    #[arg(long)]
    pub(crate) no_offline: bool,
    /// Diagnostics log file (JSON lines); default in the platform's state folder.
    #[arg(long, value_name = "FILE")]
    pub(crate) log_file: Option<PathBuf>,
    /// Log level for messages on stderr (error, warn, info, debug, trace); the diagnostics log always records its events.
    #[arg(long, value_name = "LEVEL", default_value = "info")]
    pub(crate) log_level: String,
    /// The `max_chars` every read gets by default and may ask for at most, for any client (100 to 200000). Without
    /// it the bridge picks a budget the client will not cut (see the table in docs/guide.md, "Output that fits your client").
    #[arg(long, value_name = "N")]
    pub(crate) max_chars: Option<u64>,
    /// The offline index's memory budget in MiB: past it the index keeps no word index and text search reads every
    /// note (slower, and each search says so).
    #[arg(long, value_name = "MB", default_value_t = crate::offline::DEFAULT_MEMORY_BUDGET_MB)]
    pub(crate) index_memory_mb: u64,
    /// While Obsidian is open, answer text searches and the vault-wide reads (tags, tasks, orphans, unresolved links,
    /// properties, files by tag, the listing, Bases views) from the bridge's own index of the vault folder (kept current by a file
    /// watcher, same answers as the plugin, much faster on large vaults; results say `served_from: index`).
    #[arg(long, value_name = "WHEN", value_enum, default_value_t = crate::bridge::IndexSearch::Auto)]
    pub(crate) index_search: crate::bridge::IndexSearch,
    /// The embedding model for `search` in modes `semantic` and `hybrid`: a Model2Vec model's folder
    /// (model.safetensors, tokenizer.json, config.json). Default: `model` in obsmcp's state folder, when it is there.
    #[arg(long, value_name = "FOLDER")]
    pub(crate) model: Option<PathBuf>,
    /// Which of the vault's tools `tools/list` carries: `core` (10 tools, about 11 KB of the agent's context) with
    /// `obsidian_tools` to name, enable or run every other one, or `all` (38 tools, about 40 KB). Setup writes `all`
    /// for Claude Code, which keeps MCP tools behind its tool search. Other upstreams list every tool.
    #[arg(long, value_name = "PROFILE", value_enum, default_value_t = crate::bridge::ToolProfile::Core)]
    pub(crate) tools: crate::bridge::ToolProfile,
    /// A stdio MCP server to run as the upstream, after `--`.
    #[arg(last = true, value_name = "CMD")]
    pub(crate) command: Vec<String>,
}

/// Flags of `obsmcp uninstall`.
#[derive(Debug, Args)]
pub(crate) struct UninstallArgs {
    /// Vault to remove the plugin from (repeatable), at its place now when it moved; without it, every vault setup
    /// touched.
    #[arg(long, value_name = "PATH")]
    pub(crate) vault: Vec<PathBuf>,
    /// The vault's config folder, when it is not `.obsidian`.
    #[arg(long, value_name = "NAME")]
    pub(crate) config_dir: Option<String>,
    #[arg(long, value_name = "NAME", help = client_help("AI client to remove obsmcp from (repeatable); without it, every client"))]
    pub(crate) client: Vec<String>,
    #[command(flatten)]
    pub(crate) run: RunArgs,
    /// Keep the plugin's files in the vault (it is always kept while another client's entry still uses the vault).
    #[arg(long)]
    pub(crate) keep_plugin: bool,
}

/// Flags of `obsmcp completions`.
#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell to write the completion script for.
    #[arg(value_enum)]
    pub(crate) shell: clap_complete::Shell,
}

/// A `--client` help line that names every client obsmcp knows.
fn client_help(what: &str) -> String {
    let names: Vec<&str> = obsmcp_installer::clients::CLIENTS
        .iter()
        .map(|client| client.id)
        .collect();
    format!("{what}. One of: {}", names.join(", "))
}
