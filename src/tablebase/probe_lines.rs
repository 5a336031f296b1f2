//! Batch probing from text, for every game: positions one per line in, one
//! answer per line out, in the same order. Lines are read and answered in
//! batches, so a game can look a whole batch up at once (Oware's sorted
//! lookups) and memory stays bounded however long the input.

use std::io::{self, BufRead, Write};

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
    fn answer(&self, positions: &[Self::Position], json: bool) -> Result<Vec<Answer>, BoxError>;
}

/// One position's output line, or why it has none.
pub type Answer = Result<String, String>;
/// An error of a game's tables.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// Why a batch probe stopped.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// A line that is not a position (without `keep_going`).
    #[error("line {line}: {message}")]
    Line {
        /// The line's number, from 1.
        line: u64,
        /// What is wrong with it.
        message: String,
    },
    /// Lines answered by error lines (with `keep_going`).
    #[error("{count} of {lines} lines could not be answered (error lines in the output)")]
    Unanswered {
        /// Lines not answered.
        count: u64,
        /// Lines read.
        lines: u64,
    },
    /// The tables failed.
    #[error(transparent)]
    Tables(BoxError),
    /// Reading the input failed.
    #[error("cannot read the positions")]
    Read(#[source] io::Error),
    /// Writing the output failed.
    #[error("cannot write the answers")]
    Write(#[source] io::Error),
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
    let (mut line_no, mut failed) = (0u64, 0u64);
    loop {
        // Per line of the batch: its position's index, or its error.
        let mut parsed = Vec::new();
        let mut positions = Vec::new();
        for line in lines.by_ref().take(BATCH_LINES) {
            let line = line.map_err(ProbeError::Read)?;
            parsed.push(prober.parse(&line).map(|p| {
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
                Err(message) if options.keep_going => {
                    failed += 1;
                    if options.json {
                        serde_json::json!({"line": line_no, "error": message}).to_string()
                    } else {
                        format!("error: line {line_no}: {message}")
                    }
                }
                Err(message) => {
                    output.flush().map_err(ProbeError::Write)?;
                    return Err(ProbeError::Line {
                        line: line_no,
                        message,
                    });
                }
            };
            writeln!(output, "{text}").map_err(ProbeError::Write)?;
        }
    }
    output.flush().map_err(ProbeError::Write)?;
    if failed > 0 {
        return Err(ProbeError::Unanswered {
            count: failed,
            lines: line_no,
        });
    }
    Ok(())
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
