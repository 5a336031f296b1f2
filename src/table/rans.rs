//! Static rANS: 32-bit states renormalised by 16-bit words, as in ryg's
//! `rans_word.h` (a symbol reads at most one word, without a branch: byte
//! renormalisation's unpredictable loop cost more than the rest of the
//! decode), two states interleaved over one stream (each
//! symbol's decode waits on the one before in its lane: two lanes keep the
//! core busy twice as much). The encoder runs backwards over a stream, the
//! decoder forwards. Decoding is table-driven: each decoding state (a
//! distribution, and the state each of its symbols leads to) has a slot →
//! (next state, frequency, offset) table, so a symbol costs one load, a
//! multiply and an add, with no search and no division, and the next
//! symbol's table is known without a further load.

/// Frequencies of a distribution add up to `1 << SCALE_BITS`. 10 bits
/// keeps each slot table at 4 KiB: on Awari layer 20, 12 bits (16 KiB)
/// coded 0.4% smaller but decoded half as fast, missing the cache.
pub const SCALE_BITS: u32 = 10;
pub const SCALE: u32 = 1 << SCALE_BITS;
/// Lower bound of the normalised state.
const LOW: u32 = 1 << 16;

/// Distributions as the encoder reads them, back to back.
pub struct Tables {
    /// Per distribution and symbol: frequency (low 16 bits) and cumulative
    /// frequency (high 16), 0 for symbols the distribution lacks.
    spans: Vec<u32>,
}

impl Tables {
    /// The tables of `freqs` (each per symbol, adding up to [`SCALE`]).
    pub fn new(freqs: &[Vec<u16>]) -> Tables {
        let mut spans = vec![0; freqs.len() * 256];
        for (t, freqs) in freqs.iter().enumerate() {
            let mut cum = 0u32;
            for (symbol, &freq) in freqs.iter().enumerate() {
                let freq = u32::from(freq);
                spans[t * 256 + symbol] = freq | cum << 16;
                cum += freq;
            }
            debug_assert_eq!(cum, SCALE);
        }
        Tables { spans }
    }

    /// Number of distributions.
    pub fn len(&self) -> usize {
        self.spans.len() / 256
    }

    /// Frequency and cumulative frequency of `symbol` in distribution `t`.
    pub fn span(&self, t: usize, symbol: u8) -> (u32, u32) {
        let packed = self.spans[t * 256 + usize::from(symbol)];
        (packed & 0xffff, packed >> 16)
    }
}

/// Where an entry of [`Decoding`] keeps the frequency: one shift extracts
/// it on the decoder's critical path.
const FREQ_SHIFT: u32 = 21;
/// The bits of an entry naming the next state (where its slots start).
const NEXT_MASK: u32 = (1 << FREQ_SHIFT) - SCALE;
/// Most decoding states: their numbers fit between an entry's offset and
/// frequency.
pub const MAX_STATES: usize = 1 << (FREQ_SHIFT - SCALE_BITS);

/// The decoder's tables. A decoding state is a distribution together with
/// the state that follows each of its symbols; per state and slot of the
/// scale, one entry holds the slot's offset in its span (bits
/// 0..SCALE_BITS), the next state as where its slots start
/// (SCALE_BITS..FREQ_SHIFT) and the frequency (FREQ_SHIFT..32). Finding
/// the next symbol's distribution then costs no load beyond the entry's:
/// the load that would wait on the symbol is off the critical path.
pub struct Decoding {
    entries: Vec<u32>,
}

impl Decoding {
    /// `states[k]`: the distribution of `tables` state `k` decodes with,
    /// and per symbol the state after it; at most [`MAX_STATES`] states.
    pub fn new(tables: &Tables, states: &[(usize, Vec<u16>)]) -> Decoding {
        assert!(
            states.len() <= MAX_STATES,
            "{} decoding states",
            states.len()
        );
        let mut entries = vec![0; states.len() * SCALE as usize];
        for (slots, (t, next)) in entries.chunks_mut(SCALE as usize).zip(states) {
            for (symbol, &after) in next.iter().enumerate() {
                let (freq, cum) = tables.span(*t, symbol as u8);
                for offset in 0..freq {
                    slots[(cum + offset) as usize] =
                        offset | Decoding::base(after.into()) | freq << FREQ_SHIFT;
                }
            }
        }
        Decoding { entries }
    }

    /// Where state `k`'s slots start: how the decoder names it.
    pub fn base(k: usize) -> u32 {
        (k << SCALE_BITS) as u32
    }

    /// The state whose slots start at `base`.
    pub fn state(base: u32) -> usize {
        (base >> SCALE_BITS) as usize
    }
}

/// Frequencies proportional to `counts` (per symbol), each symbol that
/// occurred at least 1, adding up to [`SCALE`]. `None` if nothing occurred.
pub fn quantize(counts: &[u64]) -> Option<Vec<u16>> {
    let total: u64 = counts.iter().sum();
    if total == 0 {
        return None;
    }
    let scale = u64::from(SCALE);
    let mut freqs: Vec<u32> = counts
        .iter()
        .map(|&c| match c {
            0 => 0,
            c => ((c * scale + total / 2) / total).max(1) as u32,
        })
        .collect();
    // Rounding and the floor of 1 leave the sum a little off: the likeliest
    // symbols absorb the difference, where it costs least.
    let mut sum: u32 = freqs.iter().sum();
    while sum > SCALE {
        let largest = (0..freqs.len()).max_by_key(|&i| freqs[i])?;
        freqs[largest] -= 1;
        sum -= 1;
    }
    let largest = (0..freqs.len()).max_by_key(|&i| freqs[i])?;
    freqs[largest] += SCALE - sum;
    Some(freqs.into_iter().map(|f| f as u16).collect())
}

/// The lanes of a stream.
pub const LANES: usize = 2;

/// Codes one stream; symbols go in in exactly the reverse of the order
/// they are decoded in, each with its lane.
pub struct Encoder {
    states: [u32; LANES],
    /// The words, last first.
    out: Vec<u16>,
}

impl Encoder {
    pub fn new() -> Encoder {
        Encoder {
            states: [LOW; LANES],
            out: Vec::new(),
        }
    }

    /// Codes a symbol of frequency `freq` and cumulative frequency `cum`.
    #[inline]
    pub fn put(&mut self, lane: usize, (freq, cum): (u32, u32)) {
        let state = &mut self.states[lane];
        // 2³² for a symbol of the whole scale: in 64 bits.
        let max = u64::from((LOW >> SCALE_BITS) << 16) * u64::from(freq);
        if u64::from(*state) >= max {
            self.out.push(*state as u16);
            *state >>= 16;
        }
        *state = ((*state / freq) << SCALE_BITS) + *state % freq + cum;
    }

    /// Appends the stream to `out`: the final states (4 bytes each, little
    /// endian), then the renormalisation words (little endian) in the
    /// decoder's order.
    pub fn finish(self, out: &mut Vec<u8>) {
        self.states.iter().for_each(|s| out.extend(s.to_le_bytes()));
        out.extend(self.out.iter().rev().flat_map(|w| w.to_le_bytes()));
    }
}

/// Reads one stream.
pub struct Decoder<'a> {
    /// The lanes' states (below 2³²), each a field of 64 bits: two of 32
    /// bits the compiler packs into one register, which chains the lanes.
    first: u64,
    second: u64,
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Decoder<'a> {
    /// `None` if `bytes` cannot start a stream (damage).
    pub fn new(bytes: &'a [u8]) -> Option<Decoder<'a>> {
        let state = |lane: usize| {
            let bytes = bytes.get(4 * lane..4 * lane + 4)?;
            Some(u64::from(u32::from_le_bytes(bytes.try_into().ok()?)))
        };
        let (first, second) = (state(0)?, state(1)?);
        // The encoder never leaves a state below LOW.
        (first >= u64::from(LOW) && second >= u64::from(LOW)).then_some(Decoder {
            first,
            second,
            bytes,
            at: 4 * LANES,
        })
    }

    /// Decodes a symbol of each lane, from the states at `bases` (see
    /// [`Decoding::base`]); returns the states after them. Both lanes'
    /// renormalisation words come from one load made before either is
    /// decoded: the second lane's word is then a select, not a load
    /// waiting on the first lane's.
    #[inline]
    pub fn next_pair(&mut self, decoding: &Decoding, bases: [u32; LANES]) -> [u32; LANES] {
        let words = self.words();
        let (a, low_a) = step(&mut self.first, decoding, bases[0], words & 0xffff);
        let words = words >> (16 * u32::from(low_a));
        let (b, low_b) = step(&mut self.second, decoding, bases[1], words & 0xffff);
        self.at += 2 * (usize::from(low_a) + usize::from(low_b));
        [a, b]
    }

    /// Decodes a symbol of the second lane alone (the last of a stream of
    /// odd length), from the state at `base`; returns the state after it.
    #[inline]
    pub fn next_second(&mut self, decoding: &Decoding, base: u32) -> u32 {
        let word = self.words() & 0xffff;
        let (next, low) = step(&mut self.second, decoding, base, word);
        self.at += 2 * usize::from(low);
        next
    }

    /// The next four bytes as words (little endian), zeros past the end
    /// (damage: `is_complete` says so).
    #[inline]
    fn words(&self) -> u64 {
        match self.bytes.get(self.at..self.at + 8) {
            Some(w) => u64::from_le_bytes(w.try_into().expect("8 bytes")),
            None => {
                let mut tail = [0; 8];
                let rest = self.bytes.get(self.at..).unwrap_or_default();
                tail[..rest.len()].copy_from_slice(rest);
                u64::from_le_bytes(tail)
            }
        }
    }

    /// Whether the stream was read exactly: every byte used and the states
    /// back where the encoder started. A changed byte either changes a
    /// symbol or fails this (decoding is the encoder's inverse), and a
    /// changed symbol fails it too unless the states land on `LOW` by
    /// chance.
    pub fn is_complete(&self) -> bool {
        self.first == u64::from(LOW) && self.second == u64::from(LOW) && self.at == self.bytes.len()
    }
}

/// Decodes a symbol from `state` in the decoding state at `base`,
/// renormalising with `word` if the state drops below LOW; returns the
/// next decoding state and whether it took the word.
#[inline]
fn step(state: &mut u64, decoding: &Decoding, base: u32, word: u64) -> (u32, bool) {
    let slot = (*state & u64::from(SCALE - 1)) as usize;
    let entry = decoding.entries[base as usize + slot];
    // Below 2³² still: the state is, so `state >> SCALE_BITS` times a
    // frequency of at most `SCALE` is too.
    *state =
        u64::from(entry >> FREQ_SHIFT) * (*state >> SCALE_BITS) + u64::from(entry & (SCALE - 1));
    // From at least LOW the state drops to at least 2⁶: one word brings
    // it back, taken by a select rather than a branch.
    let low = *state < u64::from(LOW);
    *state = if low { *state << 16 | word } else { *state };
    (entry & NEXT_MASK, low)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantized_frequencies_add_up_and_keep_every_symbol() {
        let freqs = quantize(&[1_000_000, 1, 0, 3]).unwrap();
        assert_eq!(freqs.iter().map(|&f| u32::from(f)).sum::<u32>(), SCALE);
        assert_eq!((freqs[1], freqs[2], freqs[3]), (1, 0, 1));
        assert_eq!(quantize(&[0, 0]), None);
        assert_eq!(quantize(&[0, 5]), Some(vec![0, SCALE as u16]));
    }

    /// A stream over two distributions, coded and decoded back.
    #[test]
    fn decodes_what_it_encodes_near_the_entropy() {
        let tables = Tables::new(&[
            quantize(&[1, 1, 1, 1]).unwrap(),
            quantize(&[95, 4, 0, 1]).unwrap(),
        ]);
        let mut seed = 12345u32;
        let symbols: Vec<(u8, bool)> = (0..5000)
            .map(|i| {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                let r = (seed >> 16) % 100;
                match i % 2 == 0 {
                    true => ([0, 1, 3][(r >= 95) as usize + (r >= 99) as usize], true),
                    false => ((r % 4) as u8, false),
                }
            })
            .collect();
        // Lanes alternate, as they are decoded.
        let mut encoder = Encoder::new();
        for (i, &(symbol, skew)) in symbols.iter().enumerate().rev() {
            encoder.put(i % LANES, tables.span(skew as usize, symbol));
        }
        let mut bytes = Vec::new();
        encoder.finish(&mut bytes);
        // Half the symbols at about 0.32 bits, half at 2 bits: 725 bytes.
        assert!((725..750).contains(&bytes.len()), "{} bytes", bytes.len());
        // A decoding state per distribution and symbol before (state
        // 4·distribution + symbol), to read the symbols back off the states.
        let states: Vec<(usize, Vec<u16>)> = (0..8)
            .map(|k| (k / 4, (0..4).map(|s| (k / 4 * 4 + s) as u16).collect()))
            .collect();
        let decoding = Decoding::new(&tables, &states);
        let decode = |bytes: &[u8]| {
            let mut decoder = Decoder::new(bytes)?;
            let mut bases = [Decoding::base(4), Decoding::base(0)];
            let same = symbols.chunks(LANES).all(|pair| {
                bases = decoder.next_pair(&decoding, bases);
                bases.map(|b| Decoding::state(b) % 4) == [pair[0].0, pair[1].0].map(usize::from)
            });
            Some(same && decoder.is_complete())
        };
        assert_eq!(decode(&bytes), Some(true));
        for at in [0, 3, 4, bytes.len() / 2, bytes.len() - 1] {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x10;
            assert_ne!(decode(&damaged), Some(true), "byte {at}");
        }
    }
}
