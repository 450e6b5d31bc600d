//! The terminal layer every command shares: lines for people on stderr that survive a closed stderr, a closed stdout
//! taken as a reader that has seen enough, the spinner, setup's and uninstall's questions and their report printer.
//! stdout belongs to each command's data (reports, diffs, and in the bridge, MCP alone).

pub(crate) mod prompt;
pub(crate) mod report;
pub(crate) mod spinner;

use std::io::Write as _;

/// Writes one line for people on stderr, as `eprintln!` does but without its panic when stderr is closed or a pipe
/// whose reader has quit: the exit code that follows is then what still tells the caller how the run went.
pub(crate) fn stderr_line(line: std::fmt::Arguments<'_>) {
    // Nobody is left to read the line, and a panic would turn the run's exit code (1, 2) into 101.
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Writes text for people on stderr without a line end (the spinner's frames), as [`stderr_line`] does.
pub(crate) fn stderr_text(text: std::fmt::Arguments<'_>) {
    let mut stderr = std::io::stderr().lock();
    // As in stderr_line: nobody is left to read it, and the spinner is only decoration.
    let _ = stderr.write_fmt(text).and_then(|()| stderr.flush());
}

/// A write's result, with a closed pipe taken as the reader having seen enough (`obsmcp setup --json | head`): the
/// run's work is done by then, so it ends quietly with the exit code the work earned, as `cat` or `rg` would.
pub(crate) fn unless_reader_left(result: std::io::Result<()>) -> std::io::Result<()> {
    match result {
        Err(error) if error.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}
