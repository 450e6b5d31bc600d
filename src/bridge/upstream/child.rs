//! A stdio MCP server run as a child process: one JSON message per line on its stdin and stdout, its stderr passed
//! through to ours (stderr is for people). The child runs in a process group of its own, and the whole group is killed
//! when the link closes or is dropped, so no exit path of the bridge leaves it, or what it started (`npx` runs the
//! server as a grandchild; a shell wrapper may start helpers), behind. Notifications sent to it are always built fresh
//! (see `jsonrpc::notification`), so a client's `"id": null` never reaches a child that would reject it.

use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::Mutex;

use super::{Events, LinkEvent, SendError};

/// A running child server.
pub(crate) struct ChildLink {
    stdin: Mutex<Option<ChildStdin>>,
    child: Mutex<Child>,
    pid: Option<u32>,
}

impl ChildLink {
    /// Starts the child and the task that reads its stdout.
    pub(crate) fn spawn(program: &str, args: &[String], events: Events) -> Result<Self, String> {
        let mut command = Command::new(program);
        // Its own group, so one signal reaches everything it started (and a Ctrl-C meant for the bridge does not reach
        // it directly: the bridge ends it in order).
        #[cfg(unix)]
        command.process_group(0);
        #[cfg(target_os = "linux")]
        die_with_the_bridge(&mut command);
        let mut child = command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|error| format!("could not start `{program}`: {error}"))?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout is piped");
        let pid = child.id();
        tokio::spawn(async move {
            let mut reader = BufReader::new(stdout);
            let mut line = Vec::new();
            loop {
                line.clear();
                match reader.read_until(b'\n', &mut line).await {
                    Ok(0) => break,
                    Ok(_) => {}
                    Err(error) => {
                        tracing::warn!("reading the child's stdout failed: {error}");
                        break;
                    }
                }
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                match serde_json::from_slice::<Value>(&line) {
                    Ok(message) => {
                        // A closed receiver means this link was replaced; its late messages have no one to reach.
                        let _ = events.send(LinkEvent::Message(message)).await;
                    }
                    // Some servers print banners on stdout; dropping the line keeps the session alive.
                    Err(error) => tracing::warn!(
                        "ignored a line of the child's stdout that is not JSON: {error}"
                    ),
                }
            }
            // As above: nobody listens once the link is replaced, and then the exit no longer matters.
            let _ = events
                .send(LinkEvent::Closed("the server process exited".into()))
                .await;
        });
        Ok(Self {
            stdin: Mutex::new(stdin),
            child: Mutex::new(child),
            pid,
        })
    }

    /// The child's process id, for logs.
    pub(crate) fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Writes one message line.
    pub(crate) async fn send(&self, message: &Value) -> Result<(), SendError> {
        let mut line =
            serde_json::to_vec(message).map_err(|error| SendError::Rejected(error.to_string()))?;
        line.push(b'\n');
        let mut stdin = self.stdin.lock().await;
        let Some(pipe) = stdin.as_mut() else {
            return Err(SendError::NotDelivered(
                "the server process is stopping".into(),
            ));
        };
        // A failed write means the child is gone and never read the line.
        pipe.write_all(&line).await.map_err(|error| {
            SendError::NotDelivered(format!("the server process is gone: {error}"))
        })?;
        pipe.flush().await.map_err(|error| {
            SendError::NotDelivered(format!("the server process is gone: {error}"))
        })
    }

    /// Closes stdin (a polite stop), then kills the child's whole process group and reaps the child.
    pub(crate) async fn close(&self) {
        self.stdin.lock().await.take();
        let mut child = self.child.lock().await;
        let exited = tokio::time::timeout(Duration::from_millis(100), child.wait())
            .await
            .is_ok();
        // Even after a polite exit: what the child started is still in its group, and nobody else will end it.
        self.kill_group();
        if !exited {
            // Already exited is the only way start_kill fails; either way it is gone.
            let _ = child.start_kill();
            let _ = tokio::time::timeout(Duration::from_secs(2), child.wait()).await;
        }
    }

    /// SIGKILL to every process in the child's group.
    fn kill_group(&self) {
        #[cfg(unix)]
        if let Some(group) = self.pid.and_then(|pid| libc::pid_t::try_from(pid).ok()) {
            // SAFETY: killpg only sends a signal. The group is the child's own (process_group(0) at spawn), and a
            // group id stays reserved while any member lives; ESRCH (nobody left) is the only failure that can occur.
            unsafe {
                libc::killpg(group, libc::SIGKILL);
            }
        }
    }
}

/// Has Linux kill the child when the bridge dies, even by SIGKILL, when nothing in the bridge can end it: a child that
/// ignores the end of its stdin would otherwise live on. The signal follows the thread that started the child, which
/// here is one of the runtime's worker threads: they live as long as the bridge does (nothing here hands a worker's
/// place to another thread).
#[cfg(target_os = "linux")]
fn die_with_the_bridge(command: &mut Command) {
    let bridge = std::process::id() as libc::pid_t;
    // SAFETY: the closure runs in the forked child before exec and calls only prctl, getppid and raise, which are
    // async-signal-safe; it allocates nothing and touches no memory shared with the parent.
    unsafe {
        command.pre_exec(move || {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            // The bridge died between the fork and the prctl: the signal will never come, so it goes now.
            if libc::getppid() != bridge {
                libc::raise(libc::SIGKILL);
            }
            Ok(())
        });
    }
}

impl Drop for ChildLink {
    /// `kill_on_drop` reaches the child alone; its group goes too.
    fn drop(&mut self) {
        self.kill_group();
    }
}
