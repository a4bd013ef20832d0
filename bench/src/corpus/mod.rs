//! The three generated corpora: messages resembling AI-agent transcripts,
//! deterministic for a given seed.

mod cjk;
mod english;
mod latin;
mod tech;

use crate::rng::Rng;
use session_search::tokenizer::is_spaceless;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;

/// The message lengths of the corpora, in bytes.
const CORPUS_LENGTHS: Lengths = Lengths {
    min: 100,
    max: 2000,
};

/// The range of message lengths aimed at, in bytes; the lengths drawn are
/// skewed towards short messages, and a message may overshoot `max` by its
/// last segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lengths {
    /// Shortest length aimed at.
    pub min: usize,
    /// Longest length aimed at.
    pub max: usize,
}

/// Which corpus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// English prose mixed with code, paths, commands, errors and URLs.
    English,
    /// Languages written in the Latin script with diacritics.
    Latin,
    /// Chinese, Japanese and Korean, with embedded English and code.
    Cjk,
}

impl Kind {
    /// All corpora, in the order they are benchmarked.
    pub const ALL: [Kind; 3] = [Kind::English, Kind::Latin, Kind::Cjk];

    /// Short name, as printed.
    pub fn name(self) -> &'static str {
        match self {
            Kind::English => "english",
            Kind::Latin => "latin",
            Kind::Cjk => "cjk",
        }
    }

    /// Size aimed at, in bytes, at `scale` times the full size.
    pub fn size(self, scale: f64) -> usize {
        let full = match self {
            Kind::English => 50e6,
            Kind::Latin | Kind::Cjk => 20e6,
        };
        (full * scale) as usize
    }

    /// The seed of this corpus' generator.
    fn seed(self) -> u64 {
        match self {
            Kind::English => 0x5E55_0001,
            Kind::Latin => 0x5E55_0002,
            Kind::Cjk => 0x5E55_0003,
        }
    }

    /// The writer of this corpus' messages.
    fn writer(self) -> Box<dyn Writer> {
        match self {
            Kind::English => Box::new(english::English::new()),
            Kind::Latin => Box::new(latin::Latin::new()),
            Kind::Cjk => Box::new(cjk::Cjk::new()),
        }
    }
}

/// Something that writes messages, a segment at a time.
trait Writer {
    /// Picks the language of the next message (an index the writer defines).
    fn language(&self, rng: &mut Rng) -> usize;

    /// Appends one segment to the message `out`: a sentence, a code block, a
    /// log line…, preceded by whatever separates it from what `out` holds.
    fn segment(&self, language: usize, rng: &mut Rng, out: &mut String);
}

/// Ends a sentence written in the Latin script: mostly `.`, sometimes `?`,
/// `!` or `:`.
fn end_sentence(rng: &mut Rng, out: &mut String) {
    out.push(match rng.below(20) {
        0 | 1 => '?',
        2 => '!',
        3 => ':',
        _ => '.',
    });
}

/// A generated corpus.
#[derive(Debug)]
pub struct Corpus {
    /// Which corpus this is.
    pub kind: Kind,
    /// The messages, in insertion order.
    pub messages: Vec<String>,
    /// Byte offset of each message in the concatenated corpus, to draw
    /// positions uniformly over the text.
    starts: Vec<usize>,
}

impl Corpus {
    /// Generates `kind` at `scale` times its full size.
    pub fn generate(kind: Kind, scale: f64) -> Corpus {
        let target = kind.size(scale);
        let writer = kind.writer();
        let mut rng = Rng::new(kind.seed());
        let mut messages = Vec::new();
        let mut starts = Vec::new();
        let mut total = 0;
        while total < target {
            let message = message(writer.as_ref(), &mut rng, CORPUS_LENGTHS);
            starts.push(total);
            total += message.len();
            messages.push(message);
        }
        Corpus {
            kind,
            messages,
            starts,
        }
    }

    /// Total size of the messages, in bytes.
    pub fn bytes(&self) -> usize {
        self.starts.last().map_or(0, |&start| start) + self.messages.last().map_or(0, String::len)
    }

    /// Share of the characters that belong to scripts written without
    /// spaces (Han, Kana, Hangul…).
    pub fn spaceless_share(&self) -> f64 {
        let (mut spaceless, mut all) = (0usize, 0usize);
        for c in self.messages.iter().flat_map(|m| m.chars()) {
            all += 1;
            spaceless += usize::from(is_spaceless(c));
        }
        spaceless as f64 / all.max(1) as f64
    }

    /// A uniformly random byte position: the message and an offset in it.
    pub fn random_position(&self, rng: &mut Rng) -> (&str, usize) {
        let at = rng.below(self.bytes());
        let index = self.starts.partition_point(|&start| start <= at) - 1;
        (&self.messages[index], at - self.starts[index])
    }

    /// Writes the messages to `path`, each as a little-endian `u32` length
    /// followed by its bytes, for the build processes to stream.
    pub fn write_to(&self, path: &Path) -> io::Result<()> {
        let mut file = BufWriter::new(File::create(path)?);
        for message in &self.messages {
            let len = u32::try_from(message.len()).expect("message under 4 GiB");
            file.write_all(&len.to_le_bytes())?;
            file.write_all(message.as_bytes())?;
        }
        file.flush()
    }
}

/// An endless stream of messages written like those of a corpus, with
/// lengths of the caller's choice; deterministic for a given seed.
pub struct Messages {
    writer: Box<dyn Writer>,
    rng: Rng,
    lengths: Lengths,
}

impl Messages {
    /// Messages like those of `kind`, drawn from `seed`, of `lengths`.
    pub fn new(kind: Kind, seed: u64, lengths: Lengths) -> Messages {
        Messages {
            writer: kind.writer(),
            rng: Rng::new(seed),
            lengths,
        }
    }
}

impl Iterator for Messages {
    type Item = String;

    fn next(&mut self) -> Option<String> {
        Some(message(self.writer.as_ref(), &mut self.rng, self.lengths))
    }
}

/// Writes one message of a length drawn from `lengths`, skewed towards
/// short messages.
fn message(writer: &dyn Writer, rng: &mut Rng, lengths: Lengths) -> String {
    let skew = rng.unit() * rng.unit();
    let target = lengths.min + (skew * (lengths.max - lengths.min) as f64) as usize;
    let language = writer.language(rng);
    let mut out = String::with_capacity(target + 256);
    while out.len() < target {
        writer.segment(language, rng, &mut out);
    }
    out.truncate(out.trim_end().len());
    let leading = out.len() - out.trim_start().len();
    out.drain(..leading);
    out
}

/// Reads back, one at a time, the messages [`Corpus::write_to`] wrote.
#[derive(Debug)]
pub struct MessageFile {
    reader: BufReader<File>,
    buffer: Vec<u8>,
}

impl MessageFile {
    /// Opens a file written by [`Corpus::write_to`].
    pub fn open(path: &Path) -> io::Result<MessageFile> {
        Ok(MessageFile {
            reader: BufReader::new(File::open(path)?),
            buffer: Vec::new(),
        })
    }

    /// The next message, or `None` at the end of the file.
    pub fn next_message(&mut self) -> io::Result<Option<&str>> {
        let mut len = [0; 4];
        match self.reader.read_exact(&mut len) {
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
            result => result?,
        }
        self.buffer.resize(u32::from_le_bytes(len) as usize, 0);
        self.reader.read_exact(&mut self.buffer)?;
        std::str::from_utf8(&self.buffer)
            .map(Some)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
    }
}
