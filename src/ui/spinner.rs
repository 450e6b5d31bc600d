//! A small progress spinner on stderr while the network checks run, shown only when stderr is a terminal (never in
//! a pipe, a log or a test), so that output meant for reading or parsing stays clean.

use std::io::IsTerminal as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

/// A running spinner; [`Spinner::stop`] erases it.
pub(crate) struct Spinner {
    running: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Spinner {
    /// Starts a spinner with `label` when stderr is a terminal; otherwise does nothing.
    pub(crate) fn start(label: &'static str) -> Self {
        let running = Arc::new(AtomicBool::new(true));
        let dumb = std::env::var("TERM").is_ok_and(|term| term == "dumb");
        let thread = (std::io::stderr().is_terminal() && !dumb).then(|| {
            let running = Arc::clone(&running);
            std::thread::spawn(move || {
                let frames = ['|', '/', '-', '\\'];
                let mut frame = 0;
                // A short delay first: a fast run finishes before the spinner would flash.
                std::thread::sleep(Duration::from_millis(150));
                while running.load(Ordering::Relaxed) {
                    super::stderr_text(format_args!("\r{} {label}…", frames[frame % frames.len()]));
                    frame += 1;
                    std::thread::sleep(Duration::from_millis(100));
                }
                if frame > 0 {
                    super::stderr_text(format_args!(
                        "\r{}\r",
                        " ".repeat(label.chars().count() + 3)
                    ));
                }
            })
        });
        Self { running, thread }
    }

    /// Stops and erases the spinner.
    pub(crate) fn stop(mut self) {
        self.running.store(false, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            // The spinner thread cannot fail in a way that matters to the report.
            let _ = thread.join();
        }
    }
}
