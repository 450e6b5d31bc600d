//! The self-test's two printers, over the same [`DeepReport`]s: text for people (after doctor's own report) and
//! JSON (doctor's report with a `deep` list), which a user can attach to a bug report as it is: it holds paths and
//! counts, and note content only when `--show-content` put it there.

use serde::Serialize;

use super::DeepReport;
use super::parity::Parity;
use super::scratch::Exercise;
use crate::doctor::print::mark;
use crate::doctor::report::{Report, Status};

/// Doctor's report and the self-tests, as `--deep --json` prints them.
#[derive(Serialize)]
struct WithDeep<'a> {
    #[serde(flatten)]
    report: &'a Report,
    deep: &'a [DeepReport],
}

/// Renders doctor's report with the self-tests as JSON (pretty, with a final newline).
pub(crate) fn json(report: &Report, deep: &[DeepReport]) -> String {
    let mut text = serde_json::to_string_pretty(&WithDeep { report, deep })
        .expect("the report is plain data and always serialises");
    text.push('\n');
    text
}

/// Renders the self-tests as text, to follow doctor's own report.
pub(crate) fn text(deep: &[DeepReport]) -> String {
    let mut out = String::new();
    for report in deep {
        write_report(&mut out, report);
    }
    out
}

/// One vault's self-test: why it did not run, the wait for the index, parity, the exercise and the verdict.
fn write_report(out: &mut String, report: &DeepReport) {
    out.push_str(&format!(
        "\nSelf-test of {} (doctor --deep)\n",
        report.vault
    ));
    if let Some(why) = &report.not_run {
        out.push_str(&format!("  {} not run: {why}\n", mark(report.verdict)));
    }
    if let Some(waited) = report.waited_for_index_ms {
        out.push_str(&format!(
            "  {} waited {:.1} s for Obsidian to finish indexing\n",
            mark(Status::Ok),
            waited as f64 / 1000.0
        ));
    }
    if let Some(parity) = &report.parity {
        write_parity(out, parity);
    }
    if let Some(exercise) = &report.exercise {
        write_exercise(out, exercise);
    }
    out.push_str(&format!(
        "  {} self-test {} in {:.1} s\n",
        mark(report.verdict),
        match report.verdict {
            Status::Fail => "failed",
            Status::Skip => "not run",
            Status::Ok | Status::Warn => "passed",
        },
        report.elapsed_ms as f64 / 1000.0
    ));
}

/// The parity comparison: its finding, the notes left out, the differences kept and the hint when any differ.
fn write_parity(out: &mut String, parity: &Parity) {
    let finding = match &parity.trouble {
        Some(trouble) => trouble.clone(),
        None if parity.calls_differing == 0 => format!(
            "{} calls on {} of {} notes: the plugin and the offline reader agree",
            parity.calls, parity.notes_compared, parity.notes_in_vault
        ),
        None => format!(
            "{} of {} calls on {} of {} notes differ between the plugin and the offline reader",
            parity.calls_differing, parity.calls, parity.notes_compared, parity.notes_in_vault
        ),
    };
    out.push_str(&format!("  {} parity: {finding}\n", mark(parity.status)));
    if !parity.notes_outside.is_empty() {
        out.push_str(&format!(
            "      left out, reached through a symbolic link that leads outside the vault (offline mode does not \
             read such notes): {}\n",
            parity.notes_outside.join(", ")
        ));
    }
    for difference in &parity.differences {
        let values = match (&difference.live, &difference.offline) {
            (Some(live), Some(offline)) => format!(" (plugin {live}, offline {offline})"),
            _ => String::new(),
        };
        out.push_str(&format!(
            "      {} {}: {} {}{values}\n",
            difference.tool, difference.subject, difference.field, difference.what
        ));
    }
    if parity.more_differences > 0 {
        out.push_str(&format!(
            "      … and {} more (see --json)\n",
            parity.more_differences
        ));
    }
    if parity.calls_differing > 0 {
        out.push_str(
            "    hint: a note edited while the self-test ran differs too: run it again; if the differences stay, \
             attach `obsmcp doctor --deep --json` to a bug report (paths only; add --show-content to include the \
             values)\n",
        );
    }
}

/// The exercise in the scratch folder: each step, then what the cleanup trashed, removed and left behind.
fn write_exercise(out: &mut String, exercise: &Exercise) {
    match &exercise.refused {
        Some(why) => out.push_str(&format!("  {} exercise {why}\n", mark(exercise.status))),
        None => {
            out.push_str(&format!(
                "  {} exercise in {}\n",
                mark(exercise.status),
                exercise.folder.as_deref().unwrap_or("?")
            ));
            for step in &exercise.steps {
                out.push_str(&format!(
                    "      {} {}: {} ({} ms)\n",
                    mark(step.status),
                    step.id,
                    step.finding,
                    step.elapsed_ms
                ));
            }
            let cleanup = &exercise.cleanup;
            let status = if cleanup.left.is_empty() {
                Status::Ok
            } else {
                Status::Fail
            };
            out.push_str(&format!(
                "      {} cleanup: {} trashed through Obsidian; removed {}\n",
                mark(status),
                cleanup.trashed.len(),
                if cleanup.removed.is_empty() {
                    "nothing".to_owned()
                } else {
                    cleanup.removed.join(", ")
                }
            ));
            for left in &cleanup.left {
                out.push_str(&format!("        left behind, delete it by hand: {left}\n"));
            }
            if let Some(system) = &cleanup.system_trash {
                out.push_str(&format!("        {system}\n"));
            }
        }
    }
}
