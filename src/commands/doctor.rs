//! `obsmcp doctor`: the command's glue over the engine in [`crate::doctor`] (the checks, the report and its
//! printers): the arguments, a small runtime, the spinner, printing, the support bundle and the exit code.

use std::io::Write as _;
use std::process::ExitCode;

use anyhow::Context as _;
use obsmcp_installer::environment::Environment;

use crate::cli::DoctorArgs;
use crate::doctor::{self, Options};

/// Runs `obsmcp doctor` on a small runtime: the network checks are few and short, two threads are plenty.
pub(crate) fn run(args: DoctorArgs) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("could not start the async runtime")?;
    runtime.block_on(doctor(args))
}

/// What to examine, from the command line.
fn options(args: &DoctorArgs, environment: &Environment) -> anyhow::Result<Options> {
    let current = std::env::current_dir().context("could not read the current folder")?;
    Ok(Options {
        vaults: args
            .vault
            .iter()
            .map(|vault| crate::commands::shared::absolute_folder(environment, vault))
            .collect::<std::io::Result<_>>()
            .context("could not read the current folder")?,
        config_dir: args.config_dir.clone(),
        probe_bridge: args.probe_bridge,
        cwd: current,
        obsmcp: crate::commands::shared::own_command(environment),
        on_path: crate::commands::shared::obsmcp_on_path(environment),
    })
}

/// Examines (and with `--fix` repairs), prints the report, writes the bundle, and says by the exit code whether
/// anything failed.
async fn doctor(args: DoctorArgs) -> anyhow::Result<ExitCode> {
    let environment = Environment::from_process()
        .context("no home folder: doctor needs HOME (USERPROFILE on Windows) to find the AI clients' configs")?;
    let options = options(&args, &environment)?;
    let spinner = crate::ui::spinner::Spinner::start("checking");
    let mut examination = doctor::examine(&environment, &options).await;
    if args.fix {
        // A repair can reveal the next one (a plugin installed now has a data.json to fill), so a few rounds.
        let mut outcome = doctor::fix::FixOutcome::default();
        for _ in 0..3 {
            let round = doctor::fix::apply(&environment, &examination.report, &examination.clients);
            let changed = round.changed();
            outcome.absorb(round);
            if !changed {
                break;
            }
            examination = doctor::examine(&environment, &options).await;
        }
        examination.report = outcome.into_report(examination.report);
    }
    spinner.stop();
    let deep = if args.deep {
        let spinner = crate::ui::spinner::Spinner::start("self-testing");
        let deep = self_test(&examination.report, &args).await;
        spinner.stop();
        deep
    } else {
        Vec::new()
    };

    let home = environment.home().to_owned();
    let rendered = match (args.json, args.deep) {
        (true, false) => doctor::print::json(&examination.report),
        (true, true) => doctor::deep::print::json(&examination.report, &deep),
        (false, _) => {
            let mut text = doctor::print::text(
                &examination.report,
                doctor::print::TextStyle::detect(),
                Some(&home),
                &options.obsmcp,
            );
            text.push_str(&doctor::deep::print::text(&deep));
            text
        }
    };
    let mut stdout = std::io::stdout().lock();
    crate::ui::unless_reader_left(
        stdout
            .write_all(rendered.as_bytes())
            .and_then(|()| stdout.flush()),
    )
    .context("could not write the report to stdout")?;
    drop(stdout);
    if let Some(path) = &args.bundle {
        let input = doctor::bundle::BundleInput {
            report: &examination.report,
            clients: &examination.clients,
            tokens: &examination.tokens,
            log_folders: doctor::log_folders(&environment),
        };
        let files = doctor::bundle::write(path, &input)
            .with_context(|| format!("could not write the support bundle `{}`", path.display()))?;
        crate::ui::stderr_line(format_args!(
            "Support bundle written to {} ({} files; tokens and secrets redacted, no note content).",
            path.display(),
            files.len()
        ));
    }
    let deep_failed = args.deep && doctor::deep::failed(&deep);
    Ok(if examination.report.failed() || deep_failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// `--deep`: the self-test of each vault the report covers, one after the other (each loads its vault's notes).
async fn self_test(
    report: &doctor::report::Report,
    args: &DoctorArgs,
) -> Vec<doctor::deep::DeepReport> {
    let options = doctor::deep::DeepOptions {
        sample: args.sample,
        show_content: args.show_content,
    };
    let mut reports = Vec::new();
    for section in &report.sections {
        if let doctor::report::Subject::Vault { path, config_dir } = &section.subject {
            reports.push(doctor::deep::run(std::path::Path::new(path), config_dir, &options).await);
        }
    }
    reports
}
