//! A byte-level decoder for `text/event-stream` bodies, used by both HTTP transports. Besides the events, it keeps
//! what a client needs to resume a stream the server closed: the last event id (`id:`) and the reconnection delay the
//! server asked for (`retry:`), as an EventSource does.
//!
//! It scans each byte once, so a single 20 MB `data:` line costs linear time. (eventsource-stream 0.2.3 re-parses its
//! whole buffer from the start on every chunk, which turns one multi-megabyte event into seconds of work.) Lines end
//! with LF or CRLF; a lone CR as a line end, which no MCP server sends, is not recognised.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Event {
    /// The `event:` field; empty means the default type, `message`.
    pub(crate) kind: String,
    /// The `data:` lines joined with LF.
    pub(crate) data: String,
}

/// Turns body chunks into events.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    pending: Vec<u8>,
    scanned: usize,
    event: Builder,
}

/// The fields of the event being read, and the stream's resumption state.
#[derive(Debug, Default)]
struct Builder {
    kind: String,
    data: Vec<u8>,
    has_data: bool,
    last_event_id: Option<String>,
    retry: Option<std::time::Duration>,
}

impl Decoder {
    /// The id of the last event that named one: where a resumed stream starts (`Last-Event-ID`).
    pub(crate) fn last_event_id(&self) -> Option<&str> {
        self.event.last_event_id.as_deref()
    }

    /// The reconnection delay the server asked for with `retry:`, if it did.
    pub(crate) fn retry(&self) -> Option<std::time::Duration> {
        self.event.retry
    }

    /// Starts reading a new stream that resumes this one: what was half read is dropped, the last event id and the
    /// retry delay are kept.
    pub(crate) fn start_resumed_stream(&mut self) {
        self.pending.clear();
        self.scanned = 0;
        self.event.kind.clear();
        self.event.data.clear();
        self.event.has_data = false;
    }

    /// Feeds one chunk and returns the events it completed.
    pub(crate) fn push(&mut self, chunk: &[u8]) -> Vec<Event> {
        self.pending.extend_from_slice(chunk);
        let mut events = Vec::new();
        let mut line_start = 0;
        while let Some(offset) = self.pending[self.scanned..]
            .iter()
            .position(|&byte| byte == b'\n')
        {
            let end = self.scanned + offset;
            let mut line = &self.pending[line_start..end];
            if line.last() == Some(&b'\r') {
                line = &line[..line.len() - 1];
            }
            if let Some(event) = self.event.take_line(line) {
                events.push(event);
            }
            line_start = end + 1;
            self.scanned = line_start;
        }
        self.pending.drain(..line_start);
        // What is left holds no line end: the next chunk's scan starts after it.
        self.scanned = self.pending.len();
        events
    }
}

impl Builder {
    fn take_line(&mut self, line: &[u8]) -> Option<Event> {
        if line.is_empty() {
            return self.dispatch();
        }
        if line[0] == b':' {
            return None;
        }
        let (field, value) = match line.iter().position(|&byte| byte == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        match field {
            b"event" => self.kind = String::from_utf8_lossy(value).into_owned(),
            // As EventSource: an id holding NUL is ignored, an empty one resets it.
            b"id" if !value.contains(&0) => {
                self.last_event_id =
                    (!value.is_empty()).then(|| String::from_utf8_lossy(value).into_owned());
            }
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                self.retry = std::str::from_utf8(value)
                    .ok()
                    .and_then(|digits| digits.parse().ok())
                    .map(std::time::Duration::from_millis);
            }
            b"data" => {
                if self.has_data {
                    self.data.push(b'\n');
                }
                self.data.extend_from_slice(value);
                self.has_data = true;
            }
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<Event> {
        let kind = std::mem::take(&mut self.kind);
        if !std::mem::take(&mut self.has_data) {
            return None;
        }
        let data = std::mem::take(&mut self.data);
        // Splitting happened on bytes, so a multi-byte character is never cut; invalid UTF-8 from a broken server is
        // replaced rather than dropped, and the JSON parse that follows reports it.
        let data = String::from_utf8(data)
            .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned());
        Some(Event { kind, data })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_in_chunks(body: &[u8], size: usize) -> Vec<Event> {
        let mut decoder = Decoder::default();
        body.chunks(size)
            .flat_map(|chunk| decoder.push(chunk))
            .collect()
    }

    #[test]
    fn events_survive_any_chunking_including_inside_a_multibyte_character() {
        let body = "event: endpoint\r\ndata: /messages?s=1\r\n\r\n: comment\n\ndata: {\"t\":\"héllo ✓\"}\ndata: more\n\n";
        for size in 1..body.len() {
            let events = decode_in_chunks(body.as_bytes(), size);
            assert_eq!(
                events,
                vec![
                    Event {
                        kind: "endpoint".into(),
                        data: "/messages?s=1".into()
                    },
                    Event {
                        kind: String::new(),
                        data: "{\"t\":\"héllo ✓\"}\nmore".into()
                    },
                ],
                "chunk size {size}"
            );
        }
    }

    #[test]
    fn the_last_event_id_and_the_retry_delay_are_kept_for_a_resumption() {
        let mut decoder = Decoder::default();
        assert_eq!(decoder.last_event_id(), None);
        let events = decoder.push(b"id: call-1\nretry: 500\ndata: \n\nretry: soon\n\n");
        assert_eq!(events.len(), 1, "the priming event has empty data");
        assert_eq!(decoder.last_event_id(), Some("call-1"));
        assert_eq!(decoder.retry(), Some(std::time::Duration::from_millis(500)));
        decoder.push(b"id\n\nid: a\0b\n\n");
        assert_eq!(
            decoder.last_event_id(),
            None,
            "an empty id resets it; one with NUL is ignored"
        );
    }

    #[test]
    fn an_event_without_data_is_not_dispatched() {
        assert!(decode_in_chunks(b"event: ping\n\nid: 4\n\n", 3).is_empty());
    }

    #[test]
    fn a_big_event_decodes_in_linear_time() {
        let payload = "é".repeat(5_000_000);
        let body = format!("data: {payload}\n\n");
        let started = std::time::Instant::now();
        let events = decode_in_chunks(body.as_bytes(), 16 * 1024);
        assert_eq!(events[0].data.len(), payload.len());
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }
}
