//! Measures 1c and 1d, obsmcp only: spawn → `initialize` answered through the launchers of the channels that need no
//! Rust toolchain, in the same rounds as the bare binary so that each row says what its launcher adds: the npm
//! package's `obsmcp` (a Node script that runs the binary of the platform package) and `uvx` running the PyPI wheel
//! from its cache. `benches/run` builds and installs both (`packaging/build`, `packaging/build-rust`) and names them
//! in `OBSMCP_BENCH_NPM_BIN`, `OBSMCP_BENCH_UVX` and `OBSMCP_BENCH_WHEEL`; a run without them says so in the rows.
//! The npm launcher runs on the machine's Node and, when `OBSMCP_BENCH_NODE22` names one (the Node 22 that
//! `tests/conformance` pins), on Node 22 too, where it replaces itself with the binary (`process.execve`).
//! `npx obsmcp` runs npm's own command first (hundreds of milliseconds on its own), then the launcher; it is measured
//! from the same install (`npx --offline --no --prefix`), so that no download is timed.
//! Client entries never run a launcher (setup installs the binary itself where it lasts): this is what
//! `npx obsmcp setup` pays, and an entry written by hand around `npx` or `uvx`.

use std::path::PathBuf;
use std::time::Instant;

use super::Plan;
use super::bridges::BridgeKind;
use super::figure::Figure;
use super::measures::Setup;
use super::stats::{median, millis};
use crate::support::bridge::Bridge;

/// What the launchers scored.
pub struct LauncherFigures {
    pub npm_ms: Figure,
    /// The npm launcher's time minus the bare binary's, paired round by round.
    pub npm_added_ms: Figure,
    /// The same launcher run by Node 22, and what it adds.
    pub npm22_ms: Figure,
    pub npm22_added_ms: Figure,
    /// `npx obsmcp`: npm's own command finds the installed package, then runs its launcher; and what it adds.
    pub npx_ms: Figure,
    pub npx_added_ms: Figure,
    pub uvx_ms: Figure,
    /// uvx's time minus the bare binary's, paired round by round.
    pub uvx_added_ms: Figure,
    /// The Node version the npm launcher ran on.
    pub node: String,
}

/// A launcher: the program and the arguments before `bridge …`.
struct Launcher {
    program: PathBuf,
    before: Vec<String>,
}

fn from_environment() -> (
    Option<Launcher>,
    Option<Launcher>,
    Option<Launcher>,
    Option<Launcher>,
) {
    let path = |name: &str| std::env::var_os(name).map(PathBuf::from);
    // The npm prefix the packages were installed into: `<prefix>/node_modules/.bin/obsmcp`.
    let npx = path("OBSMCP_BENCH_NPM_BIN")
        .and_then(|bin| Some(bin.parent()?.parent()?.parent()?.to_path_buf()))
        .map(|prefix| Launcher {
            program: "npx".into(),
            before: vec![
                "--offline".into(),
                "--no".into(),
                "--prefix".into(),
                prefix.to_str().unwrap().into(),
                "--".into(),
                "obsmcp".into(),
            ],
        });
    let npm = path("OBSMCP_BENCH_NPM_BIN").map(|program| Launcher {
        program,
        before: Vec::new(),
    });
    let npm22 = path("OBSMCP_BENCH_NODE22")
        .zip(path("OBSMCP_BENCH_NPM_BIN"))
        .map(|(node, launcher)| Launcher {
            program: node,
            before: vec![launcher.to_str().unwrap().into()],
        });
    let uvx = path("OBSMCP_BENCH_UVX")
        .zip(path("OBSMCP_BENCH_WHEEL"))
        .map(|(program, wheel)| Launcher {
            program,
            before: vec![
                "--offline".into(),
                "--from".into(),
                wheel.to_str().unwrap().into(),
                "obsmcp".into(),
            ],
        });
    (npm, npm22, npx, uvx)
}

pub fn measure(setup: &Setup, plan: &Plan) -> LauncherFigures {
    let host = setup.host();
    let (npm, npm22, npx, uvx) = from_environment();
    let time = |start: &dyn Fn() -> Bridge| {
        let started = Instant::now();
        let mut bridge = start();
        bridge.initialize();
        millis(started.elapsed())
    };
    let bare = || setup.start(BridgeKind::Obsmcp);
    let through = |launcher: &Launcher| -> (Figure, Figure) {
        let start = || {
            let mut args = launcher.before.clone();
            args.extend(setup.bridge_args());
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            setup.start_program(&launcher.program, &args)
        };
        // Once unmeasured: uvx unpacks the wheel into its cache on its first run.
        time(&start);
        let (mut times, mut added) = (Vec::new(), Vec::new());
        for _ in 0..plan.spawns {
            let bare_ms = time(&bare);
            let launched_ms = time(&start);
            times.push(launched_ms);
            added.push(launched_ms - bare_ms);
        }
        (Figure::value(median(&times)), Figure::value(median(&added)))
    };
    let missing = || {
        let why = "not installed: benches/run builds it";
        (
            Figure::NotApplicable(why.into()),
            Figure::NotApplicable(why.into()),
        )
    };
    let (npm_ms, npm_added_ms) = npm.as_ref().map_or_else(missing, through);
    let (npm22_ms, npm22_added_ms) = npm22.as_ref().map_or_else(missing, through);
    let (npx_ms, npx_added_ms) = npx.as_ref().map_or_else(missing, through);
    let (uvx_ms, uvx_added_ms) = uvx.as_ref().map_or_else(missing, through);
    host.stop();
    let node = std::process::Command::new("node")
        .arg("--version")
        .output()
        .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_owned())
        .unwrap_or_default();
    eprintln!(
        "[obsmcp launchers] npm (Node {node}): {npm_ms:?}, adds {npm_added_ms:?}; npm (Node 22): {npm22_ms:?}, adds {npm22_added_ms:?}; npx: {npx_ms:?}, adds {npx_added_ms:?}; uvx: {uvx_ms:?}, adds {uvx_added_ms:?}"
    );
    LauncherFigures {
        npm_ms,
        npm_added_ms,
        npm22_ms,
        npm22_added_ms,
        npx_ms,
        npx_added_ms,
        uvx_ms,
        uvx_added_ms,
        node,
    }
}
