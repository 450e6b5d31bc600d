//! The client table and each client's config rules.

use serde_json::json;

use super::*;
use crate::environment::Os;

fn locate(id: &str, environment: &Environment) -> PathBuf {
    find(id).unwrap().locate(environment).config
}

#[test]
fn ids_are_unique_and_fit_the_flag() {
    for (index, client) in CLIENTS.iter().enumerate() {
        assert!(
            client
                .id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '-'),
            "{}",
            client.id
        );
        assert!(
            CLIENTS[..index].iter().all(|other| other.id != client.id),
            "{}",
            client.id
        );
    }
}

#[test]
fn claude_code_paths() {
    let home = tempfile::tempdir().unwrap();
    let environment = Environment::new(Os::Linux, home.path());
    assert_eq!(
        locate("claude-code", &environment),
        home.path().join(".claude.json")
    );
    let custom = environment
        .clone()
        .with_var("CLAUDE_CONFIG_DIR", "/cfg/claude");
    assert_eq!(
        locate("claude-code", &custom),
        PathBuf::from("/cfg/claude/.claude.json")
    );
    let oauth = environment
        .clone()
        .with_var("CLAUDE_CODE_CUSTOM_OAUTH_URL", "https://x");
    assert_eq!(
        locate("claude-code", &oauth),
        home.path().join(".claude-custom-oauth.json")
    );
    std::fs::create_dir_all(home.path().join(".claude")).unwrap();
    std::fs::write(home.path().join(".claude/.config.json"), "{}").unwrap();
    assert_eq!(
        locate("claude-code", &environment),
        home.path().join(".claude/.config.json")
    );
    let settings = (find("claude-code")
        .unwrap()
        .permissions
        .as_ref()
        .unwrap()
        .locate)(&custom);
    assert_eq!(settings, PathBuf::from("/cfg/claude/settings.json"));
}

#[test]
fn codex_honours_codex_home_and_says_when_it_is_missing() {
    let environment = Environment::new(Os::Linux, "/home/me");
    assert_eq!(
        locate("codex", &environment),
        PathBuf::from("/home/me/.codex/config.toml")
    );
    let missing = environment.with_var("CODEX_HOME", "/nowhere/codex");
    let location = find("codex").unwrap().locate(&missing);
    assert_eq!(location.config, PathBuf::from("/nowhere/codex/config.toml"));
    assert!(location.problem.unwrap().contains("does not exist"));
}

#[test]
fn hermes_home_profile_and_windows() {
    let home = tempfile::tempdir().unwrap();
    let environment = Environment::new(Os::Linux, home.path());
    assert_eq!(
        locate("hermes", &environment),
        home.path().join(".hermes/config.yaml")
    );
    std::fs::create_dir_all(home.path().join(".hermes")).unwrap();
    std::fs::write(home.path().join(".hermes/active_profile"), "work\n").unwrap();
    assert_eq!(
        locate("hermes", &environment),
        home.path().join(".hermes/profiles/work/config.yaml")
    );
    std::fs::write(home.path().join(".hermes/active_profile"), "default").unwrap();
    assert_eq!(
        locate("hermes", &environment),
        home.path().join(".hermes/config.yaml")
    );
    let explicit = environment.with_var("HERMES_HOME", "/h");
    assert_eq!(locate("hermes", &explicit), PathBuf::from("/h/config.yaml"));
    let windows = Environment::new(Os::Windows, r"C:\Users\me")
        .with_var("LOCALAPPDATA", r"C:\Users\me\AppData\Local");
    assert_eq!(
        locate("hermes", &windows),
        PathBuf::from(r"C:\Users\me\AppData\Local")
            .join("hermes")
            .join("config.yaml")
    );
}

#[test]
fn claude_desktop_per_os_and_msix() {
    assert_eq!(
        locate("claude-desktop", &Environment::new(Os::MacOs, "/Users/me")),
        PathBuf::from("/Users/me/Library/Application Support/Claude/claude_desktop_config.json")
    );
    let local = tempfile::tempdir().unwrap();
    let windows = Environment::new(Os::Windows, r"C:\Users\me")
        .with_var("APPDATA", r"C:\Users\me\AppData\Roaming")
        .with_var("LOCALAPPDATA", local.path().to_str().unwrap());
    assert_eq!(
        locate("claude-desktop", &windows),
        PathBuf::from(r"C:\Users\me\AppData\Roaming")
            .join("Claude")
            .join("claude_desktop_config.json")
    );
    let msix = local
        .path()
        .join("Packages/Claude_pzs8sxrjxfjjc/LocalCache/Roaming");
    std::fs::create_dir_all(&msix).unwrap();
    assert_eq!(
        locate("claude-desktop", &windows),
        msix.join("Claude").join("claude_desktop_config.json")
    );
}

#[test]
fn vscode_zed_and_opencode_per_os() {
    let mac = Environment::new(Os::MacOs, "/Users/me");
    assert_eq!(
        locate("vscode", &mac),
        PathBuf::from("/Users/me/Library/Application Support/Code/User/mcp.json")
    );
    assert_eq!(
        locate("zed", &mac),
        PathBuf::from("/Users/me/.config/zed/settings.json")
    );
    let linux = Environment::new(Os::Linux, "/home/me");
    assert_eq!(
        locate("vscode", &linux),
        PathBuf::from("/home/me/.config/Code/User/mcp.json")
    );
    assert_eq!(
        locate("opencode", &linux),
        PathBuf::from("/home/me/.config/opencode/opencode.json")
    );
    assert_eq!(
        locate("gemini", &linux),
        PathBuf::from("/home/me/.gemini/settings.json")
    );
    let windows = Environment::new(Os::Windows, r"C:\Users\me").with_var("APPDATA", r"C:\R");
    assert_eq!(
        locate("zed", &windows),
        PathBuf::from(r"C:\R").join("Zed").join("settings.json")
    );
    assert_eq!(
        locate("vscode", &windows),
        PathBuf::from(r"C:\R")
            .join("Code")
            .join("User")
            .join("mcp.json")
    );
}

#[test]
fn windows_homes_for_the_three_main_clients() {
    let windows = Environment::new(Os::Windows, r"C:\Users\me")
        .with_var("LOCALAPPDATA", r"C:\Users\me\AppData\Local");
    let home = PathBuf::from(r"C:\Users\me");
    assert_eq!(locate("claude-code", &windows), home.join(".claude.json"));
    assert_eq!(
        locate("codex", &windows),
        home.join(".codex").join("config.toml")
    );
    let settings = (find("claude-code")
        .unwrap()
        .permissions
        .as_ref()
        .unwrap()
        .locate)(&windows);
    assert_eq!(settings, home.join(".claude").join("settings.json"));
}

#[test]
fn entries_are_told_apart() {
    let claude = find("claude-code").unwrap();
    let ours = json!({"command": "/usr/local/bin/obsmcp", "args": ["bridge", "--vault", "/v", "--read-only", "--tools", "all"]});
    assert_eq!(
        describe_entry(claude, &ours),
        EntryKind::Obsmcp {
            command: "/usr/local/bin/obsmcp".into(),
            vaults: vec!["/v".into()],
            config_dir: None,
            read_only: true,
            tools: Some("all".into()),
        }
    );
    let remote = json!({"command": "npx", "args": ["mcp-remote", "http://localhost:22360/sse"]});
    assert_eq!(
        describe_entry(claude, &remote),
        EntryKind::Other {
            description: "npx mcp-remote http://localhost:22360/sse".into()
        }
    );
    let opencode = find("opencode").unwrap();
    let ours = json!({"type": "local", "command": ["/o/obsmcp", "bridge", "--vault", "/v"]});
    assert!(matches!(
        describe_entry(opencode, &ours),
        EntryKind::Obsmcp { .. }
    ));
}

#[test]
fn an_entry_of_several_vaults_names_each() {
    let codex = find("codex").unwrap();
    let shared = json!({"command": "/o/obsmcp", "args": ["bridge", "--vault", "/a", "--vault", "/b", "--read-only"]});
    let EntryKind::Obsmcp {
        vaults, read_only, ..
    } = describe_entry(codex, &shared)
    else {
        panic!("obsmcp's entry");
    };
    assert_eq!(vaults, [PathBuf::from("/a"), PathBuf::from("/b")]);
    assert!(read_only);
}
