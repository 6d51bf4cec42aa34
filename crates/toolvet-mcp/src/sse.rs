//! Server-Sent Events, as the upstream server of the Streamable HTTP mode
//! sends them: a decoder of the `text/event-stream` format (WHATWG HTML,
//! "Server-sent events", §9.2.6 "Interpreting an event stream") that keeps
//! each event's `data`, bounded in size.
//!
//! Only what MCP uses is kept: the data of events whose type is empty or
//! `message`. `id`, `retry` and comment lines are read and ignored (the
//! proxy does not resume a broken stream).

/// Decodes a `text/event-stream` body fed in chunks of any size.
#[derive(Debug)]
pub struct Decoder {
    /// Bytes of the line being read (no terminator yet).
    line: Vec<u8>,
    /// The event being read: its `data` lines joined by `\n`.
    data: Vec<u8>,
    /// Whether the event has a `data` field at all.
    has_data: bool,
    /// The event's type (`event:`), when not `message`.
    other_type: bool,
    /// A `\r` ended the last chunk: a `\n` opening the next one belongs to it.
    after_cr: bool,
    /// Most bytes one event's data (and one line) may hold.
    max: usize,
}

/// Why a stream cannot be decoded further.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum SseError {
    /// An event's data, or one line, passed the bound.
    #[error("an event of the stream is over {0} bytes")]
    TooLarge(usize),
}

impl Decoder {
    /// A decoder keeping at most `max` bytes of one event's data.
    pub fn new(max: usize) -> Self {
        Decoder {
            line: Vec::new(),
            data: Vec::new(),
            has_data: false,
            other_type: false,
            after_cr: false,
            max,
        }
    }

    /// Feed the next bytes of the stream; returns the data of every event
    /// they complete, in order (as text: data that is not UTF-8 is
    /// replaced, as the format decodes it).
    ///
    /// # Errors
    /// [`SseError::TooLarge`] when a line or an event's data passes the
    /// bound; the stream should then be dropped.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<Vec<String>, SseError> {
        let mut events = Vec::new();
        for &b in bytes {
            if self.after_cr {
                self.after_cr = false;
                if b == b'\n' {
                    continue;
                }
            }
            match b {
                b'\n' | b'\r' => {
                    self.after_cr = b == b'\r';
                    if let Some(event) = self.end_line() {
                        events.push(event);
                    }
                }
                _ => {
                    // The field name and its separator come on top.
                    if self.line.len() >= self.max + 64 {
                        return Err(SseError::TooLarge(self.max));
                    }
                    self.line.push(b);
                }
            }
        }
        if self.data.len() > self.max {
            return Err(SseError::TooLarge(self.max));
        }
        Ok(events)
    }

    /// One line has ended: apply its field, or dispatch the event on a
    /// blank line.
    fn end_line(&mut self) -> Option<String> {
        let line = std::mem::take(&mut self.line);
        if line.is_empty() {
            let dispatch = self.has_data && !self.other_type;
            let data = std::mem::take(&mut self.data);
            self.has_data = false;
            self.other_type = false;
            return dispatch.then(|| String::from_utf8_lossy(&data).into_owned());
        }
        if line[0] == b':' {
            return None;
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(i) => {
                let value = &line[i + 1..];
                (&line[..i], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (&line[..], &b""[..]),
        };
        match field {
            b"data" => {
                if self.has_data {
                    self.data.push(b'\n');
                }
                self.has_data = true;
                self.data.extend_from_slice(value);
            }
            b"event" => self.other_type = !value.is_empty() && value != b"message",
            _ => {}
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(chunks: &[&[u8]]) -> Vec<String> {
        let mut d = Decoder::new(1024);
        chunks.iter().flat_map(|c| d.feed(c).unwrap()).collect()
    }

    #[test]
    fn events_end_at_blank_lines_whatever_the_chunks_and_line_endings() {
        let stream = b"event: message\ndata: {\"a\":1}\n\ndata: x\r\ndata: y\r\n\r\n: comment\nid: 7\nretry: 10\ndata:z\r\rdata: w\n";
        let whole = all(&[stream]);
        assert_eq!(whole, vec!["{\"a\":1}", "x\ny", "z"]);
        // Byte by byte, the same events; `w` has no blank line yet.
        let bytes: Vec<&[u8]> = stream.chunks(1).collect();
        assert_eq!(all(&bytes), whole);
    }

    #[test]
    fn a_cr_lf_split_across_chunks_is_one_line_end() {
        assert_eq!(all(&[b"data: a\r", b"\n\r", b"\n"]), vec!["a"]);
    }

    #[test]
    fn events_of_another_type_and_without_data_are_skipped() {
        assert_eq!(
            all(&[b"event: ping\ndata: 1\n\nid: 3\n\ndata: 2\n\n"]),
            vec!["2"]
        );
    }

    #[test]
    fn an_event_over_the_bound_is_an_error_not_a_growing_buffer() {
        let mut d = Decoder::new(8);
        assert_eq!(d.feed(b"data: 12345"), Ok(vec![]));
        assert_eq!(d.feed(b"6789\n"), Err(SseError::TooLarge(8)));
        let mut d = Decoder::new(8);
        assert_eq!(
            d.feed(b"data: 1234\ndata: 5678\n"),
            Err(SseError::TooLarge(8))
        );
    }
}
