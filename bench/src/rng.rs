//! Deterministic randomness: a small generator and Zipf-weighted word lists,
//! so that one seed always yields the same corpora and queries.

/// SplitMix64: tiny, fast, and the same sequence on every platform.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator started from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform integer in `0..n`; `n` must not be 0.
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// A uniform integer in `low..=high`.
    pub fn between(&mut self, low: usize, high: usize) -> usize {
        low + self.below(high - low + 1)
    }

    /// A uniform float in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// A uniformly chosen element of a non-empty slice.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// A word list drawn with Zipf frequencies: the k-th entry (counting from 1)
/// has weight 1/k^s, so the list is written most frequent first.
#[derive(Debug, Clone)]
pub struct Zipf {
    words: Vec<&'static str>,
    cumulative: Vec<f64>,
}

impl Zipf {
    /// The white-space separated entries of `list`, with exponent `s`.
    pub fn new(list: &'static str, s: f64) -> Zipf {
        Zipf::from_words(list.split_whitespace().collect(), s)
    }

    /// `words`, most frequent first, with exponent `s`.
    pub fn from_words(words: Vec<&'static str>, s: f64) -> Zipf {
        assert!(!words.is_empty(), "empty word list");
        let mut total = 0.0;
        let cumulative = (1..=words.len())
            .map(|rank| {
                total += (rank as f64).powf(-s);
                total
            })
            .collect();
        Zipf { words, cumulative }
    }

    /// One entry, drawn with its Zipf weight.
    pub fn sample(&self, rng: &mut Rng) -> &'static str {
        let total = self.cumulative[self.cumulative.len() - 1];
        let x = rng.unit() * total;
        let i = self.cumulative.partition_point(|&c| c <= x);
        self.words[i.min(self.words.len() - 1)]
    }

    /// One entry other than `previous`, so that no word directly repeats.
    pub fn sample_other(&self, rng: &mut Rng, previous: &str) -> &'static str {
        loop {
            let word = self.sample(rng);
            if word != previous || self.words.len() == 1 {
                return word;
            }
        }
    }
}
