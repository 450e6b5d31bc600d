//! Measures 1b and 3b, obsmcp only: the same bridge with a 2026-07-28 client, which opens with `server/discover` and
//! sends each request with its envelope in `_meta` instead of opening a session. The per-call figures are paired the
//! same way as measure 3 (a direct call to the plugin, then the call through the bridge), against two baselines: the
//! direct 2025 session of measure 3, and a direct 2026-07-28 client of the plugin, which is what the bridge itself
//! speaks to the plugin in either era.

use std::time::Instant;

use serde_json::{Value, json};

use super::Plan;
use super::bridges::BridgeKind;
use super::direct::Direct;
use super::figure::Figure;
use super::measures::Setup;
use super::stats::{median, millis};
use crate::support::bridge::is_error;

/// What the obsmcp bridge scored with a 2026-07-28 client.
pub struct ModernFigures {
    pub discover_ms: Figure,
    pub call_ms: Figure,
    /// The bridge's call minus the direct 2025 session's, paired.
    pub overhead_ms: Figure,
    /// The same call straight to the plugin as one stateless 2026-07-28 request.
    pub direct_stateless_ms: Figure,
    /// The bridge's call minus the direct stateless request's, paired.
    pub overhead_stateless_ms: Figure,
}

/// The `_meta` of every request of a 2026-07-28 client.
fn envelope() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": "bench", "version": "1" },
    })
}

pub fn measure(setup: &Setup, plan: &Plan) -> ModernFigures {
    let host = setup.host();
    let mut discover_times = Vec::new();
    for _ in 0..plan.spawns {
        let started = Instant::now();
        let mut bridge = setup.start(BridgeKind::Obsmcp);
        let answer = bridge.request("server/discover", json!({ "_meta": envelope() }));
        assert!(answer["result"]["supportedVersions"].is_array(), "{answer}");
        discover_times.push(millis(started.elapsed()));
    }

    let mut bridge = setup.start(BridgeKind::Obsmcp);
    let session = Direct::connect(setup.port());
    // A plugin of the 2025 era only (an older build, when the suite compares builds) has no stateless baseline.
    let stateless = Some(Direct::stateless(setup.port()))
        .filter(|direct| direct.answer("vault_info", &json!({}))["result"].is_object());
    let call = json!({ "name": "vault_info", "arguments": {}, "_meta": envelope() });
    for _ in 0..5 {
        assert!(!is_error(&bridge.request("tools/call", call.clone())));
        session.call("vault_info", &json!({}));
        if let Some(stateless) = &stateless {
            stateless.call("vault_info", &json!({}));
        }
    }
    let (mut through, mut straight, mut alone) = (Vec::new(), Vec::new(), Vec::new());
    let (mut over_session, mut over_stateless) = (Vec::new(), Vec::new());
    for _ in 0..plan.calls {
        let started = Instant::now();
        session.call("vault_info", &json!({}));
        let session_ms = millis(started.elapsed());
        let started = Instant::now();
        if let Some(stateless) = &stateless {
            stateless.call("vault_info", &json!({}));
        }
        let stateless_ms = millis(started.elapsed());
        let started = Instant::now();
        let answer = bridge.request("tools/call", call.clone());
        let bridge_ms = millis(started.elapsed());
        assert!(
            !is_error(&answer) && answer["result"]["resultType"] == "complete",
            "{answer}"
        );
        through.push(bridge_ms);
        straight.push(session_ms);
        alone.push(stateless_ms);
        over_session.push(bridge_ms - session_ms);
        over_stateless.push(bridge_ms - stateless_ms);
    }
    eprintln!(
        "[obsmcp, 2026-07-28 client] discover {:.1} ms; per call {:.2} ms, overhead {:.2} ms over a 2025 session, {:.2} ms over a stateless request ({:.2} ms)",
        median(&discover_times),
        median(&through),
        median(&over_session),
        median(&over_stateless),
        median(&alone)
    );
    drop(bridge);
    host.stop();
    let (direct_stateless_ms, overhead_stateless_ms) = match stateless {
        Some(_) => (
            Figure::value(median(&alone)),
            Figure::value(median(&over_stateless)),
        ),
        None => {
            let why = "the plugin does not speak 2026-07-28";
            (Figure::Failed(why.into()), Figure::Failed(why.into()))
        }
    };
    ModernFigures {
        discover_ms: Figure::value(median(&discover_times)),
        call_ms: Figure::value(median(&through)),
        overhead_ms: Figure::value(median(&over_session)),
        direct_stateless_ms,
        overhead_stateless_ms,
    }
}
