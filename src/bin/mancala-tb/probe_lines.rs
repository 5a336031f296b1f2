//! Batch probing from text, for every game: positions one per line in, one
//! answer per line out, in the same order. Lines are read and answered in
//! batches, so a game can look a whole batch up at once (Oware's sorted
//! lookups) and memory stays bounded however long the input.

use std::io::{self, BufRead, Write};

use mancala_tb::error::{Cause, LineError};

/// Lines answered together.
const BATCH_LINES: usize = 1 << 16;

/// How answers are written.
#[derive(Clone, Copy, Debug, Default)]
pub struct ProbeOptions {
    /// One JSON object per line instead of the plain value.
    pub json: bool,
    /// A malformed line or a missing table gets an error line (an object
    /// `{"line": n, "error": "..."}` with `json`) and the run goes on;
    /// without it the first such line ends the run.
    pub keep_going: bool,
}

/// A game's side of batch probing.
pub trait BatchProber {
    /// A position of the game, as one line gives it.
    type Position;
    /// The position on one line, or what is wrong with it.
    fn parse(&self, line: &str) -> Result<Self::Position, String>;
    /// The answer lines for a batch, in order: the value, or with `json` an
    /// object with the position, its value and its moves' values; or what
    /// keeps that position from having one. `Err` (a damaged table) ends
    /// the run.
    fn answer(&self, positions: &[Self::Position], json: bool) -> Result<Vec<Answer>, LineError>;
}

/// One position's output line, or why it has none.
pub type Answer = Result<String, LineError>;

/// Why a batch probe stopped.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// A line without an answer (without `keep_going`).
    #[error("line {line}: {}", error.message)]
    Line {
        /// The line's number, from 1.
        line: u64,
        /// Why it has no answer.
        error: LineError,
    },
    /// Lines answered by error lines (with `keep_going`).
    #[error("{count} of {lines} lines could not be answered (error lines in the output)")]
    Unanswered {
        /// Lines not answered.
        count: u64,
        /// Lines read.
        lines: u64,
        /// Why the first of them has no answer.
        first: LineError,
    },
    /// The tables failed.
    #[error("{}", .0.message)]
    Tables(LineError),
    /// Reading the input failed.
    #[error("cannot read the positions")]
    Read(#[source] io::Error),
    /// Writing the output failed.
    #[error("cannot write the answers")]
    Write(#[source] io::Error),
}

impl ProbeError {
    /// Why the run stopped: a line's cause (with `keep_going`, the first
    /// unanswered line's), the tables' or the system's.
    pub fn cause(&self) -> Cause<'_> {
        match self {
            ProbeError::Line { error, .. }
            | ProbeError::Unanswered { first: error, .. }
            | ProbeError::Tables(error) => error.cause(),
            ProbeError::Read(_) | ProbeError::Write(_) => Cause::Other,
        }
    }
}

/// Answers every line of `input` on `output`. Blank lines are errors too:
/// each input line gets exactly one output line.
pub fn probe_lines<P: BatchProber>(
    prober: &P,
    input: impl BufRead,
    mut output: impl Write,
    options: ProbeOptions,
) -> Result<(), ProbeError> {
    let mut lines = input.lines();
    let (mut line_no, mut failed, mut first_failure) = (0u64, 0u64, None);
    loop {
        // Per line of the batch: its position's index, or its error.
        let mut parsed = Vec::new();
        let mut positions = Vec::new();
        for line in lines.by_ref().take(BATCH_LINES) {
            let line = line.map_err(ProbeError::Read)?;
            let position = prober.parse(&line).map_err(LineError::bad_input);
            parsed.push(position.map(|p| {
                positions.push(p);
                positions.len() - 1
            }));
        }
        if parsed.is_empty() {
            break;
        }
        let mut answers = prober
            .answer(&positions, options.json)
            .map_err(ProbeError::Tables)?
            .into_iter();
        for entry in parsed {
            line_no += 1;
            let answer = entry.and_then(|_| answers.next().expect("one answer per position"));
            let text = match answer {
                Ok(text) => text,
                Err(error) if options.keep_going => {
                    failed += 1;
                    let message = &error.message;
                    let text = if options.json {
                        serde_json::json!({"line": line_no, "error": message}).to_string()
                    } else {
                        format!("error: line {line_no}: {message}")
                    };
                    first_failure.get_or_insert(error);
                    text
                }
                Err(error) => {
                    output.flush().map_err(ProbeError::Write)?;
                    return Err(ProbeError::Line {
                        line: line_no,
                        error,
                    });
                }
            };
            writeln!(output, "{text}").map_err(ProbeError::Write)?;
        }
    }
    output.flush().map_err(ProbeError::Write)?;
    match first_failure {
        Some(first) => Err(ProbeError::Unanswered {
            count: failed,
            lines: line_no,
            first,
        }),
        None => Ok(()),
    }
}

/// The numbers of a line, separated by spaces, tabs or commas.
pub fn numbers(line: &str) -> Result<Vec<u32>, String> {
    line.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse()
                .map_err(|_| format!("'{s}' is not a count (a whole number, 0 or more)"))
        })
        .collect()
}
