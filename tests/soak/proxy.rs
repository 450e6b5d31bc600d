//! A chaos TCP proxy between the bridge and the plugin host. The bridge finds it through the vault's `data.json` port
//! and cannot tell it from the plugin: in `Pass` mode it copies bytes both ways; in `Slow` mode it holds back the
//! answer (or trickles it); in `Garbage` mode it answers some connections itself with broken HTTP, broken JSON or SSE
//! bodies, or cuts a real answer off with a reset; in `Impostor` mode it answers as the plugin would but without its
//! proof; in `Storm500` mode it answers everything with 500; in `Flood` mode it puts notifications in front of every
//! streamed answer. (Over 400 lines: each mode is short, and the proxy's whole vocabulary reads best in one place.)
//! Its listener can be closed and reopened, so that while the host is
//! down the port refuses connections exactly as a quit Obsidian's would.
//!
//! Garbage that the proxy makes up never reaches the host, so such a call cannot have run; only a reset mid-answer
//! forwards the request first, which is the case where a write's outcome is honestly unknown.

use std::collections::BTreeMap;
use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};
use tokio::runtime::Runtime;
use tokio::task::AbortHandle;

use crate::support::rng::Rng;

/// What the proxy does to each new connection.
#[derive(Debug, Clone, Copy)]
pub enum Mode {
    /// Copies bytes both ways.
    Pass,
    /// Forwards the request at once and holds the answer back for `delay`; with `trickle`, then sends it 64 bytes
    /// every 20 ms.
    Slow { delay: Duration, trickle: bool },
    /// Answers this share (percent) of connections with garbage.
    Garbage { percent: u64 },
    /// Answers every request itself as the plugin would, but without the plugin's proof: a program that took the port.
    Impostor,
    /// Answers every request with HTTP 500.
    Storm500,
    /// Passes requests on and puts this many log notifications (10 KB each) in front of every streamed answer.
    Flood { notifications: u32 },
}

/// The kinds of garbage, one picked at random per spoiled connection.
#[derive(Debug, Clone, Copy)]
enum Garbage {
    /// A status line that is not HTTP, and bytes that are not UTF-8.
    BadHttp,
    /// HTTP 200 with a JSON content type and a body cut off mid-object.
    BrokenJson,
    /// HTTP 200 with an event stream of an unknown id, a broken JSON event, an unknown event kind and non-UTF-8 data,
    /// then the end of the stream without the answer.
    BrokenSse,
    /// HTTP 404, what a plugin that forgot the session says.
    NotFound,
    /// HTTP 500 with a plain-text body.
    ServerError,
    /// The request is read, then the connection is closed without a word.
    Hangup,
    /// The request reaches the host; its answer is cut off after a few bytes by a TCP reset.
    ResetMidAnswer,
}

const GARBAGE: [Garbage; 7] = [
    Garbage::BadHttp,
    Garbage::BrokenJson,
    Garbage::BrokenSse,
    Garbage::NotFound,
    Garbage::ServerError,
    Garbage::Hangup,
    Garbage::ResetMidAnswer,
];

impl Garbage {
    fn name(self) -> &'static str {
        match self {
            Self::BadHttp => "garbage: bad HTTP",
            Self::BrokenJson => "garbage: broken JSON body",
            Self::BrokenSse => "garbage: broken SSE body",
            Self::NotFound => "garbage: HTTP 404",
            Self::ServerError => "garbage: HTTP 500",
            Self::Hangup => "garbage: hang-up after the request",
            Self::ResetMidAnswer => "garbage: reset mid-answer",
        }
    }
}

struct Shared {
    upstream_port: u16,
    mode: Mutex<Mode>,
    rng: Mutex<Rng>,
    /// What happened to connections, by kind.
    counts: Mutex<BTreeMap<&'static str, u64>>,
}

impl Shared {
    fn count(&self, what: &'static str) {
        *self.counts.lock().unwrap().entry(what).or_default() += 1;
    }
}

/// The proxy and the runtime it runs on.
pub struct ChaosProxy {
    pub port: u16,
    runtime: Runtime,
    shared: Arc<Shared>,
    listener: Mutex<Option<AbortHandle>>,
}

impl ChaosProxy {
    /// A proxy for `upstream_port`, to listen on `port` once opened.
    pub fn new(port: u16, upstream_port: u16, seed: u64) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a runtime for the proxy");
        Self {
            port,
            runtime,
            shared: Arc::new(Shared {
                upstream_port,
                mode: Mutex::new(Mode::Pass),
                rng: Mutex::new(Rng::new(seed)),
                counts: Mutex::new(BTreeMap::new()),
            }),
            listener: Mutex::new(None),
        }
    }

    pub fn set_mode(&self, mode: Mode) {
        *self.shared.mode.lock().unwrap() = mode;
    }

    /// Starts accepting on the port (again).
    pub fn open(&self) {
        let mut slot = self.listener.lock().unwrap();
        if slot.is_some() {
            return;
        }
        let socket = TcpSocket::new_v4().expect("a socket");
        // The port was ours a moment ago; connections of the last listener may still be in TIME_WAIT.
        socket.set_reuseaddr(true).expect("SO_REUSEADDR");
        let listener = {
            let _entered = self.runtime.enter();
            socket
                .bind(([127, 0, 0, 1], self.port).into())
                .unwrap_or_else(|error| panic!("the proxy could not bind {}: {error}", self.port));
            socket.listen(1024).expect("listen")
        };
        let shared = Arc::clone(&self.shared);
        let task = self.runtime.spawn(async move {
            loop {
                let Ok((client, _)) = listener.accept().await else {
                    continue;
                };
                let shared = Arc::clone(&shared);
                tokio::spawn(async move {
                    // A failed copy is an ordinary end of a connection here: one side went away.
                    let _ = serve(client, &shared).await;
                });
            }
        });
        *slot = Some(task.abort_handle());
    }

    /// Stops accepting: new connections are refused. Connections already open go on.
    pub fn close(&self) {
        if let Some(task) = self.listener.lock().unwrap().take() {
            task.abort();
            // Wait until the listener is really dropped, so the next connect is refused.
            let port = self.port;
            for _ in 0..100 {
                if std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    }

    /// How many connections met this fate.
    pub fn count_of(&self, what: &str) -> u64 {
        self.shared
            .counts
            .lock()
            .unwrap()
            .get(what)
            .copied()
            .unwrap_or(0)
    }

    /// How many connections met each fate.
    pub fn counts(&self) -> BTreeMap<&'static str, u64> {
        self.shared.counts.lock().unwrap().clone()
    }
}

async fn serve(mut client: TcpStream, shared: &Shared) -> io::Result<()> {
    client.set_nodelay(true)?;
    let mode = *shared.mode.lock().unwrap();
    let garbage = match mode {
        Mode::Garbage { percent } => {
            let mut rng = shared.rng.lock().unwrap();
            (rng.below(100) < percent).then(|| GARBAGE[rng.below(GARBAGE.len() as u64) as usize])
        }
        _ => None,
    };
    if let Some(garbage) = garbage {
        shared.count(garbage.name());
        return spoil(client, garbage, shared).await;
    }
    match mode {
        Mode::Impostor => {
            shared.count("impostor: answered without proof");
            return pose(client).await;
        }
        Mode::Storm500 => {
            let mut client = client;
            let request = read_request(&mut client).await?;
            // Reconnection attempts are what the bridge's backoff bounds; other requests are the callers' own calls.
            // An attempt asks `server/discover` first (and, when that is refused as a 2025 server would, `initialize`):
            // it is counted by its discovery.
            let text = String::from_utf8_lossy(&request);
            shared.count(if text.contains("\"method\":\"initialize\"") {
                "500-storm: initialize"
            } else if text.contains("\"method\":\"server/discover\"") {
                "500-storm: discover"
            } else {
                "500-storm: other"
            });
            client
                .write_all(b"HTTP/1.1 500 Internal Server Error\r\ncontent-type: text/plain\r\ncontent-length: 5\r\n\r\noops!")
                .await?;
            return client.shutdown().await;
        }
        _ => {}
    }
    let Ok(mut upstream) = TcpStream::connect(("127.0.0.1", shared.upstream_port)).await else {
        // The host died between the listener's close and now: cut the connection as a dying host would.
        shared.count("upstream refused: reset");
        client.set_zero_linger()?;
        return Ok(());
    };
    upstream.set_nodelay(true)?;
    match mode {
        Mode::Slow { delay, trickle } => {
            shared.count(if trickle {
                "slow: held back, then trickled"
            } else {
                "slow: held back"
            });
            let (mut client_read, mut client_write) = client.into_split();
            let (mut upstream_read, mut upstream_write) = upstream.into_split();
            let requests = tokio::spawn(async move {
                tokio::io::copy(&mut client_read, &mut upstream_write).await
            });
            let mut buffer = vec![0u8; 16 * 1024];
            let mut first = true;
            loop {
                let read = upstream_read.read(&mut buffer).await?;
                if read == 0 {
                    break;
                }
                if first {
                    tokio::time::sleep(delay).await;
                    first = false;
                }
                if trickle {
                    for piece in buffer[..read].chunks(64) {
                        client_write.write_all(piece).await?;
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                } else {
                    client_write.write_all(&buffer[..read]).await?;
                }
            }
            requests.abort();
            Ok(())
        }
        Mode::Flood { notifications } => flood(client, upstream, notifications, shared).await,
        _ => {
            shared.count("passed through");
            tokio::io::copy_bidirectional(&mut client, &mut upstream)
                .await
                .map(drop)
        }
    }
}

/// Answers one request as an impostor: HTTP 200, a session id and a plausible result echoing the request's id, but no
/// `obsmcp-proof`.
async fn pose(mut client: TcpStream) -> io::Result<()> {
    let request = read_request(&mut client).await?;
    let head_end = request
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .map_or(request.len(), |end| end + 4);
    let id = serde_json::from_slice::<serde_json::Value>(&request[head_end..])
        .ok()
        .and_then(|body| body.get("id").cloned())
        .unwrap_or(serde_json::Value::Null);
    let body = serde_json::json!({ "jsonrpc": "2.0", "id": id, "result": {
        "protocolVersion": "2025-06-18", "capabilities": { "tools": {} }, "serverInfo": { "name": "obsmcp", "version": "9" },
        "content": [{ "type": "text", "text": "IMPOSTOR-ANSWER" }] } })
    .to_string();
    let answer = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nmcp-session-id: impostor\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    client.write_all(answer.as_bytes()).await?;
    client.shutdown().await
}

/// Passes one connection on, putting `notifications` log messages in front of a streamed (chunked SSE) answer.
async fn flood(
    mut client: TcpStream,
    mut upstream: TcpStream,
    notifications: u32,
    shared: &Shared,
) -> io::Result<()> {
    let (mut client_read, mut client_write) = client.split();
    let (mut upstream_read, mut upstream_write) = upstream.split();
    let requests = async { tokio::io::copy(&mut client_read, &mut upstream_write).await };
    let answers = async {
        let mut head = Vec::new();
        let mut buffer = [0u8; 16 * 1024];
        let head_end = loop {
            let read = upstream_read.read(&mut buffer).await?;
            if read == 0 {
                client_write.write_all(&head).await?;
                return Ok::<(), io::Error>(());
            }
            head.extend_from_slice(&buffer[..read]);
            if let Some(end) = head.windows(4).position(|window| window == b"\r\n\r\n") {
                break end + 4;
            }
        };
        let lower = String::from_utf8_lossy(&head[..head_end]).to_lowercase();
        client_write.write_all(&head[..head_end]).await?;
        if lower.contains("content-type: text/event-stream")
            && lower.contains("transfer-encoding: chunked")
        {
            shared.count("flood: notifications put before a streamed answer");
            let filler = "n".repeat(10_000);
            for index in 0..notifications {
                let message = serde_json::json!({ "jsonrpc": "2.0", "method": "notifications/message",
                    "params": { "level": "info", "logger": "soak-flood", "data": format!("{index} {filler}") } });
                let event = format!("event: message\ndata: {message}\n\n");
                let chunk = format!("{:x}\r\n{event}\r\n", event.len());
                client_write.write_all(chunk.as_bytes()).await?;
            }
        } else {
            shared.count("flood: answer not streamed, passed through");
        }
        client_write.write_all(&head[head_end..]).await?;
        tokio::io::copy(&mut upstream_read, &mut client_write).await?;
        Ok(())
    };
    tokio::select! {
        result = answers => result,
        _ = requests => Ok(()),
    }
}

/// Answers one connection with garbage.
async fn spoil(mut client: TcpStream, garbage: Garbage, shared: &Shared) -> io::Result<()> {
    let request = read_request(&mut client).await?;
    let answer: Vec<u8> = match garbage {
        Garbage::BadHttp => b"HTTP/1.1 banana\r\n\xff\xfe\x00 not a header\r\n\r\n\x01\x02".to_vec(),
        Garbage::BrokenJson => {
            let body = br#"{"jsonrpc":"2.0","id":"#;
            let mut answer = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                body.len()
            )
            .into_bytes();
            answer.extend_from_slice(body);
            answer
        }
        Garbage::BrokenSse => {
            let mut answer =
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n".to_vec();
            answer.extend_from_slice(b"data: {\"jsonrpc\":\"2.0\",\"id\":987654321,\"result\":{}}\n\n");
            answer.extend_from_slice(b"data: {\"jsonrpc\":\"2.0\",\"id\n\n");
            answer.extend_from_slice(b"event: noise\ndata: zzz\n\n: a comment\n");
            answer.extend_from_slice(b"data: \xff\xfe\n\nda");
            answer
        }
        Garbage::NotFound => b"HTTP/1.1 404 Not Found\r\ncontent-length: 9\r\n\r\nnot found".to_vec(),
        Garbage::ServerError => {
            b"HTTP/1.1 500 Internal Server Error\r\ncontent-type: text/plain\r\ncontent-length: 5\r\n\r\noops!".to_vec()
        }
        Garbage::Hangup => return Ok(()),
        Garbage::ResetMidAnswer => {
            let cut = 1 + shared.rng.lock().unwrap().below(400) as usize;
            let Ok(mut upstream) = TcpStream::connect(("127.0.0.1", shared.upstream_port)).await else {
                client.set_zero_linger()?;
                return Ok(());
            };
            upstream.write_all(&request).await?;
            let mut answer = vec![0u8; cut];
            let mut got = 0;
            while got < cut {
                let read = upstream.read(&mut answer[got..]).await?;
                if read == 0 {
                    break;
                }
                got += read;
            }
            client.write_all(&answer[..got]).await?;
            client.set_zero_linger()?;
            return Ok(());
        }
    };
    client.write_all(&answer).await?;
    client.shutdown().await
}

/// Reads one HTTP request: the head, then as many body bytes as `content-length` says.
async fn read_request(client: &mut TcpStream) -> io::Result<Vec<u8>> {
    let mut request = Vec::new();
    let mut buffer = [0u8; 8192];
    let head_end = loop {
        let read = client.read(&mut buffer).await?;
        if read == 0 {
            return Ok(request);
        }
        request.extend_from_slice(&buffer[..read]);
        if let Some(end) = request.windows(4).position(|window| window == b"\r\n\r\n") {
            break end + 4;
        }
    };
    let head = String::from_utf8_lossy(&request[..head_end]).to_lowercase();
    let length: usize = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or(0);
    while request.len() < head_end + length {
        let read = client.read(&mut buffer).await?;
        if read == 0 {
            break;
        }
        request.extend_from_slice(&buffer[..read]);
    }
    Ok(request)
}
