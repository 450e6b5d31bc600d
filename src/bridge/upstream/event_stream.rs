//! A byte-level decoder for `text/event-stream` bodies, used by both HTTP transports.
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

/// The fields of the event being read.
#[derive(Debug, Default)]
struct Builder {
    kind: String,
    data: Vec<u8>,
    has_data: bool,
}

impl Decoder {
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
