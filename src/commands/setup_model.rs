//! `obsmcp setup --semantic`: the embedding model of search by meaning, put in obsmcp's state folder (downloaded from
//! its pin, or copied with `--model FOLDER`), as one more line of setup's report. With `--dry-run` it only says what
//! would happen; a failure is a problem of the report (exit code 1) that leaves the rest of setup done.

use obsmcp_installer::environment::Environment;
use obsmcp_installer::plan::{Change, Item, Note, Problem};

use crate::cli::SetupArgs;
use crate::embedding::{self, Installed, Origin, pin::Pin};
use crate::ui::report::{Outcome, Report};

/// Adds the model to `report`, setting it up unless `--dry-run`.
pub(super) fn set_up(args: &SetupArgs, environment: &Environment, report: &mut Report) {
    let state_home = environment.state_home();
    let folder = embedding::folder(&state_home);
    let pin = match Pin::in_force(|name| environment.var(name).map(str::to_owned)) {
        Ok(pin) => pin,
        Err(message) => {
            report.problems.push(problem(message));
            return;
        }
    };
    let endpoint = embedding::fetch::endpoint(|name| environment.var(name).map(str::to_owned));
    let origin = match &args.model {
        Some(from) => Origin::Folder(from),
        None => Origin::Hub {
            pin: &pin,
            endpoint: &endpoint,
        },
    };
    let subject = match &args.model {
        Some(from) => format!("embedding model (copied from {})", from.display()),
        None => format!(
            "embedding model {} ({:.1} MB, {})",
            pin.repository,
            pin.bytes() as f64 / 1e6,
            pin.license
        ),
    };
    let item = |change| Item {
        scope: "obsmcp".to_owned(),
        subject: subject.clone(),
        change,
        path: folder.clone(),
    };
    if args.run.dry_run {
        let present = embedding::verify(&folder).is_ok_and(|manifest| match &origin {
            Origin::Hub { pin, .. } => {
                manifest.source == format!("{}@{}", pin.repository, pin.revision)
            }
            Origin::Folder(_) => false,
        });
        push_item(
            report,
            item(if present {
                Change::Unchanged
            } else {
                Change::Added
            }),
        );
        if !present {
            report.outcome = Outcome::Planned;
        }
        return;
    }
    match embedding::install(&origin, &state_home) {
        Ok(installed) => {
            let (change, manifest) = match installed {
                Installed::Added(manifest) => (Change::Added, manifest),
                Installed::Unchanged(manifest) => (Change::Unchanged, manifest),
            };
            if change == Change::Added && report.outcome == Outcome::AlreadyConfigured {
                report.outcome = Outcome::Changed;
            }
            push_item(report, item(change));
            report.notes.push(Note {
                scope: "obsmcp".to_owned(),
                message: format!(
                    "search by meaning: {} ({:.1} MB, each file's size and SHA-256 checked) is in {}; the bridge loads it at the first `search` in mode \"semantic\" or \"hybrid\", no restart needed",
                    manifest.source,
                    manifest.bytes() as f64 / 1e6,
                    folder.display()
                ),
            });
        }
        Err(message) => report.problems.push(problem(message)),
    }
}

/// Puts the model's line with obsmcp's own lines (the binary), which the report shows first.
fn push_item(report: &mut Report, item: Item) {
    let at = report
        .items
        .iter()
        .take_while(|other| other.scope == item.scope)
        .count();
    report.items.insert(at, item);
}

fn problem(message: String) -> Problem {
    Problem {
        scope: "obsmcp".to_owned(),
        message: format!("search by meaning was not set up: {message}"),
        hint: Some(
            "run `obsmcp setup --semantic` again (a download that failed leaves nothing behind), set HF_ENDPOINT to a \
             Hugging Face mirror, or pass `--model FOLDER` with a Model2Vec model you have"
                .to_owned(),
        ),
    }
}
