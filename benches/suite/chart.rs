//! The results as a chart: plain SVG (no scripts, no external fonts, text as text) that renders in a GitHub README.
//! One panel per measure, each with its own linear scale from zero, since the figures span milliseconds to
//! megabytes; every bar carries its number, a dashed line marks DESIGN.md's target, and a bridge that has no number
//! on a measure gets its reason written where its bar would be.

use std::fmt::Write;

use super::bridges::BridgeKind;
use super::figure::{Figure, format_number, thousands};
use super::report::Report;
use super::vault::WORST_SEARCH;

const WIDTH: f64 = 860.0;
const LABEL_WIDTH: f64 = 190.0;
const BAR_AREA: f64 = 430.0;
const BAR_HEIGHT: f64 = 16.0;
const BAR_STEP: f64 = 21.0;
const PANEL_GAP: f64 = 18.0;

/// One bar: its label, colour and figure.
struct Bar {
    label: String,
    colour: &'static str,
    figure: Figure,
}

/// One panel: a measure with its bars.
struct Panel {
    title: String,
    unit: &'static str,
    higher_is_better: bool,
    /// DESIGN.md's target: where the line goes, and its words.
    target: Option<(f64, String)>,
    bars: Vec<Bar>,
}

fn colour(kind: BridgeKind) -> &'static str {
    match kind {
        BridgeKind::Obsmcp => "#2563eb",
        BridgeKind::McpRemote => "#ea580c",
        BridgeKind::Supergateway => "#7c3aed",
    }
}

const BASELINE_COLOUR: &str = "#9ca3af";

/// The panels drawn: the bridge measures of the table, then the vault's worst-case search.
fn panels(report: &Report) -> Vec<Panel> {
    let mut panels = Vec::new();
    for (id, title) in [
        ("spawn_to_initialize", "1. spawn → initialize answered"),
        (
            "tools_list_upstream_down",
            "2. tools/list, started with the plugin down",
        ),
        ("call_overhead", "3. overhead per call over direct HTTP"),
        ("recovery", "4. plugin restarted → first successful call"),
        ("rss_after_calls", "5. peak RSS after the calls"),
        ("note_20mb", "6. 20 MB note round trip"),
        (
            "throughput",
            "7. throughput, requests in flight on one stdio",
        ),
    ] {
        let row = report
            .rows
            .iter()
            .find(|row| row.id == id)
            .expect("a row for every panel");
        let mut bars: Vec<Bar> = BridgeKind::ALL
            .iter()
            .zip(&row.figures)
            .map(|(kind, figure)| Bar {
                label: kind.title(),
                colour: colour(*kind),
                figure: figure.clone(),
            })
            .collect();
        if id == "throughput"
            && let Some(direct) = report.rows.iter().find(|row| row.id == "direct_throughput")
        {
            bars.push(Bar {
                label: "direct HTTP (no bridge)".into(),
                colour: BASELINE_COLOUR,
                figure: direct.figures[0].clone(),
            });
        }
        panels.push(Panel {
            title: title.into(),
            unit: row.unit,
            higher_is_better: row.higher_is_better,
            target: row
                .target
                .as_ref()
                .map(|target| (target.limit, target.text.clone())),
            bars,
        });
    }
    if let Some(case) = report
        .vault
        .cases
        .iter()
        .find(|case| case.label == WORST_SEARCH)
    {
        let obsmcp = colour(BridgeKind::Obsmcp);
        panels.push(Panel {
            title: format!(
                "8. search scanning {} notes (obsmcp only)",
                thousands(report.vault.notes)
            ),
            unit: "ms",
            higher_is_better: false,
            target: Some((300.0, "< 300 ms".into())),
            bars: vec![
                Bar {
                    label: "plugin, direct HTTP".into(),
                    colour: BASELINE_COLOUR,
                    figure: Figure::value(case.direct_ms),
                },
                Bar {
                    label: "obsmcp → plugin".into(),
                    colour: obsmcp,
                    figure: Figure::value(case.bridge_ms),
                },
                Bar {
                    label: "obsmcp offline".into(),
                    colour: "#0891b2",
                    figure: Figure::value(case.offline_ms),
                },
            ],
        });
    }
    panels
}

/// The chart as an SVG document.
pub fn svg(report: &Report) -> String {
    let panels = panels(report);
    let height: f64 = 72.0
        + panels
            .iter()
            .map(|panel| 26.0 + panel.bars.len() as f64 * BAR_STEP + PANEL_GAP)
            .sum::<f64>();
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" font-family="Helvetica, Arial, sans-serif" font-size="12">"#
    );
    let _ = writeln!(
        out,
        r##"<rect width="100%" height="100%" fill="#ffffff"/>"##
    );
    let _ = writeln!(
        out,
        r##"<text x="12" y="22" font-size="15" font-weight="bold" fill="#111827">obsmcp bridge and its peers, side by side in one run</text>"##
    );
    let _ = writeln!(
        out,
        r##"<text x="12" y="40" fill="#4b5563">{}</text>"##,
        escape(&format!(
            "{} · {} ({} cores) · obsmcp {}",
            report.machine.date,
            report.machine.cpu_model,
            report.machine.cores,
            report.machine.commit
        ))
    );
    let _ = writeln!(
        out,
        r##"<text x="12" y="56" fill="#4b5563">Medians. Each panel has its own scale from zero; the dashed line is DESIGN.md's target for obsmcp.</text>"##
    );
    let mut y = 72.0;
    for panel in &panels {
        y = draw_panel(&mut out, panel, y);
    }
    out.push_str("</svg>\n");
    out
}

/// Draws one panel with its top at `y`; returns the top of the next one.
fn draw_panel(out: &mut String, panel: &Panel, y: f64) -> f64 {
    let direction = if panel.higher_is_better {
        "higher is better"
    } else {
        "lower is better"
    };
    let _ = writeln!(
        out,
        r##"<text x="12" y="{:.1}" font-weight="bold" fill="#111827">{} <tspan font-weight="normal" fill="#6b7280">({}, {direction})</tspan></text>"##,
        y + 14.0,
        escape(&panel.title),
        escape(panel.unit)
    );
    let largest = panel
        .bars
        .iter()
        .filter_map(|bar| bar.figure.number())
        .chain(panel.target.as_ref().map(|(limit, _)| *limit))
        .fold(0.0_f64, f64::max);
    let scale = if largest > 0.0 {
        BAR_AREA / (largest * 1.05)
    } else {
        0.0
    };
    let top = y + 22.0;
    let bottom = top + panel.bars.len() as f64 * BAR_STEP;
    // Drawn first, so that the bars' numbers stay readable on top of it.
    if let Some((limit, text)) = panel.target.as_ref().filter(|_| scale > 0.0) {
        let x = LABEL_WIDTH + limit * scale;
        let _ = writeln!(
            out,
            r##"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{bottom:.1}" stroke="#16a34a" stroke-width="1.5" stroke-dasharray="4 3"/>"##,
            top - 3.0
        );
        let _ = writeln!(
            out,
            r##"<text x="{:.1}" y="{:.1}" font-size="10" fill="#16a34a">target {}</text>"##,
            x + 3.0,
            bottom + 7.0,
            escape(text)
        );
    }
    for (index, bar) in panel.bars.iter().enumerate() {
        let bar_y = top + index as f64 * BAR_STEP;
        let text_y = bar_y + BAR_HEIGHT - 4.0;
        let _ = writeln!(
            out,
            r##"<text x="{:.1}" y="{text_y:.1}" text-anchor="end" fill="#374151">{}</text>"##,
            LABEL_WIDTH - 8.0,
            escape(&bar.label)
        );
        match &bar.figure {
            Figure::Measured { value, note } => {
                let width = (value.max(0.0) * scale).max(1.5);
                let _ = writeln!(
                    out,
                    r#"<rect x="{LABEL_WIDTH}" y="{bar_y:.1}" width="{width:.1}" height="{BAR_HEIGHT}" fill="{}"/>"#,
                    bar.colour
                );
                let text = match note {
                    Some(note) => format!("{} {} ({note})", format_number(*value), panel.unit),
                    None => format!("{} {}", format_number(*value), panel.unit),
                };
                let _ = writeln!(
                    out,
                    r##"<text x="{:.1}" y="{text_y:.1}" fill="#111827">{}</text>"##,
                    LABEL_WIDTH + width + 6.0,
                    escape(&text)
                );
            }
            Figure::Failed(text) | Figure::NotApplicable(text) => {
                let prefix = if matches!(bar.figure, Figure::Failed(_)) {
                    ""
                } else {
                    "n/a: "
                };
                let _ = writeln!(
                    out,
                    r##"<text x="{LABEL_WIDTH}" y="{text_y:.1}" font-style="italic" fill="#b91c1c">{}</text>"##,
                    escape(&shorten(&format!("{prefix}{text}"), 95))
                );
            }
        }
    }
    bottom + PANEL_GAP
}

fn shorten(text: &str, limit: usize) -> String {
    if text.chars().count() <= limit {
        return text.into();
    }
    let mut short: String = text.chars().take(limit - 1).collect();
    short.push('…');
    short
}

/// Escapes text for an SVG text node.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::{escape, shorten};

    #[test]
    fn text_is_escaped_and_long_reasons_are_cut() {
        assert_eq!(escape("a < b & \"c\""), "a &lt; b &amp; &quot;c&quot;");
        assert_eq!(shorten("abcdef", 4), "abc…");
        assert_eq!(shorten("abc", 4), "abc");
    }
}
