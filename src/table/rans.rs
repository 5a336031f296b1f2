//! Static rANS: 32-bit states renormalised by 16-bit words, as in ryg's
//! `rans_word.h` (a symbol reads at most one word, without a branch: byte
//! renormalisation's unpredictable loop cost more than the rest of the
//! decode), two states interleaved over one stream (each
//! symbol's decode waits on the one before in its lane: two lanes keep the
//! core busy twice as much). The encoder runs backwards over a stream, the
//! decoder forwards. Decoding is table-driven: each distribution has a
//! slot → (symbol, frequency, offset) table, so a symbol costs one load, a
//! multiply and an add, with no search and no division.

/// Frequencies of a distribution add up to `1 << SCALE_BITS`. 10 bits
/// keeps each slot table at 4 KiB: on Awari layer 20, 12 bits (16 KiB)
/// coded 0.4% smaller but decoded half as fast, missing the cache.
pub const SCALE_BITS: u32 = 10;
pub const SCALE: u32 = 1 << SCALE_BITS;
/// Lower bound of the normalised state.
const LOW: u32 = 1 << 16;

/// Distributions as the decoder reads them (and the encoder), back to back
/// so that finding one costs no load.
pub struct Tables {
    /// Per distribution and slot of the scale: the symbol owning it (bits
    /// 0..8), its frequency − 1 (8..20) and the slot's offset in its span
    /// (20..32): 12 bits each hold any scale up to 2¹².
    slots: Vec<u32>,
    /// Per distribution and symbol: frequency (low 16 bits) and cumulative
    /// frequency (high 16), 0 for symbols the distribution lacks.
    spans: Vec<u32>,
}

impl Tables {
    /// The tables of `freqs` (each per symbol, adding up to [`SCALE`]).
    pub fn new(freqs: &[Vec<u16>]) -> Tables {
        let mut slots = vec![0; freqs.len() * SCALE as usize];
        let mut spans = vec![0; freqs.len() * 256];
        for (t, freqs) in freqs.iter().enumerate() {
            let mut cum = 0u32;
            for (symbol, &freq) in freqs.iter().enumerate() {
                let freq = u32::from(freq);
                for offset in 0..freq {
                    slots[t * SCALE as usize + (cum + offset) as usize] =
                        symbol as u32 | (freq - 1) << 8 | offset << 20;
                }
                spans[t * 256 + symbol] = freq | cum << 16;
                cum += freq;
            }
            debug_assert_eq!(cum, SCALE);
        }
        Tables { slots, spans }
    }

    /// Number of distributions.
    pub fn len(&self) -> usize {
        self.spans.len() / 256
    }

    /// Frequency and cumulative frequency of `symbol` in distribution `t`,
    /// for the encoder.
    pub fn span(&self, t: usize, symbol: u8) -> (u32, u32) {
        let packed = self.spans[t * 256 + usize::from(symbol)];
        (packed & 0xffff, packed >> 16)
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
    states: [u32; LANES],
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Decoder<'a> {
    /// `None` if `bytes` cannot start a stream (damage).
    pub fn new(bytes: &'a [u8]) -> Option<Decoder<'a>> {
        let mut states = [0; LANES];
        for (lane, state) in states.iter_mut().enumerate() {
            *state = u32::from_le_bytes(bytes.get(4 * lane..4 * lane + 4)?.try_into().ok()?);
        }
        // The encoder never leaves a state below LOW.
        states.iter().all(|&s| s >= LOW).then_some(Decoder {
            states,
            bytes,
            at: 4 * LANES,
        })
    }

    /// The next symbol of `lane` under distribution `t` of `tables`.
    #[inline]
    pub fn next(&mut self, lane: usize, tables: &Tables, t: usize) -> u8 {
        let state = &mut self.states[lane];
        let entry = tables.slots[t * SCALE as usize + (*state & (SCALE - 1)) as usize];
        let freq = (entry >> 8 & 0xfff) + 1;
        // No overflow: the state is below 2³², so `state >> SCALE_BITS`
        // times a frequency of at most `SCALE` is too.
        *state = freq * (*state >> SCALE_BITS) + (entry >> 20);
        // From at least LOW the state drops to at least 2⁶: one word
        // brings it back. Read whether needed or not, used by a select.
        // Past the end (damage) reads zeros; `is_complete` says so.
        let word = match self.bytes.get(self.at..self.at + 2) {
            Some(w) => u32::from(u16::from_le_bytes([w[0], w[1]])),
            None => 0,
        };
        let low = *state < LOW;
        *state = if low { *state << 16 | word } else { *state };
        self.at += 2 * usize::from(low);
        entry as u8
    }

    /// Whether the stream was read exactly: every byte used and the states
    /// back where the encoder started. A changed byte either changes a
    /// symbol or fails this (decoding is the encoder's inverse), and a
    /// changed symbol fails it too unless the states land on `LOW` by
    /// chance.
    pub fn is_complete(&self) -> bool {
        self.states.iter().all(|&s| s == LOW) && self.at == self.bytes.len()
    }
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
        let decode = |bytes: &[u8]| {
            let mut decoder = Decoder::new(bytes)?;
            let same = (symbols.iter().enumerate()).all(|(i, &(symbol, skew))| {
                decoder.next(i % LANES, &tables, skew as usize) == symbol
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
