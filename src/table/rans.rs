//! Static rANS: 32-bit states renormalised by 16-bit words, as in ryg's
//! `rans_word.h` (a symbol reads at most one word, without a branch: byte
//! renormalisation's unpredictable loop cost more than the rest of the
//! decode), two or four states interleaved over one stream (each symbol's
//! decode waits on the one before in its lane: more lanes keep the core
//! busy, and a value halfway down a stream waits on fewer symbols before
//! it). The encoder runs backwards over a stream, the
//! decoder forwards. Decoding is table-driven: each decoding state (a
//! distribution, and the state each of its symbols leads to) has a slot →
//! (next state, frequency, offset) table, so a symbol costs one load, a
//! multiply and an add, with no search and no division, and the next
//! symbol's table is known without a further load.
//!
//! A lane's encoder starts at 2¹⁶ (codings 1 to 3), whose 16 bits carry
//! nothing, or (coding 4) lower, with a tail: the lane's last symbols,
//! coded first, without renormalising (see [`tail_start`]). The decoder
//! then reads no word in the tail's steps ([`Decoder::next_quiet`]).

/// Frequencies of a distribution add up to `1 << scale_bits`, at most
/// `1 << MAX_SCALE_BITS`; the decoder's slot tables take 4 bytes a slot.
/// On Awari layer 20, 12 bits (16 KiB a table) coded 0.4% smaller than 10
/// but decoded half as fast, missing the cache; 9 bits (2 KiB) coded 0.75%
/// larger than 10 and halved the time of a probe deep in a stream (its
/// tables stay in the L2 cache); 8 bits coded 2.8% larger and was no
/// faster.
pub const MAX_SCALE_BITS: u32 = 10;
/// Lower bound of the normalised state.
const STATE_LOW: u32 = 1 << 16;

/// A decoder's step: before a lane's tail, reading a word when its state
/// drops below [`STATE_LOW`]; in the tail, quiet (its encoder never renormalised
/// there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Reading,
    Quiet,
}

/// Which symbols a distribution's slots go to first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlotOrder {
    /// In increasing symbol order (codings 1 to 3).
    BySymbol,
    /// The likeliest first (coding 4): from a small state (a tail's), a
    /// symbol costs about as many bits as where its slots start, so the
    /// likely symbols cost least there.
    ByFrequency,
}

/// Distributions as the encoder reads them, back to back.
pub struct Tables {
    /// Per distribution and symbol: frequency (low 16 bits) and cumulative
    /// frequency (high 16), 0 for symbols the distribution lacks.
    spans: Vec<u32>,
}

impl Tables {
    /// The tables of `freqs` (each per symbol, all adding up to one scale),
    /// each distribution's slots going to its symbols in `slots` order.
    pub fn new(freqs: &[Vec<u16>], slots: SlotOrder) -> Tables {
        let mut spans = vec![0; freqs.len() * 256];
        for (t, freqs) in freqs.iter().enumerate() {
            let mut cum = 0u32;
            let mut order: Vec<usize> = (0..freqs.len()).collect();
            if slots == SlotOrder::ByFrequency {
                // Stable: ties stay in symbol order.
                order.sort_by_key(|&symbol| std::cmp::Reverse(freqs[symbol]));
            }
            for symbol in order {
                let freq = u32::from(freqs[symbol]);
                spans[t * 256 + symbol] = freq | cum << 16;
                cum += freq;
            }
            debug_assert!(cum.is_power_of_two() && cum <= 1 << MAX_SCALE_BITS);
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
/// Most decoding states: at the largest scale, their numbers fit between
/// an entry's offset and frequency.
pub const MAX_STATES: usize = 1 << (FREQ_SHIFT - MAX_SCALE_BITS);

/// The decoder's tables. A decoding state is a distribution together with
/// the state that follows each of its symbols; per state and slot of the
/// scale, one entry holds the slot's offset in its span (bits
/// 0..scale_bits), the next state as where its slots start
/// (scale_bits..FREQ_SHIFT) and the frequency (FREQ_SHIFT..32). Finding
/// the next symbol's distribution then costs no load beyond the entry's:
/// the load that would wait on the symbol is off the critical path.
pub struct Decoding {
    entries: Vec<u32>,
    scale_bits: u32,
}

impl Decoding {
    /// `states[k]`: the distribution of `tables` (at the scale of
    /// `scale_bits`) state `k` decodes with, and per symbol the state after
    /// it; at most [`MAX_STATES`] states.
    pub fn new(tables: &Tables, states: &[(usize, Vec<u16>)], scale_bits: u32) -> Decoding {
        assert!(scale_bits <= MAX_SCALE_BITS, "a scale of {scale_bits} bits");
        assert!(
            states.len() <= MAX_STATES,
            "{} decoding states",
            states.len()
        );
        let mut decoding = Decoding {
            entries: vec![0; states.len() << scale_bits],
            scale_bits,
        };
        let bases: Vec<u32> = (0..states.len()).map(|k| decoding.base(k)).collect();
        for (slots, (t, next)) in decoding.entries.chunks_mut(1 << scale_bits).zip(states) {
            for (symbol, &after) in next.iter().enumerate() {
                let (freq, cum) = tables.span(*t, symbol as u8);
                for offset in 0..freq {
                    slots[(cum + offset) as usize] =
                        offset | bases[usize::from(after)] | freq << FREQ_SHIFT;
                }
            }
        }
        decoding
    }

    /// Where state `k`'s slots start: how the decoder names it.
    pub fn base(&self, k: usize) -> u32 {
        (k << self.scale_bits) as u32
    }

    /// The state whose slots start at `base`.
    pub fn state(&self, base: u32) -> usize {
        (base >> self.scale_bits) as usize
    }
}

/// Frequencies proportional to `counts` (per symbol), each symbol that
/// occurred at least 1, adding up to `1 << scale_bits`. `None` if nothing
/// occurred, or more symbols did than the scale has slots.
pub fn quantize(counts: &[u64], scale_bits: u32) -> Option<Vec<u16>> {
    let total: u64 = counts.iter().sum();
    let scale = 1u64 << scale_bits;
    if total == 0 || counts.iter().filter(|&&c| c > 0).count() as u64 > scale {
        return None;
    }
    let mut freqs: Vec<u32> = counts
        .iter()
        .map(|&c| match c {
            0 => 0,
            c => ((c * scale + total / 2) / total).max(1) as u32,
        })
        .collect();
    // Rounding and the floor of 1 leave the sum a little off: the likeliest
    // symbols absorb the difference, where it costs least.
    let scale = scale as u32;
    let mut sum: u32 = freqs.iter().sum();
    while sum > scale {
        let largest = (0..freqs.len()).max_by_key(|&i| freqs[i])?;
        freqs[largest] -= 1;
        sum -= 1;
    }
    let largest = (0..freqs.len()).max_by_key(|&i| freqs[i])?;
    freqs[largest] += scale - sum;
    Some(freqs.into_iter().map(|f| f as u16).collect())
}

/// Most lanes a stream can have: one 8-byte load holds the words all of
/// them can take in one step.
pub const MAX_LANES: usize = 4;

/// Codes one stream; symbols go in in exactly the reverse of the order
/// they are decoded in, each with its lane.
pub struct Encoder {
    states: Vec<u32>,
    scale_bits: u32,
    /// The words, last first.
    out: Vec<u16>,
}

impl Encoder {
    /// An encoder of a stream of `lanes` lanes (at most [`MAX_LANES`]),
    /// with frequencies at the scale of `scale_bits`.
    pub fn new(lanes: usize, scale_bits: u32) -> Encoder {
        Encoder::starting_at(vec![STATE_LOW; lanes], scale_bits)
    }

    /// As [`Encoder::new`], the lanes starting at `states` (from
    /// [`tail_start`]).
    pub fn starting_at(states: Vec<u32>, scale_bits: u32) -> Encoder {
        let lanes = states.len();
        assert!((1..=MAX_LANES).contains(&lanes), "{lanes} lanes");
        Encoder {
            states,
            scale_bits,
            out: Vec::new(),
        }
    }

    /// Codes a symbol of frequency `freq` and cumulative frequency `cum`.
    #[inline]
    pub fn put(&mut self, lane: usize, (freq, cum): (u32, u32)) {
        let state = &mut self.states[lane];
        // 2³² for a symbol of the whole scale: in 64 bits.
        let max = u64::from((STATE_LOW >> self.scale_bits) << 16) * u64::from(freq);
        if u64::from(*state) >= max {
            self.out.push(*state as u16);
            *state >>= 16;
        }
        *state = ((*state / freq) << self.scale_bits) + *state % freq + cum;
    }

    /// Codes a symbol of a lane's tail: no renormalisation (its start,
    /// from [`tail_start`], keeps the state within 32 bits).
    #[inline]
    pub fn put_quiet(&mut self, lane: usize, span: (u32, u32)) {
        let state = &mut self.states[lane];
        *state = u32::try_from(code(u64::from(*state), span, self.scale_bits))
            .expect("a tail that fits, as tail_start found");
    }

    /// Appends the stream to `out`: the final states (4 bytes each, little
    /// endian), then the renormalisation words (little endian) in the
    /// decoder's order.
    pub fn finish(self, out: &mut Vec<u8>) {
        self.states.iter().for_each(|s| out.extend(s.to_le_bytes()));
        out.extend(self.out.iter().rev().flat_map(|w| w.to_le_bytes()));
    }
}

/// The state after coding a symbol of span `(freq, cum)` into `state`,
/// without renormalising.
fn code(state: u64, (freq, cum): (u32, u32), scale_bits: u32) -> u64 {
    let freq = u64::from(freq);
    ((state / freq) << scale_bits) + state % freq + u64::from(cum)
}

/// The least state that [`code`] takes to `target` or above.
fn least_coding_to(target: u64, (freq, cum): (u32, u32), scale_bits: u32) -> u64 {
    let (freq, cum) = (u64::from(freq), u64::from(cum));
    let (high, slot) = (target >> scale_bits, target & ((1 << scale_bits) - 1));
    match slot {
        s if s < cum => high * freq,
        s if s < cum + freq => high * freq + s - cum,
        _ => (high + 1) * freq,
    }
}

/// Where a lane starts (its spans in the decoder's order) whose values
/// from `from` on are its tail, coded first (the last first) without
/// renormalising: the least state (at least 1) from which they lead to
/// 2¹⁶ or above, where renormalised coding takes over, or 1 when they
/// are the whole lane. Its bits are what the lane wastes (16 for a lane
/// without a tail, which starts at 2¹⁶). `None` if the state would
/// outgrow 32 bits in the tail.
pub fn tail_start(lane: &[(u32, u32)], from: usize, scale_bits: u32) -> Option<u32> {
    let tail = &lane[from.min(lane.len())..];
    let least = match tail.len() == lane.len() {
        true => 1,
        false => (tail.iter())
            .fold(u64::from(STATE_LOW), |target, &span| {
                least_coding_to(target, span, scale_bits)
            })
            .max(1),
    };
    let end = tail.iter().rev().try_fold(least, |state, &span| {
        Some(code(state, span, scale_bits)).filter(|&s| s <= u64::from(u32::MAX))
    })?;
    debug_assert!(tail.len() == lane.len() || end >= u64::from(STATE_LOW));
    u32::try_from(least).ok()
}

/// How many of a lane's last values (its spans in the decoder's order)
/// it codes from 1 before its state reaches 2¹⁶ (its tail, if it starts
/// at 1), and how many before it would outgrow 32 bits (its longest tail
/// from 1).
pub fn tails_from_one(lane: &[(u32, u32)], scale_bits: u32) -> (usize, usize) {
    let (mut state, mut reach) = (1, None);
    for (coded, &span) in lane.iter().rev().enumerate() {
        if state >= u64::from(STATE_LOW) && reach.is_none() {
            reach = Some(coded);
        }
        state = code(state, span, scale_bits);
        if state > u64::from(u32::MAX) {
            return (reach.unwrap_or(coded), coded);
        }
    }
    (reach.unwrap_or(lane.len()), lane.len())
}

/// Reads one stream of `N` lanes.
pub struct Decoder<'a, const N: usize> {
    /// The lanes' states (below 2³²), each held in 64 bits: as 32-bit
    /// fields the compiler would pack two to a register, which chains the
    /// lanes.
    states: [u64; N],
    bytes: &'a [u8],
    at: usize,
}

impl<'a, const N: usize> Decoder<'a, N> {
    /// `None` if `bytes` are too short to start a stream (damage). (A
    /// damaged state decodes to some symbols; the stream's end or its CRC
    /// catches it.)
    pub fn new(bytes: &'a [u8]) -> Option<Decoder<'a, N>> {
        const { assert!(N >= 1 && N <= MAX_LANES) };
        let mut states = [0; N];
        for (lane, state) in states.iter_mut().enumerate() {
            let bytes = bytes.get(4 * lane..4 * lane + 4)?;
            *state = u64::from(u32::from_le_bytes(bytes.try_into().ok()?));
        }
        Some(Decoder {
            states,
            bytes,
            at: 4 * N,
        })
    }

    /// Decodes a symbol of each lane, from the states at `bases` (see
    /// [`Decoding::base`]); returns the states after them. Every lane's
    /// renormalisation word comes from one load made before any is
    /// decoded: a later lane's word is then a shift, not a load waiting
    /// on the lanes before it.
    #[inline]
    pub fn next(&mut self, decoding: &Decoding, bases: [u32; N]) -> [u32; N] {
        self.advance::<true>(decoding, bases)
    }

    /// [`Decoder::next`] in the lanes' tails: no words read.
    #[inline]
    pub fn next_quiet(&mut self, decoding: &Decoding, bases: [u32; N]) -> [u32; N] {
        self.advance::<false>(decoding, bases)
    }

    #[inline]
    fn advance<const READS: bool>(&mut self, decoding: &Decoding, bases: [u32; N]) -> [u32; N] {
        let mut words = if READS { self.words() } else { 0 };
        let mut taken = 0;
        let mut next = [0; N];
        for lane in 0..N {
            let low;
            (next[lane], low) = step::<READS>(
                &mut self.states[lane],
                decoding,
                bases[lane],
                words & 0xffff,
            );
            words >>= 16 * u32::from(low);
            taken += usize::from(low);
        }
        self.at += 2 * taken;
        next
    }

    /// Decodes a symbol of `lane` alone (in a stream's last step, where
    /// only its longer lanes have one), from the state at `base`; returns
    /// the state after it.
    #[inline]
    pub fn next_in(&mut self, lane: usize, decoding: &Decoding, base: u32, kind: Step) -> u32 {
        let (next, low) = match kind {
            Step::Quiet => step::<false>(&mut self.states[lane], decoding, base, 0),
            Step::Reading => {
                let word = self.words() & 0xffff;
                step::<true>(&mut self.states[lane], decoding, base, word)
            }
        };
        self.at += 2 * usize::from(low);
        next
    }

    /// The next four words (little endian), zeros past the end (damage:
    /// `is_complete` says so).
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

    /// Whether the stream was read exactly: every byte used and (`at_low`:
    /// for lanes that start at 2¹⁶) the states back where the encoder
    /// started. A changed byte either changes a symbol or fails this
    /// (decoding is the encoder's inverse), and a changed symbol fails it
    /// too unless the states land on `STATE_LOW` by chance. Lanes with tails
    /// start where their symbols say: only the bytes used are checked.
    pub fn is_complete(&self, at_low: bool) -> bool {
        let back = !at_low || self.states.iter().all(|&s| s == u64::from(STATE_LOW));
        back && self.at == self.bytes.len()
    }
}

/// Decodes a symbol from `state` in the decoding state at `base`,
/// renormalising with `word` if the state drops below STATE_LOW (and `READS`:
/// not in a tail); returns the next decoding state and whether it took
/// the word.
#[inline]
fn step<const READS: bool>(
    state: &mut u64,
    decoding: &Decoding,
    base: u32,
    word: u64,
) -> (u32, bool) {
    let bits = decoding.scale_bits;
    let slots = (1u32 << bits) - 1;
    let slot = (*state & u64::from(slots)) as usize;
    let entry = decoding.entries[base as usize + slot];
    // Below 2³² still: the state is, so `state >> bits` times a frequency
    // of at most `1 << bits` is too.
    *state = u64::from(entry >> FREQ_SHIFT) * (*state >> bits) + u64::from(entry & slots);
    // From at least STATE_LOW the state drops to at least 2⁶: one word brings
    // it back, taken by a select rather than a branch.
    let low = READS && *state < u64::from(STATE_LOW);
    *state = if low { *state << 16 | word } else { *state };
    // The next state: the bits between the offset and the frequency.
    (entry & ((1 << FREQ_SHIFT) - 1) & !slots, low)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tail_starts_at_the_least_state_that_reaches_low() {
        let freqs = quantize(&[90, 7, 2, 1], 9).unwrap();
        let tables = Tables::new(&[freqs], SlotOrder::ByFrequency);
        // A lane in the decoder's order; the tail codes its last first.
        let lane: Vec<(u32, u32)> = [0, 2, 0, 1, 0, 1, 0].map(|s| tables.span(0, s)).to_vec();
        let end = |start: u64| {
            lane[2..]
                .iter()
                .rev()
                .fold(start, |x, &span| code(x, span, 9))
        };
        let least = u64::from(tail_start(&lane, 2, 9).unwrap());
        assert!(least > 1 && end(least) >= u64::from(STATE_LOW));
        assert!(end(least - 1) < u64::from(STATE_LOW));
        assert_eq!(tail_start(&lane, 0, 9), Some(1), "a whole lane starts at 1");
        assert_eq!(tail_start(&lane, 7, 9), Some(STATE_LOW), "no tail");
        // Its last six take the state from 1 to 2¹⁶; all seven fit 32 bits.
        assert_eq!(tails_from_one(&lane, 9), (6, 7));
        assert_eq!(tail_start(&lane, 1, 9), Some(1));
        // The least likely symbol, about 6.7 bits (its slots start at 507).
        assert_eq!(tails_from_one(&[tables.span(0, 3); 10], 9), (3, 4));
        assert_eq!(tail_start(&[tables.span(0, 3); 10], 5, 9), None);
    }

    #[test]
    fn quantized_frequencies_add_up_and_keep_every_symbol() {
        for bits in [9, 10] {
            let freqs = quantize(&[1_000_000, 1, 0, 3], bits).unwrap();
            assert_eq!(freqs.iter().map(|&f| u32::from(f)).sum::<u32>(), 1 << bits);
            assert_eq!((freqs[1], freqs[2], freqs[3]), (1, 0, 1));
            assert_eq!(quantize(&[0, 0], bits), None);
            assert_eq!(quantize(&[0, 5], bits), Some(vec![0, 1 << bits]));
        }
        assert_eq!(quantize(&[1; 5], 2), None, "5 symbols, 4 slots");
    }

    /// A stream over two distributions, coded and decoded back, at both
    /// scales the codings use.
    #[test]
    fn decodes_what_it_encodes_near_the_entropy() {
        for bits in [9, 10] {
            decodes_near_the_entropy(bits);
        }
    }

    fn decodes_near_the_entropy(bits: u32) {
        let tables = Tables::new(
            &[
                quantize(&[1, 1, 1, 1], bits).unwrap(),
                quantize(&[95, 4, 0, 1], bits).unwrap(),
            ],
            SlotOrder::BySymbol,
        );
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
        let mut encoder = Encoder::new(2, bits);
        for (i, &(symbol, skew)) in symbols.iter().enumerate().rev() {
            encoder.put(i % 2, tables.span(skew as usize, symbol));
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
        let decoding = Decoding::new(&tables, &states, bits);
        let decode = |bytes: &[u8]| {
            let mut decoder = Decoder::<2>::new(bytes)?;
            let mut bases = [decoding.base(4), decoding.base(0)];
            let same = symbols.chunks(2).all(|pair| {
                bases = decoder.next(&decoding, bases);
                bases.map(|b| decoding.state(b) % 4) == [pair[0].0, pair[1].0].map(usize::from)
            });
            Some(same && decoder.is_complete(true))
        };
        assert_eq!(decode(&bytes), Some(true));
        for at in [0, 3, 4, bytes.len() / 2, bytes.len() - 1] {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x10;
            assert_ne!(decode(&damaged), Some(true), "byte {at}");
        }
    }
}
