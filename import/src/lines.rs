//! Lines of a JSONL file, each at most a given length: a longer line is
//! skipped while it is read, so a 50 MB line costs no 50 MB buffer.

use std::io::{self, BufRead};

/// One line of the file, without its `\n`.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Line {
    /// The line's bytes; `complete` is false for a last line that has no
    /// newline (a file cut off while it was written).
    Text { bytes: Vec<u8>, complete: bool },
    /// A line over the limit, skipped; its length in bytes.
    TooLong { bytes: u64 },
}

/// Reads [`Line`]s, numbered from 1.
pub(super) struct Lines<R> {
    reader: R,
    limit: usize,
    number: usize,
}

impl<R: BufRead> Lines<R> {
    pub(super) fn new(reader: R, limit: usize) -> Lines<R> {
        Lines {
            reader,
            limit,
            number: 0,
        }
    }

    /// The next line and its number, `None` at the end of the file.
    pub(super) fn next_line(&mut self) -> io::Result<Option<(usize, Line)>> {
        let mut bytes = Vec::new();
        let mut length: u64 = 0;
        let mut complete = false;
        loop {
            let buffer = match self.reader.fill_buf() {
                Ok(buffer) => buffer,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if buffer.is_empty() {
                break;
            }
            let (taken, used) = match buffer.iter().position(|&b| b == b'\n') {
                Some(end) => {
                    complete = true;
                    (&buffer[..end], end + 1)
                }
                None => (buffer, buffer.len()),
            };
            length += taken.len() as u64;
            if length <= self.limit as u64 {
                bytes.extend_from_slice(taken);
            } else {
                bytes = Vec::new();
            }
            self.reader.consume(used);
            if complete {
                break;
            }
        }
        if !complete && length == 0 {
            return Ok(None);
        }
        self.number += 1;
        let line = if length > self.limit as u64 {
            Line::TooLong { bytes: length }
        } else {
            Line::Text { bytes, complete }
        };
        Ok(Some((self.number, line)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(input: &[u8], limit: usize) -> Vec<(usize, Line)> {
        // A tiny buffer makes lines span many reads.
        let mut lines = Lines::new(io::BufReader::with_capacity(3, input), limit);
        std::iter::from_fn(|| lines.next_line().unwrap()).collect()
    }

    fn text(bytes: &[u8], complete: bool) -> Line {
        Line::Text {
            bytes: bytes.to_vec(),
            complete,
        }
    }

    #[test]
    fn lines_across_reads_with_and_without_final_newline() {
        assert_eq!(
            all(b"{\"a\":1}\n\n\xFF\xFEcaf\xC3\xA9\n{\"b\"", 100),
            vec![
                (1, text(b"{\"a\":1}", true)),
                (2, text(b"", true)),
                (3, text(b"\xFF\xFEcaf\xC3\xA9", true)),
                (4, text(b"{\"b\"", false)),
            ]
        );
        assert_eq!(all(b"", 100), vec![]);
        assert_eq!(all(b"\n", 100), vec![(1, text(b"", true))]);
    }

    #[test]
    fn long_lines_are_skipped_and_measured() {
        assert_eq!(
            all(b"12345\n123456\n1234567", 6),
            vec![
                (1, text(b"12345", true)),
                (2, text(b"123456", true)),
                (3, Line::TooLong { bytes: 7 }),
            ]
        );
    }
}
