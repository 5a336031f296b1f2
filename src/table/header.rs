//! The fixed-layout file header and the block index entries: encoding,
//! decoding and every consistency check a reader needs before trusting offsets.

use super::error::TableError;

/// First bytes of every table file. PNG-style: the high byte and the CR/LF/^Z
/// catch files mangled by text-mode transfers.
pub const MAGIC: [u8; 8] = *b"\x89MTB\r\n\x1a\n";
/// The format version this build writes and reads.
pub const VERSION: u32 = 1;
/// Bytes of the fixed part of the header, before the strings.
const FIXED_LEN: usize = 72;
/// An upper bound on a sane header, so a damaged `header_len` cannot make a
/// reader checksum gigabytes before it notices.
const MAX_HEADER_LEN: u64 = 1 << 20;
/// Bytes of one block index entry.
pub const INDEX_ENTRY_LEN: u64 = 16;
/// Largest block the format allows (positions); keeps a compressed block's
/// length within the index entry's `u32`.
pub const MAX_BLOCK_SIZE: u32 = 1 << 24;

/// What the values of a table mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueEncoding {
    /// A score game value in `[-n, n]` for the mover, one `i8` per position.
    Score = 1,
    /// As `Score`, except that [`CAPTURE_DECIDES`] stands for "the value is
    /// that of the position's best capture": the reader recomputes it from
    /// the lower layers. A long run of such positions compresses far better
    /// than their values.
    ScoreOrCapture = 2,
    /// A win, draw or loss with its distance to the end in moves, one `i16`
    /// per position: `d ≥ 1` a win in `d`, 0 a draw, `−d − 1` a loss in `d`.
    WdlDistance = 3,
    /// The distance of a score-game position to what secures its value, one
    /// `i16 ≥ 0` per position: the moves to the next capture (or the end of
    /// the game) when the side ahead plays the fastest and the side behind
    /// the slowest value-keeping moves; 0 for a draw and a finished game.
    /// Beside the layer's value table, whose payload CRC the options name
    /// ([`distance_options`]).
    Distance = 4,
}

/// How a table's blocks are coded (header byte 65).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BlockCoding {
    /// Each block one zstd frame.
    #[default]
    Zstd = 0,
    /// One-byte scores under an order-2 context model, coded with rANS; the
    /// model lies at the start of the data (see the module docs).
    ScoreContext = 1,
    /// As `ScoreContext`, each stream led by the CRC-32 of its bytes: a
    /// probe checks them and decodes the stream only up to its value
    /// (instead of to its end, which checks a stream of coding 1).
    ScoreContextCrc = 2,
    /// As `ScoreContextCrc`, with four lanes a stream instead of two (a
    /// probe's value waits on half as many steps of the decoder),
    /// frequencies at a scale of 2⁹ instead of 2¹⁰ (slot tables of 2 KiB
    /// instead of 4, which stay in cache), and stream CRCs that cover the
    /// stream's place too (its block and stream numbers).
    ScoreContextCrc4 = 3,
    /// As `ScoreContextCrc4`, the lanes' last symbols coded without
    /// renormalising, so that their encoders start below 2¹⁶ (whose 16
    /// bits carry nothing) rather than at it: 8 bytes a stream less, for
    /// one byte giving the tails' length.
    ScoreContextTails = 4,
}

impl BlockCoding {
    fn from_id(id: u8) -> Option<Self> {
        match id {
            0 => Some(BlockCoding::Zstd),
            1 => Some(BlockCoding::ScoreContext),
            2 => Some(BlockCoding::ScoreContextCrc),
            3 => Some(BlockCoding::ScoreContextCrc4),
            4 => Some(BlockCoding::ScoreContextTails),
            _ => None,
        }
    }

    /// The coding's name, as `info` lists it.
    pub fn name(self) -> &'static str {
        match self {
            BlockCoding::Zstd => "zstd",
            BlockCoding::ScoreContext => "context-1",
            BlockCoding::ScoreContextCrc => "context-2",
            BlockCoding::ScoreContextCrc4 => "context-3",
            BlockCoding::ScoreContextTails => "context-4",
        }
    }
}

/// The stored value of a `ScoreOrCapture` position decided by its captures.
pub const CAPTURE_DECIDES: i8 = i8::MIN;

impl ValueEncoding {
    fn from_id(id: u8) -> Option<Self> {
        match id {
            1 => Some(ValueEncoding::Score),
            2 => Some(ValueEncoding::ScoreOrCapture),
            3 => Some(ValueEncoding::WdlDistance),
            4 => Some(ValueEncoding::Distance),
            _ => None,
        }
    }

    /// The name used in messages and `info`.
    pub fn name(self) -> &'static str {
        match self {
            ValueEncoding::Score => "score",
            ValueEncoding::ScoreOrCapture => "score-or-capture",
            ValueEncoding::WdlDistance => "wdl-distance",
            ValueEncoding::Distance => "distance",
        }
    }

    /// Bytes per value.
    pub fn width(self) -> usize {
        match self {
            ValueEncoding::Score | ValueEncoding::ScoreOrCapture => 1,
            ValueEncoding::WdlDistance | ValueEncoding::Distance => 2,
        }
    }
}

/// The word of a distance table's options that names the value table it was
/// built from: `values-crc32=` and that table's payload CRC in hex.
const VALUES_CRC: &str = "values-crc32=";

/// The options of a distance table built from a value table with these
/// `options` and payload CRC: the value table's options, then the CRC
/// ([`distance_source`] reads it back).
pub fn distance_options(options: &str, values_crc: u32) -> String {
    match options {
        "" => format!("{VALUES_CRC}{values_crc:08x}"),
        _ => format!("{options},{VALUES_CRC}{values_crc:08x}"),
    }
}

/// The value table's options and payload CRC a distance table's options
/// name, if they are of that form.
pub fn distance_source(options: &str) -> Option<(&str, u32)> {
    let (rest, crc) = match options.rsplit_once(',') {
        Some((rest, last)) => (rest, last),
        None => ("", options),
    };
    let crc = u32::from_str_radix(crc.strip_prefix(VALUES_CRC)?, 16).ok()?;
    Some((rest, crc))
}

/// What a table holds: enough to refuse a table built for other rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableMeta {
    /// Game name, e.g. `"oware"`.
    pub game: String,
    /// Ruleset name, e.g. `"awari"` or `"abapa"`.
    pub ruleset: String,
    /// Ruleset options, e.g. `"reverse=all-laps,endless=void"`; empty if none.
    pub options: String,
    /// Seeds on the board: the layer.
    pub seeds: u32,
    /// Board width (pits per row; 6 for Oware).
    pub board_width: u32,
    /// What the stored values mean.
    pub encoding: ValueEncoding,
}

/// The decoded header of a table file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub meta: TableMeta,
    pub coding: BlockCoding,
    pub positions: u64,
    pub block_size: u32,
    pub block_count: u64,
    pub header_len: u64,
    pub index_offset: u64,
    pub file_len: u64,
    pub payload_crc: u32,
}

/// Where one block's compressed bytes lie, and the CRC-32 of its values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexEntry {
    pub offset: u64,
    pub len: u32,
    pub crc: u32,
}

impl IndexEntry {
    pub fn encode(&self) -> [u8; INDEX_ENTRY_LEN as usize] {
        let mut out = [0; INDEX_ENTRY_LEN as usize];
        out[0..8].copy_from_slice(&self.offset.to_le_bytes());
        out[8..12].copy_from_slice(&self.len.to_le_bytes());
        out[12..16].copy_from_slice(&self.crc.to_le_bytes());
        out
    }

    pub fn decode(b: &[u8; INDEX_ENTRY_LEN as usize]) -> Self {
        IndexEntry {
            offset: u64::from_le_bytes(b[0..8].try_into().expect("8 bytes")),
            len: u32::from_le_bytes(b[8..12].try_into().expect("4 bytes")),
            crc: u32::from_le_bytes(b[12..16].try_into().expect("4 bytes")),
        }
    }
}

/// Number of blocks needed for `positions` positions.
pub fn block_count(positions: u64, block_size: u32) -> u64 {
    positions.div_ceil(u64::from(block_size))
}

/// Header length for this metadata: fixed part, strings, checksum, padded to 8.
pub fn header_len(meta: &TableMeta) -> u64 {
    let raw = FIXED_LEN + meta.game.len() + meta.ruleset.len() + meta.options.len() + 4;
    raw.next_multiple_of(8) as u64
}

/// Checks that the strings fit their `u16` length fields.
pub fn check_meta(meta: &TableMeta) -> Result<(), TableError> {
    for (name, s) in [
        ("game", &meta.game),
        ("ruleset", &meta.ruleset),
        ("options", &meta.options),
    ] {
        if s.len() > usize::from(u16::MAX) {
            return Err(TableError::InvalidInput {
                reason: format!("{name} string is {} bytes, at most 65535", s.len()),
            });
        }
    }
    Ok(())
}

impl Header {
    /// The header bytes, `header_len` long, checksum included.
    pub fn encode(&self) -> Vec<u8> {
        let m = &self.meta;
        let mut b = Vec::with_capacity(self.header_len as usize);
        b.extend_from_slice(&MAGIC);
        b.extend_from_slice(&VERSION.to_le_bytes());
        b.extend_from_slice(&(self.header_len as u32).to_le_bytes());
        b.extend_from_slice(&self.file_len.to_le_bytes());
        b.extend_from_slice(&self.index_offset.to_le_bytes());
        b.extend_from_slice(&self.positions.to_le_bytes());
        b.extend_from_slice(&self.block_count.to_le_bytes());
        b.extend_from_slice(&self.block_size.to_le_bytes());
        b.extend_from_slice(&m.seeds.to_le_bytes());
        b.extend_from_slice(&m.board_width.to_le_bytes());
        b.extend_from_slice(&self.payload_crc.to_le_bytes());
        b.push(m.encoding as u8);
        b.push(self.coding as u8);
        for s in [&m.game, &m.ruleset, &m.options] {
            b.extend_from_slice(&(s.len() as u16).to_le_bytes());
        }
        debug_assert_eq!(b.len(), FIXED_LEN);
        for s in [&m.game, &m.ruleset, &m.options] {
            b.extend_from_slice(s.as_bytes());
        }
        b.resize(self.header_len as usize - 4, 0);
        let crc = crc32fast::hash(&b);
        b.extend_from_slice(&crc.to_le_bytes());
        b
    }

    /// Decodes and validates the header at the start of `file`, the whole file
    /// contents. Every offset in the result lies within `file`.
    pub fn decode(file: &[u8]) -> Result<Header, TableError> {
        let header_len = checked_header_len(file)?;
        // The checksum matched: a field that is still wrong was written so.
        let r = Reader(file);
        let u64_at = |at| r.u64(at).expect("within checked header");
        let u32_at = |at| r.u32(at).expect("within checked header");
        let unknown = |what, id| TableError::UnknownCoding { what, id };
        let encoding =
            ValueEncoding::from_id(file[64]).ok_or_else(|| unknown("value encoding", file[64]))?;
        let coding =
            BlockCoding::from_id(file[65]).ok_or_else(|| unknown("block coding", file[65]))?;
        let header = Header {
            meta: TableMeta {
                game: String::new(),
                ruleset: String::new(),
                options: String::new(),
                seeds: u32_at(52),
                board_width: u32_at(56),
                encoding,
            },
            coding,
            positions: u64_at(32),
            block_size: u32_at(48),
            block_count: u64_at(40),
            header_len,
            index_offset: u64_at(24),
            file_len: u64_at(16),
            payload_crc: u32_at(60),
        };
        header.check_layout(file.len() as u64)?;
        header.with_strings(file)
    }

    /// Checks that the file's length, its blocks and its index agree.
    fn check_layout(&self, actual_len: u64) -> Result<(), TableError> {
        let bad = |reason: String| TableError::BadHeader { reason };
        let (file_len, block_size, block_count) =
            (self.file_len, self.block_size, self.block_count);
        if actual_len < file_len {
            return Err(TableError::Truncated {
                expected: file_len,
                found: actual_len,
            });
        }
        if actual_len > file_len {
            return Err(bad(format!(
                "file is {actual_len} bytes, header says {file_len}"
            )));
        }
        if block_size == 0 || block_size > MAX_BLOCK_SIZE {
            return Err(bad(format!("block size {block_size}")));
        }
        if block_count != self::block_count(self.positions, block_size) {
            return Err(bad(format!(
                "{block_count} blocks for {} positions of {block_size}",
                self.positions
            )));
        }
        let index_ok = block_count
            .checked_mul(INDEX_ENTRY_LEN)
            .and_then(|index_len| file_len.checked_sub(index_len))
            .is_some_and(|start| start == self.index_offset && start >= self.header_len);
        if !index_ok {
            return Err(bad(format!("index offset {}", self.index_offset)));
        }
        Ok(())
    }

    /// The header with its metadata's strings (game, ruleset, options) read
    /// from `file`.
    fn with_strings(mut self, file: &[u8]) -> Result<Header, TableError> {
        let bad = |reason: String| TableError::BadHeader { reason };
        let r = Reader(file);
        let u16_at = |at| u64::from(r.u16(at).expect("within checked header"));
        let (g, rs, o) = (u16_at(66), u16_at(68), u16_at(70));
        let strings_end = FIXED_LEN as u64 + g + rs + o;
        if strings_end + 4 > self.header_len {
            return Err(bad("strings overrun the header".into()));
        }
        let string = |from: u64, len: u64, name: &str| {
            let bytes = &file[from as usize..(from + len) as usize];
            String::from_utf8(bytes.to_vec()).map_err(|_| bad(format!("{name} is not UTF-8")))
        };
        let start = FIXED_LEN as u64;
        self.meta.game = string(start, g, "game")?;
        self.meta.ruleset = string(start + g, rs, "ruleset")?;
        self.meta.options = string(start + g + rs, o, "options")?;
        Ok(self)
    }
}

/// The length of the header at the start of `file` once its magic, version,
/// length and checksum are checked.
fn checked_header_len(file: &[u8]) -> Result<u64, TableError> {
    let truncated = |expected: u64| TableError::Truncated {
        expected,
        found: file.len() as u64,
    };
    let prefix = &file[..file.len().min(MAGIC.len())];
    if prefix != &MAGIC[..prefix.len()] {
        return Err(TableError::NotATable);
    }
    let r = Reader(file);
    let version = r.u32(8).ok_or_else(|| truncated(FIXED_LEN as u64))?;
    if version != VERSION {
        return Err(TableError::UnsupportedVersion {
            version,
            supported: VERSION,
        });
    }
    let header_len = u64::from(r.u32(12).ok_or_else(|| truncated(FIXED_LEN as u64))?);
    if header_len < FIXED_LEN as u64 + 4 || header_len % 8 != 0 || header_len > MAX_HEADER_LEN {
        // Written headers never look like this: the field itself is damaged.
        return Err(TableError::HeaderChecksum);
    }
    if header_len > file.len() as u64 {
        return Err(truncated(header_len));
    }
    let (body, crc) = file[..header_len as usize].split_at(header_len as usize - 4);
    if crc32fast::hash(body) != u32::from_le_bytes(crc.try_into().expect("4 bytes")) {
        return Err(TableError::HeaderChecksum);
    }
    Ok(header_len)
}

/// Bounds-checked little-endian reads from a byte slice.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn bytes<const N: usize>(&self, at: usize) -> Option<[u8; N]> {
        self.0.get(at..at + N)?.try_into().ok()
    }
    fn u16(&self, at: usize) -> Option<u16> {
        self.bytes(at).map(u16::from_le_bytes)
    }
    fn u32(&self, at: usize) -> Option<u32> {
        self.bytes(at).map(u32::from_le_bytes)
    }
    fn u64(&self, at: usize) -> Option<u64> {
        self.bytes(at).map(u64::from_le_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_options_name_their_value_table() {
        for options in ["", "reverse=all-laps,endless=void"] {
            let written = distance_options(options, 0x0012_abcd);
            assert_eq!(distance_source(&written), Some((options, 0x0012_abcd)));
        }
        assert_eq!(distance_options("", 7), "values-crc32=00000007");
        assert_eq!(distance_source(""), None);
        assert_eq!(distance_source("endless=void"), None);
        assert_eq!(distance_source("values-crc32=zz"), None);
    }
}
