//! Block codings 1 to 4: one-byte scores under a context model, coded
//! with rANS in short independent streams, so that a probe decodes one
//! stream of a few hundred values rather than a whole block.
//!
//! A value's context is the two values before it in its lane. The
//! contexts that gain most over "the previous value only" keep their own
//! distribution; the others share their previous value's. The tables stay
//! small enough to sit in cache, and there is no per-block setup (zstd
//! rebuilds its entropy tables for every frame). Coding 4, what builds
//! write, leads each stream with a CRC-32 of its place and bytes (a probe
//! checks it, then decodes only up to its value), runs four lanes a stream
//! and ends each lane in a tail coded without renormalising; codings 1 to
//! 3 are read only, with their own stream layouts
//! ([`BlockCoding::streams`]; `legacy.rs` tests that their tables still
//! read). Why each choice, as measured: `docs/format.md` ("Why the context
//! coding is what it is"); the bytes: `docs/format.md`.

use std::ops::Range;

use rayon::prelude::*;

use super::header::BlockCoding;
use super::rans::{self, Decoder, Decoding, Encoder, MAX_STATES, SlotOrder, Step, Tables};

/// Largest seed count of the alphabet: symbols stay below 256.
const ALPHABET_MAX_SEEDS: u32 = 126;
/// Values per stream: two lanes of 256 (four of 128 in codings 3 and 4),
/// each starting afresh. Each stream costs 4 bytes a lane (its final
/// state), 2 for its end offset, 4 for its CRC (codings 2 to 4; without
/// one, a probe decodes one whole stream, so that its end checks it) and
/// 1 for its tails (coding 4).
pub const STREAM_LEN: usize = 512;
/// Most contexts with a distribution of their own: beyond this the gain
/// on Awari layers is small, and the tables (4 KiB each) would outgrow
/// the L2 cache.
const MAX_OWN_CONTEXTS: usize = 64;
/// Largest block: its streams' end offsets are `u16`s (at most 10 bits a
/// value plus 23 bytes a stream stays below 64 Ki bytes).
pub const MAX_CONTEXT_BLOCK_SIZE: u32 = 1 << 15;

/// How a context coding codes its streams (see
/// [`BlockCoding::streams`](super::BlockCoding::streams)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Streams {
    /// What vouches for a stream's bytes.
    pub check: StreamCheck,
    /// Lanes a stream: 2 or 4.
    pub lanes: usize,
    /// The frequencies of each distribution add up to `1 << scale_bits`.
    pub scale_bits: u32,
    /// Whether the lanes end in tails (coding 4): the stream's last steps,
    /// their number in a byte after the CRC, code without renormalising,
    /// so the lanes' encoders start below 2¹⁶ instead of at it (see
    /// [`choose_tails`]); the distributions' slots then go to the likeliest
    /// symbols first ([`SlotOrder::ByFrequency`]).
    pub tails: bool,
}

impl BlockCoding {
    /// How a context coding codes its streams; `None` for zstd. Codings 1
    /// to 3 are read only: coding 1 checks a stream by its end, coding 2 by
    /// a CRC of its bytes, coding 3 by a CRC of its place and bytes; only
    /// coding 4 ends its lanes in tails.
    pub fn streams(self) -> Option<Streams> {
        let (check, lanes, scale_bits, tails) = match self {
            BlockCoding::Zstd => return None,
            BlockCoding::ScoreContext => (StreamCheck::End, 2, 10, false),
            BlockCoding::ScoreContextCrc => (StreamCheck::Crc, 2, 10, false),
            BlockCoding::ScoreContextCrc4 => (StreamCheck::PlacedCrc, 4, 9, false),
            BlockCoding::ScoreContextTails => (StreamCheck::PlacedCrc, 4, 9, true),
        };
        Some(Streams {
            check,
            lanes,
            scale_bits,
            tails,
        })
    }
}

/// What vouches for a stream's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamCheck {
    /// Its end (coding 1): a probe decodes it whole.
    End,
    /// A CRC-32 of its bytes leading it (coding 2). A damaged block index
    /// entry or stream offset that points at another stream whole reads
    /// that stream's values: only whole-block decodes, checked against the
    /// block's CRC, catch it.
    Crc,
    /// A CRC-32 of its block's and its own number, then its bytes (coding
    /// 3): a stream read from anywhere else fails it.
    PlacedCrc,
}

impl StreamCheck {
    /// The check leading stream `k` of block `block`, if it has one.
    fn crc(self, block: u64, k: usize, bytes: &[u8]) -> Option<u32> {
        let mut crc = crc32fast::Hasher::new();
        match self {
            StreamCheck::End => return None,
            StreamCheck::Crc => crc.update(bytes),
            StreamCheck::PlacedCrc => {
                crc.update(&block.to_le_bytes());
                crc.update(&(k as u32).to_le_bytes());
                crc.update(bytes);
            }
        }
        Some(crc.finalize())
    }
}

/// Values to be coded (as bytes), read a range at a time, in any order and
/// more than once: counted for the model, then coded.
pub trait Values: Sync {
    fn len(&self) -> usize;
    /// The values `range`: borrowed, or produced into `buffer`.
    fn read<'a>(&'a self, range: Range<usize>, buffer: &'a mut Vec<u8>) -> &'a [u8];
}

impl Values for [u8] {
    fn len(&self) -> usize {
        <[u8]>::len(self)
    }
    fn read<'a>(&'a self, range: Range<usize>, _: &'a mut Vec<u8>) -> &'a [u8] {
        &self[range]
    }
}

/// The symbols of scores of a number of seeds.
#[derive(Clone, Copy, Debug)]
pub struct ScoreCoding {
    seeds: usize,
}

impl ScoreCoding {
    /// The coding of scores of `seeds` seeds, if its symbols fit a byte.
    pub fn new(seeds: u32) -> Option<ScoreCoding> {
        (seeds <= ALPHABET_MAX_SEEDS).then_some(ScoreCoding {
            seeds: seeds as usize,
        })
    }

    /// Symbols: the values `−seeds ..= seeds`, then the capture mark.
    fn alphabet(&self) -> usize {
        2 * self.seeds + 2
    }

    /// The symbol of a value (as its byte), or `None` if it is outside the
    /// alphabet.
    fn symbol(&self, value: u8) -> Option<u8> {
        let n = self.seeds as i32;
        match i32::from(value as i8) {
            v if v == i32::from(super::CAPTURE_DECIDES) => Some((2 * n + 1) as u8),
            v if (-n..=n).contains(&v) => Some((v + n) as u8),
            _ => None,
        }
    }

    fn value(&self, symbol: u8) -> u8 {
        if usize::from(symbol) == 2 * self.seeds + 1 {
            super::CAPTURE_DECIDES as u8
        } else {
            (i32::from(symbol) - self.seeds as i32) as i8 as u8
        }
    }

    /// The symbol before the first of a stream (twice): a draw.
    fn start(&self) -> usize {
        self.seeds
    }

    /// The length of [`ScoreCoding::count`]'s counts.
    pub fn counts_len(&self) -> usize {
        self.alphabet().pow(3)
    }

    /// How often each symbol follows each pair of symbols in the lanes of
    /// the streams of `values` (blocks of `block_size`, streams of `lanes`
    /// lanes), or `None` if some value is not a symbol. Indexed by
    /// `(previous · alphabet + before) · alphabet + symbol`.
    pub fn count(
        &self,
        values: &(impl Values + ?Sized),
        block_size: usize,
        lanes: usize,
    ) -> Option<Vec<u64>> {
        let a = self.alphabet();
        let blocks = values.len().div_ceil(block_size);
        let share = blocks.div_ceil(rayon::current_num_threads()).max(1) * block_size;
        (0..values.len().div_ceil(share))
            .into_par_iter()
            .map(|s| {
                let mut counts = vec![0u64; a * a * a];
                let mut buffer = Vec::new();
                let share = s * share..values.len().min((s + 1) * share);
                for start in share.clone().step_by(block_size) {
                    let block = values.read(start..share.end.min(start + block_size), &mut buffer);
                    let streams = block.chunks(STREAM_LEN);
                    for lane in streams.flat_map(|s| lane_ranges(s.len(), lanes).map(|r| &s[r])) {
                        let (mut previous, mut before) = (self.start(), self.start());
                        for &v in lane {
                            let symbol = usize::from(self.symbol(v)?);
                            counts[(previous * a + before) * a + symbol] += 1;
                            (previous, before) = (symbol, previous);
                        }
                    }
                }
                Some(counts)
            })
            .try_reduce(
                || vec![0u64; a * a * a],
                |mut sum, counts| {
                    sum.iter_mut().zip(counts).for_each(|(s, c)| *s += c);
                    Some(sum)
                },
            )
    }
}

/// The distributions of a table and which context uses which.
pub struct ScoreModel {
    coding: ScoreCoding,
    /// Per context (`previous · alphabet + before`): its table. Contexts
    /// never seen point at table 0; a stream that reaches one is damaged
    /// and fails its end check.
    map: Vec<u16>,
    tables: Tables,
    /// The decoder's form of the model: a decoding state per distribution
    /// and symbol before (what a context of the distribution holds as its
    /// previous symbol), so that each symbol decoded names the next one's
    /// distribution.
    decoding: Decoding,
    /// Per decoding state, the value of the symbol before it.
    values: Vec<u8>,
    /// The state of each lane's first symbol.
    start: u32,
    streams: Streams,
}

impl ScoreModel {
    /// The model of `counts` (from [`ScoreCoding::count`]) for streams
    /// coded as `streams`, or `None` if nothing was counted.
    pub fn from_counts(
        coding: ScoreCoding,
        counts: &[u64],
        streams: Streams,
    ) -> Option<ScoreModel> {
        let bits = streams.scale_bits;
        let a = coding.alphabet();
        let context = |c: usize| &counts[c * a..][..a];
        let mut previous_only = vec![vec![0u64; a]; a];
        for c in 0..a * a {
            let sum = &mut previous_only[c / a];
            sum.iter_mut().zip(context(c)).for_each(|(s, n)| *s += n);
        }
        // Bits saved by a context's own distribution, less what storing it costs.
        let mut gains: Vec<(f64, usize)> = (0..a * a)
            .filter_map(|c| {
                let own = context(c);
                let shared = &previous_only[c / a];
                let (n, m) = (own.iter().sum::<u64>(), shared.iter().sum::<u64>());
                let mut gain = 0.0;
                for (&k, &s) in own.iter().zip(shared).filter(|(k, _)| **k > 0) {
                    gain += k as f64 * ((k as f64 / n as f64) / (s as f64 / m as f64)).log2();
                }
                let cost = 8.0 * (2.0 + 3.0 * own.iter().filter(|&&k| k > 0).count() as f64);
                (gain > cost).then_some((gain - cost, c))
            })
            .collect();
        gains.sort_by(|x, y| y.0.total_cmp(&x.0));
        gains.truncate(MAX_OWN_CONTEXTS);

        let mut own = vec![false; a * a];
        for &(_, c) in &gains {
            own[c] = true;
            let sum = &mut previous_only[c / a];
            sum.iter_mut().zip(context(c)).for_each(|(s, n)| *s -= n);
        }
        let mut freqs = Vec::new();
        let mut shared_table = vec![None; a];
        for (previous, counts) in previous_only.iter().enumerate() {
            if let Some(f) = rans::quantize(counts, bits) {
                shared_table[previous] = Some(freqs.len() as u16);
                freqs.push(f);
            }
        }
        let mut map = vec![0u16; a * a];
        for (c, table) in map.iter_mut().enumerate() {
            if own[c] {
                *table = freqs.len() as u16;
                freqs.push(rans::quantize(context(c), bits).expect("a gain means counts"));
            } else if let Some(shared) = shared_table[c / a] {
                *table = shared;
            }
        }
        (!freqs.is_empty()).then(|| {
            // A state per distribution and per previous symbol of unseen
            // contexts (table 0): at most 2·254 + 64.
            ScoreModel::new(coding, map, &freqs, streams).expect("few decoding states")
        })
    }

    /// The model as stored: LEB128 varints, the number of tables, each
    /// table (its symbol count − 1, then each symbol as a byte, in
    /// increasing order, with its frequency), then each context's table.
    pub fn to_bytes(&self) -> Vec<u8> {
        let a = self.coding.alphabet();
        let mut out = Vec::new();
        put_varint(&mut out, STREAM_LEN as u64);
        put_varint(&mut out, self.tables.len() as u64);
        for t in 0..self.tables.len() {
            let symbols: Vec<(u8, u32)> = (0..a as u8)
                .map(|s| (s, self.tables.span(t, s).0))
                .filter(|&(_, freq)| freq > 0)
                .collect();
            put_varint(&mut out, symbols.len() as u64 - 1);
            for (symbol, freq) in symbols {
                out.push(symbol);
                put_varint(&mut out, u64::from(freq));
            }
        }
        for &table in &self.map {
            put_varint(&mut out, u64::from(table));
        }
        out
    }

    /// Reads a model of scores of `coding` for streams coded as
    /// `streams`, checking everything a decoder relies on.
    pub fn parse(
        coding: ScoreCoding,
        mut bytes: &[u8],
        streams: Streams,
    ) -> Result<ScoreModel, String> {
        let scale = 1u64 << streams.scale_bits;
        let a = coding.alphabet();
        let bytes = &mut bytes;
        if get_varint(bytes)? != STREAM_LEN as u64 {
            return Err(format!("streams of other than {STREAM_LEN} values"));
        }
        let count = get_varint(bytes)?;
        if count == 0 || count > u64::from(u16::MAX) {
            return Err(format!("{count} tables"));
        }
        let mut tables = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let symbols = get_varint(bytes)? + 1;
            if symbols > a as u64 {
                return Err(format!("{symbols} symbols in an alphabet of {a}"));
            }
            let mut freqs = vec![0u16; a];
            let (mut sum, mut next) = (0u64, 0usize);
            for _ in 0..symbols {
                let (&symbol, rest) = bytes.split_first().ok_or("model ends early")?;
                *bytes = rest;
                let freq = get_varint(bytes)?;
                let symbol = usize::from(symbol);
                if symbol < next || symbol >= a || freq == 0 {
                    return Err(format!("bad symbol {symbol} or frequency {freq}"));
                }
                sum += freq;
                if sum > scale {
                    return Err("frequencies over the scale".into());
                }
                freqs[symbol] = freq as u16;
                next = symbol + 1;
            }
            if sum != scale {
                return Err(format!("frequencies add up to {sum}, not {scale}"));
            }
            tables.push(freqs);
        }
        let map = (0..a * a)
            .map(|_| {
                let table = get_varint(bytes)?;
                (table < count)
                    .then_some(table as u16)
                    .ok_or(format!("context table {table} of {count}"))
            })
            .collect::<Result<_, String>>()?;
        if !bytes.is_empty() {
            return Err("bytes after the model".into());
        }
        ScoreModel::new(coding, map, &tables, streams)
    }

    /// The model of `map` and the distributions `freqs`, with its decoding
    /// states; fails if they are more than the decoder can name.
    fn new(
        coding: ScoreCoding,
        map: Vec<u16>,
        freqs: &[Vec<u16>],
        streams: Streams,
    ) -> Result<ScoreModel, String> {
        assert!(matches!(streams.lanes, 2 | 4), "{} lanes", streams.lanes);
        let a = coding.alphabet();
        let slots = match streams.tails {
            true => SlotOrder::ByFrequency,
            false => SlotOrder::BySymbol,
        };
        let tables = Tables::new(freqs, slots);
        // Per distribution · alphabet + previous symbol: its state's number.
        let mut numbers = vec![u16::MAX; tables.len() * a];
        let mut keys = Vec::new();
        for (c, &t) in map.iter().enumerate() {
            let key = usize::from(t) * a + c / a;
            if numbers[key] == u16::MAX {
                numbers[key] = keys.len() as u16;
                keys.push(key);
            }
        }
        if keys.len() > MAX_STATES {
            return Err(format!("{} decoding states", keys.len()));
        }
        let state = |previous: usize, before: usize| {
            numbers[usize::from(map[previous * a + before]) * a + previous]
        };
        let states: Vec<(usize, Vec<u16>)> = (keys.iter())
            .map(|&key| {
                (
                    key / a,
                    (0..a).map(|symbol| state(symbol, key % a)).collect(),
                )
            })
            .collect();
        let values = keys
            .iter()
            .map(|&key| coding.value((key % a) as u8))
            .collect();
        let decoding = Decoding::new(&tables, &states, streams.scale_bits);
        let start = decoding.base(state(coding.start(), coding.start()).into());
        Ok(ScoreModel {
            coding,
            decoding,
            map,
            tables,
            values,
            start,
            streams,
        })
    }

    /// The distribution of a context.
    #[inline]
    fn table(&self, previous: usize, before: usize) -> usize {
        usize::from(self.map[previous * self.coding.alphabet() + before])
    }

    /// Block `block` coded: the `u16` end offset of each stream but the
    /// last (from the end of the offsets), then the streams, each led by
    /// its CRC if the model says so. All `values` are symbols counted into
    /// the model.
    pub fn encode(&self, values: &[u8], block: u64) -> Vec<u8> {
        let streams = values.len().div_ceil(STREAM_LEN);
        let head = 2 * streams.saturating_sub(1);
        let mut out = vec![0; head];
        let coding = self.coding;
        for (k, stream) in values.chunks(STREAM_LEN).enumerate() {
            let symbols: Vec<usize> = stream
                .iter()
                .map(|&v| usize::from(coding.symbol(v).expect("counted values fit")))
                .collect();
            // Each lane's symbols as spans of their contexts' distributions.
            let lanes: Vec<Vec<(u32, u32)>> = lane_ranges(symbols.len(), self.streams.lanes)
                .map(|r| {
                    let symbols = &symbols[r];
                    (0..symbols.len())
                        .map(|i| {
                            let previous = i.checked_sub(1).map_or(coding.start(), |j| symbols[j]);
                            let before = i.checked_sub(2).map_or(coding.start(), |j| symbols[j]);
                            let t = self.table(previous, before);
                            self.tables.span(t, symbols[i] as u8)
                        })
                        .collect()
                })
                .collect();
            let steps = lanes[lanes.len() - 1].len();
            let mut bytes = Vec::new();
            let (mut encoder, quiet_from) = match self.streams.tails {
                false => (Encoder::new(lanes.len(), self.streams.scale_bits), steps),
                true => {
                    let (quiet_from, starts) = choose_tails(&lanes, self.streams.scale_bits);
                    bytes.push((steps - quiet_from) as u8);
                    let encoder = Encoder::starting_at(starts, self.streams.scale_bits);
                    (encoder, quiet_from)
                }
            };
            // The reverse of the decoder's order: steps from the last, and
            // in each step the lanes from the last.
            for i in (0..steps).rev() {
                for (lane, spans) in lanes.iter().enumerate().rev() {
                    match spans.get(i) {
                        Some(&span) if i >= quiet_from => encoder.put_quiet(lane, span),
                        Some(&span) => encoder.put(lane, span),
                        None => {}
                    }
                }
            }
            encoder.finish(&mut bytes);
            if let Some(crc) = self.streams.check.crc(block, k, &bytes) {
                out.extend(crc.to_le_bytes());
            }
            out.extend(bytes);
            if k + 1 < streams {
                let end = u16::try_from(out.len() - head).expect("blocks fit u16 offsets");
                out[2 * k..][..2].copy_from_slice(&end.to_le_bytes());
            }
        }
        out
    }

    /// The `len` values (as bytes) of block `block`, coded as `coded`,
    /// each stream decoded whole and checked by its end (and its CRC, if
    /// it has one).
    pub fn decode(&self, coded: &[u8], len: usize, block: u64) -> Result<Vec<u8>, String> {
        let mut out = vec![0; len];
        for (k, values) in out.chunks_mut(STREAM_LEN).enumerate() {
            let depth = self.whole_depth(values.len());
            self.decode_stream(self.stream(coded, len, block, k)?, values, depth)?;
        }
        Ok(out)
    }

    /// Decodes the stream of block `block` (coded as `coded`, `len`
    /// values) that holds `offsets` (at least one, all in that stream)
    /// into `out`; returns the offsets the stream holds. A stream with a
    /// CRC is decoded only as far as `offsets` need (the CRC vouches for
    /// its bytes), one without whole, so that its end checks it.
    pub fn decode_part(
        &self,
        coded: &[u8],
        len: usize,
        block: u64,
        offsets: impl IntoIterator<Item = usize>,
        out: &mut [u8; STREAM_LEN],
    ) -> Result<Range<usize>, String> {
        let mut offsets = offsets.into_iter();
        let at = offsets.next().expect("an offset");
        let k = at / STREAM_LEN;
        let range = k * STREAM_LEN..len.min((k + 1) * STREAM_LEN);
        let out = &mut out[..range.len()];
        let lanes = self.streams.lanes;
        // Symbols of its lane up to and including an offset's.
        let depth = |at: usize| {
            debug_assert!(range.contains(&at), "offset {at} outside {range:?}");
            let i = at - range.start;
            let lane = lane_ranges(out.len(), lanes).find(|r| r.end > i);
            i - lane.expect("an offset in the stream").start + 1
        };
        let depth = match self.streams.check {
            StreamCheck::Crc | StreamCheck::PlacedCrc => {
                offsets.fold(depth(at), |d, at| d.max(depth(at)))
            }
            StreamCheck::End => self.whole_depth(out.len()),
        };
        self.decode_stream(self.stream(coded, len, block, k)?, out, depth)?;
        Ok(range)
    }

    /// Decodes the first `depth` symbols of each lane of a stream (as many
    /// as it has) into `out`, a symbol of each lane in turn. A stream
    /// decoded whole must end where its values do.
    fn decode_stream(&self, bytes: &[u8], out: &mut [u8], depth: usize) -> Result<(), String> {
        match self.streams.lanes {
            2 => self.decode_lanes::<2>(bytes, out, depth),
            _ => self.decode_lanes::<4>(bytes, out, depth),
        }
    }

    /// [`Self::decode_stream`] for streams of `N` lanes.
    fn decode_lanes<const N: usize>(
        &self,
        bytes: &[u8],
        out: &mut [u8],
        depth: usize,
    ) -> Result<(), String> {
        let steps = self.whole_depth(out.len());
        // The step the tails start at (none: the end).
        let (quiet_from, bytes) = match self.streams.tails {
            false => (steps, bytes),
            true => {
                let (&tail, rest) = bytes.split_first().ok_or("a stream without its tail")?;
                let quiet_from = (steps.checked_sub(usize::from(tail)))
                    .ok_or("a tail longer than its stream")?;
                (quiet_from, rest)
            }
        };
        let mut decoder = Decoder::<N>::new(bytes).ok_or("a stream shorter than its states")?;
        let value = |base: u32| self.values[self.decoding.state(base)];
        let mut bases = [self.start; N];
        let (short, longer) = (out.len() / N, out.len() % N);
        let starts: [usize; N] = std::array::from_fn(|lane| lane_start(out.len(), N, lane));
        for i in 0..depth.min(short) {
            bases = match i < quiet_from {
                true => decoder.next(&self.decoding, bases),
                false => decoder.next_quiet(&self.decoding, bases),
            };
            for lane in 0..N {
                out[starts[lane] + i] = value(bases[lane]);
            }
        }
        // The last `longer` lanes hold one value more: a last step of their own.
        if depth > short {
            for lane in N - longer..N {
                let kind = match short < quiet_from {
                    true => Step::Reading,
                    false => Step::Quiet,
                };
                bases[lane] = decoder.next_in(lane, &self.decoding, bases[lane], kind);
                out[starts[lane] + short] = value(bases[lane]);
            }
        }
        if depth >= steps && !decoder.is_complete(!self.streams.tails) {
            return Err("a stream does not end where its values do".into());
        }
        Ok(())
    }

    /// Symbols of the longest lane of a stream of `len` values: how deep a
    /// whole decode goes.
    fn whole_depth(&self, len: usize) -> usize {
        len.div_ceil(self.streams.lanes)
    }

    /// The bytes of stream `k` of block `block`, coded as `coded` (`len`
    /// values), their CRC checked if they have one.
    fn stream<'a>(
        &self,
        coded: &'a [u8],
        len: usize,
        block: u64,
        k: usize,
    ) -> Result<&'a [u8], String> {
        let bytes = stream(coded, len, k)?;
        if self.streams.check == StreamCheck::End {
            return Ok(bytes);
        }
        let (crc, bytes) = bytes
            .split_first_chunk::<4>()
            .ok_or_else(|| format!("stream {k} has no room for its CRC"))?;
        if self.streams.check.crc(block, k, bytes) != Some(u32::from_le_bytes(*crc)) {
            return Err(format!("stream {k} fails its CRC"));
        }
        Ok(bytes)
    }
}

/// Where the tails of a stream's lanes (each its symbols' spans, in the
/// decoder's order) start, as a step (the lanes' last steps from there on
/// are their tails), and where each lane's encoder then starts: the step
/// for which the starts waste fewest bits. Without tails (the stream's
/// length) every lane wastes its start at 2¹⁶, 16 bits; a lane whose tail
/// reaches 2¹⁶ from 1 wastes none. One step serves all lanes, so a lane
/// of dense values may outgrow 32 bits in a tail as long as a lane of
/// sparse ones needs, and the sparse one may then start above 1: the
/// candidates are, per lane, where its tail from 1 would reach 2¹⁶ and
/// where it would outgrow 32 bits. (On awari layer 20 the lanes waste
/// 7.6 bits a stream; their small starting states code the tails' first
/// symbols about 10 bits a stream above their entropy, 17 with slots in
/// symbol order.)
fn choose_tails(lanes: &[Vec<(u32, u32)>], scale_bits: u32) -> (usize, Vec<u32>) {
    let steps = lanes.iter().map(Vec::len).max().unwrap_or(0);
    let mut candidates: Vec<usize> = (lanes.iter())
        .flat_map(|lane| {
            let (reach, longest) = rans::tails_from_one(lane, scale_bits);
            [lane.len() - reach, lane.len() - longest]
        })
        .chain([steps])
        .collect();
    candidates.sort_unstable();
    candidates.dedup();
    let starts = |from: usize| -> Option<Vec<u32>> {
        (lanes.iter())
            .map(|lane| rans::tail_start(lane, from, scale_bits))
            .collect()
    };
    let wasted = |starts: &[u32]| -> u32 { starts.iter().map(|s| s.ilog2()).sum() };
    (candidates.into_iter())
        .filter_map(|from| Some((from, starts(from)?)))
        .min_by_key(|(_, starts)| wasted(starts))
        .expect("no tails always fit")
}

/// Where lane `lane` of a stream of `len` values in `lanes` lanes starts:
/// the lanes are consecutive runs of `len / lanes` values, the last
/// `len % lanes` of them one longer.
fn lane_start(len: usize, lanes: usize, lane: usize) -> usize {
    let (short, longer) = (len / lanes, len % lanes);
    lane * short + lane.saturating_sub(lanes - longer)
}

/// The lanes of a stream of `len` values, in order.
fn lane_ranges(len: usize, lanes: usize) -> impl Iterator<Item = Range<usize>> {
    (0..lanes).map(move |lane| lane_start(len, lanes, lane)..lane_start(len, lanes, lane + 1))
}

/// The bytes of stream `k` of a coded block of `len` values, CRC included.
fn stream(block: &[u8], len: usize, k: usize) -> Result<&[u8], String> {
    let streams = len.div_ceil(STREAM_LEN);
    let head = 2 * (streams - 1);
    let data = block.get(head..).ok_or("shorter than its stream offsets")?;
    let end = |k: usize| match k + 1 == streams {
        true => data.len(),
        false => usize::from(u16::from_le_bytes([block[2 * k], block[2 * k + 1]])),
    };
    let start = k.checked_sub(1).map_or(0, end);
    data.get(start..end(k))
        .ok_or_else(|| format!("stream {k} lies outside the block"))
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get_varint(bytes: &mut &[u8]) -> Result<u64, String> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let (&b, rest) = bytes.split_first().ok_or("model ends early")?;
        *bytes = rest;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Ok(v);
        }
    }
    Err("varint too long".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::{BlockCoding, CAPTURE_DECIDES};

    #[test]
    fn symbols_cover_the_scores_and_the_mark() {
        let coding = ScoreCoding::new(3).unwrap();
        for v in [-3i8, 0, 3, CAPTURE_DECIDES] {
            assert_eq!(coding.value(coding.symbol(v as u8).unwrap()), v as u8);
        }
        assert_eq!(coding.symbol(4), None);
        assert_eq!(coding.symbol(-4i8 as u8), None);
        assert_eq!(coding.alphabet(), 8);
    }

    /// Values with runs and a skew, as a layer's are.
    fn sample(len: usize) -> Vec<u8> {
        let mut seed = 7u32;
        let mut value = 0i8;
        (0..len)
            .map(|_| {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                match (seed >> 16) % 16 {
                    0 => value = CAPTURE_DECIDES,
                    1..=3 => value = ((seed >> 8) % 7) as i8 - 3,
                    _ => {}
                }
                value as u8
            })
            .collect()
    }

    /// The stream layouts of codings 1 to 4.
    fn layouts() -> [Streams; 4] {
        [
            BlockCoding::ScoreContext,
            BlockCoding::ScoreContextCrc,
            BlockCoding::ScoreContextCrc4,
            BlockCoding::ScoreContextTails,
        ]
        .map(|c| c.streams().unwrap())
    }

    #[test]
    fn lanes_are_consecutive_runs_the_last_ones_longer() {
        let runs = |len, lanes| lane_ranges(len, lanes).collect::<Vec<_>>();
        assert_eq!(runs(512, 2), [0..256, 256..512]);
        assert_eq!(runs(7, 2), [0..3, 3..7]);
        assert_eq!(runs(10, 4), [0..2, 2..4, 4..7, 7..10]);
        assert_eq!(runs(1, 4), [0..0, 0..0, 0..0, 0..1]);
    }

    #[test]
    fn blocks_and_their_parts_decode_to_the_values() {
        let coding = ScoreCoding::new(3).unwrap();
        let values = sample(3000);
        // Blocks of 977 values end with a stream of 465 (lanes of unequal
        // lengths), the last block is one stream of 69.
        let block_size = 977;
        let mut buffer = [0; STREAM_LEN];
        for streams in layouts() {
            let counts = coding
                .count(&values[..], block_size, streams.lanes)
                .unwrap();
            let model = ScoreModel::from_counts(coding, &counts, streams).unwrap();
            let model = ScoreModel::parse(coding, &model.to_bytes(), streams).unwrap();
            for block in values.chunks(block_size) {
                let coded = model.encode(block, 0);
                // (A short block is mostly its streams' fixed bytes.)
                if block.len() == block_size {
                    assert!(coded.len() < block.len() / 3, "{} bytes", coded.len());
                }
                assert_eq!(model.decode(&coded, block.len(), 0).unwrap(), block);
                for at in 0..block.len() {
                    let range = model
                        .decode_part(&coded, block.len(), 0, [at], &mut buffer)
                        .unwrap();
                    assert_eq!(buffer[at - range.start], block[at], "at {at}");
                }
                // Offsets in every lane of a second (shorter) stream.
                let offsets = [512, 520, 600, 700, 760, block.len() - 1];
                if block.len() < offsets[0] {
                    continue;
                }
                let range = model
                    .decode_part(&coded, block.len(), 0, offsets, &mut buffer)
                    .unwrap();
                for at in offsets {
                    assert_eq!(buffer[at - range.start], block[at], "at {at}");
                }
                for at in [0, 1, 5, coded.len() / 2, coded.len() - 1] {
                    let mut damaged = coded.clone();
                    damaged[at] ^= 0x04;
                    assert!(
                        model.decode(&damaged, block.len(), 0).is_err(),
                        "byte {at} of {}",
                        coded.len()
                    );
                }
            }
        }
        assert_eq!(
            coding.count(&[4u8][..], 1, 2),
            None,
            "not a score of 3 seeds"
        );
    }

    /// Tails from none to whole lanes: a constant block codes no word at
    /// all, noise outgrows 32 bits within a few values, and a layer-like
    /// block saves most of the 16 bits a lane's start at 2¹⁶ wastes (8
    /// streams of 512 values).
    #[test]
    fn lanes_with_tails_of_any_length_decode_and_save_their_start() {
        let coding = ScoreCoding::new(3).unwrap();
        let [.., three, four] = layouts();
        let mut seed = 11u32;
        let noise: Vec<u8> = (0..4096)
            .map(|_| {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                (((seed >> 16) % 7) as i8 - 3) as u8
            })
            .collect();
        let mut buffer = [0; STREAM_LEN];
        // Bytes a stream saved: a constant block's lanes carry nothing to
        // save on (their states stay at their start), noise's save a word
        // each (8 bytes, less the tails' byte).
        for (values, saved) in [
            (vec![0u8; 4096], -1.0..=-1.0),
            (noise, 7.0..=7.0),
            (sample(4096), 4.0..=6.0),
        ] {
            let mut sizes = Vec::new();
            for streams in [three, four] {
                let counts = coding
                    .count(&values[..], values.len(), streams.lanes)
                    .unwrap();
                let model = ScoreModel::from_counts(coding, &counts, streams).unwrap();
                let coded = model.encode(&values, 3);
                assert_eq!(model.decode(&coded, values.len(), 3).unwrap(), values);
                for at in (0..values.len()).step_by(7) {
                    let range = model
                        .decode_part(&coded, values.len(), 3, [at], &mut buffer)
                        .unwrap();
                    assert_eq!(buffer[at - range.start], values[at], "at {at}");
                }
                sizes.push(coded.len());
            }
            let per_stream = (sizes[0] as f64 - sizes[1] as f64) / 8.0;
            assert!(saved.contains(&per_stream), "{per_stream} bytes a stream");
        }
    }

    /// A probe decodes its stream only up to its value: the CRC alone
    /// must turn any changed byte of the stream into an error.
    #[test]
    fn a_changed_byte_of_a_stream_fails_every_probe_of_it() {
        let coding = ScoreCoding::new(3).unwrap();
        let block = sample(1000);
        let mut buffer = [0; STREAM_LEN];
        for streams in layouts()
            .into_iter()
            .filter(|s| s.check != StreamCheck::End)
        {
            let counts = coding
                .count(&block[..], block.len(), streams.lanes)
                .unwrap();
            let model = ScoreModel::from_counts(coding, &counts, streams).unwrap();
            a_changed_byte_fails_every_probe(&model, &block, &mut buffer);
        }
    }

    fn a_changed_byte_fails_every_probe(
        model: &ScoreModel,
        block: &[u8],
        buffer: &mut [u8; STREAM_LEN],
    ) {
        let coded = model.encode(block, 0);
        for k in 0..2 {
            let bytes = stream(&coded, block.len(), k).unwrap();
            let start = bytes.as_ptr() as usize - coded.as_ptr() as usize;
            let offsets = k * STREAM_LEN..block.len().min((k + 1) * STREAM_LEN);
            for at in start..start + bytes.len() {
                for flip in [0x01, 0x80, 0xff] {
                    let mut damaged = coded.clone();
                    damaged[at] ^= flip;
                    for offset in offsets.clone().step_by(5) {
                        assert!(
                            (model.decode_part(&damaged, block.len(), 0, [offset], buffer))
                                .is_err(),
                            "byte {at} ^ {flip:#x}, offset {offset}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn a_damaged_model_is_refused() {
        let coding = ScoreCoding::new(3).unwrap();
        let values = sample(3000);
        let counts = coding.count(&values[..], 1000, 2).unwrap();
        let [streams, .., four] = layouts();
        let model = ScoreModel::from_counts(coding, &counts, streams).unwrap();
        let bytes = model.to_bytes();
        assert!(ScoreModel::parse(coding, &bytes[..bytes.len() - 1], streams).is_err());
        assert!(ScoreModel::parse(ScoreCoding::new(4).unwrap(), &bytes, streams).is_err());
        assert!(
            ScoreModel::parse(coding, &bytes, four).is_err(),
            "frequencies of another scale"
        );
        for at in [0, 1] {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x01;
            assert!(
                ScoreModel::parse(coding, &damaged, streams).is_err(),
                "byte {at}"
            );
        }
    }
}
