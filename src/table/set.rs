//! One column set's placements as a table stores them, in one of two forms, and how many
//! of them a partial board leaves room for.
//!
//! - **Entries**: the placements' two signatures in blocks of [`PAD`], the block's `l` then
//!   its `r` (unused places all ones): a count tests every placement against the board's
//!   diagonals, sixteen or eight at a time in vector lanes, reading the set front to back.
//! - **Planes**: for each diagonal a placement may use, one bit per placement (a word of 64
//!   placements at a time): a count ORs the planes of the diagonals the partial board
//!   attacks and counts what is left. Dearer to make, but a count reads two bits per
//!   diagonal attacked per 64 placements instead of 64 bits a placement, so large sets
//!   are kept so.
//!
//! A set is a run of `u64` words: two header words, then its data.

use super::Entry;

/// Placements per group of an entries set: the widest lanes' count, so that they read
/// whole groups.
pub const PAD: usize = 16;
/// Header words before a set's data.
pub const HEADER: usize = 2;

/// How a set is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    Entries,
    Planes,
}

/// A stored set, read from its words.
#[derive(Clone, Copy)]
pub struct Set<'a> {
    /// Its placements.
    pub len: usize,
    pub form: Form,
    /// Planes: the lowest `l` diagonal with a plane and how many follow, the same for `r`,
    /// and the words of each plane.
    pub l_min: u32,
    pub l_span: u32,
    pub r_min: u32,
    pub r_span: u32,
    pub words: usize,
    /// The words after the header.
    pub data: &'a [u64],
}

impl<'a> Set<'a> {
    /// The set whose words start at `words[0]` (two header words, then the data).
    pub fn read(words: &'a [u64]) -> Set<'a> {
        let (h0, h1) = (words[0], words[1]);
        let byte = |i: u32| (h1 >> (8 * i) & 0xff) as u32;
        Set {
            len: (h0 & 0xffff_ffff) as usize,
            form: form_of(h1),
            l_min: byte(0),
            l_span: byte(1),
            r_min: byte(2),
            r_span: byte(3),
            words: (h0 >> 32) as usize,
            data: &words[HEADER..HEADER + data_words(h0, h1)],
        }
    }

    /// The set stored from `at` on.
    ///
    /// # Safety
    /// `at` must point at a whole set (see [`write`]) that lives for `'a` and is not
    /// written meanwhile.
    #[inline(always)]
    pub unsafe fn at(at: *const u64) -> Set<'a> {
        let (h0, h1) = (*at, *at.add(1));
        Set::read(std::slice::from_raw_parts(at, HEADER + data_words(h0, h1)))
    }

    /// The blocks of an entries set: [`PAD`] `l` signatures, then their `r`.
    pub fn blocks(&self) -> &'a [u32] {
        // SAFETY: u64 words hold two u32 each, at a u64's alignment, which suits u32.
        unsafe { std::slice::from_raw_parts(self.data.as_ptr().cast::<u32>(), self.data.len() * 2) }
    }

    /// Placement `i` of an entries set.
    #[inline(always)]
    pub fn entry(&self, i: usize) -> Entry {
        let block = &self.blocks()[i / PAD * 2 * PAD..];
        Entry { l: block[i % PAD], r: block[PAD + i % PAD] }
    }

    /// The diagonals a partial board with `ld` and `rd` attacks that have a plane: bit `i`
    /// of the first for the `i`-th `l` plane, of the second for the `i`-th `r` plane.
    #[inline(always)]
    pub fn attacked(&self, ld: u32, rd: u32) -> (u64, u64) {
        let mask = |span: u32| (1u64 << span) - 1;
        (u64::from(ld >> self.l_min) & mask(self.l_span), u64::from(rd >> self.r_min) & mask(self.r_span))
    }

    /// How many of the placements a partial board whose diagonals attack `ld` and `rd` on
    /// the band's top row leaves room for, one word at a time.
    pub fn count(&self, ld: u32, rd: u32) -> u32 {
        match self.form {
            Form::Entries => (0..self.len).map(|i| self.entry(i)).map(|e| u32::from((e.l & ld) | (e.r & rd) == 0)).sum(),
            Form::Planes => {
                let mut planes = [0usize; 64];
                let used = self.selected(ld, rd, &mut planes);
                // Eight words at a time, each plane's run of them ORed in whole.
                let mut bad = 0;
                for w in (0..self.words).step_by(8) {
                    let width = (self.words - w).min(8);
                    let mut acc = [0u64; 8];
                    for &p in &planes[..used] {
                        for (a, x) in acc.iter_mut().zip(&self.data[p + w..p + w + width]) {
                            *a |= x;
                        }
                    }
                    bad += acc.iter().map(|a| a.count_ones()).sum::<u32>();
                }
                self.len as u32 - bad
            }
        }
    }

    /// Writes the offsets of the planes of the diagonals `ld` and `rd` attack into
    /// `planes`, returning how many.
    #[inline(always)]
    pub fn selected(&self, ld: u32, rd: u32, planes: &mut [usize; 64]) -> usize {
        let (mut l, mut r) = self.attacked(ld, rd);
        let mut used = 0;
        while l != 0 {
            planes[used] = l.trailing_zeros() as usize * self.words;
            l &= l - 1;
            used += 1;
        }
        while r != 0 {
            planes[used] = (self.l_span as usize + r.trailing_zeros() as usize) * self.words;
            r &= r - 1;
            used += 1;
        }
        used
    }
}

/// The form a set's second header word says.
#[inline(always)]
fn form_of(h1: u64) -> Form {
    if h1 >> 32 & 1 == 1 {
        Form::Planes
    } else {
        Form::Entries
    }
}

/// The data words of a set with header words `h0` and `h1`.
#[inline(always)]
fn data_words(h0: u64, h1: u64) -> usize {
    let len = (h0 & 0xffff_ffff) as usize;
    match form_of(h1) {
        Form::Entries => len.div_ceil(PAD) * PAD,
        Form::Planes => ((h1 >> 8 & 0xff) + (h1 >> 24 & 0xff)) as usize * (h0 >> 32) as usize,
    }
}

/// The words of each plane of a set of `len` placements: one per 64 placements, and past
/// eight a whole number of eights, so that the widest lanes read whole aligned lines.
pub fn plane_words(len: usize) -> usize {
    let words = len.div_ceil(64).max(1);
    if words <= 8 {
        words
    } else {
        words.div_ceil(8) * 8
    }
}

/// The words a set of `len` placements takes in `form`, with `spans` planes (`l` and `r`
/// together) for the planes.
pub fn words(len: usize, form: Form, spans: usize) -> usize {
    HEADER
        + match form {
            Form::Entries => len.div_ceil(PAD) * PAD,
            Form::Planes => spans * plane_words(len),
        }
}

/// The diagonals `entries` use: the lowest `l` and how many up to the highest, the same
/// for `r`.
pub fn spans(entries: &[Entry]) -> (u32, u32, u32, u32) {
    let (l, r) = entries.iter().fold((0u32, 0u32), |(l, r), e| (l | e.l, r | e.r));
    let span = |m: u32| if m == 0 { (0, 0) } else { (m.trailing_zeros(), 32 - m.leading_zeros() - m.trailing_zeros()) };
    let ((l_min, l_span), (r_min, r_span)) = (span(l), span(r));
    (l_min, l_span, r_min, r_span)
}

/// Writes `entries` in `form` into `out` (of [`words`] words).
pub fn write(entries: &[Entry], form: Form, out: &mut [u64]) {
    let len = entries.len();
    let (l_min, l_span, r_min, r_span) = spans(entries);
    let per = match form {
        Form::Entries => 0,
        Form::Planes => plane_words(len),
    };
    out[0] = len as u64 | (per as u64) << 32;
    let form_bit = u64::from(form == Form::Planes) << 32;
    out[1] = u64::from(l_min) | u64::from(l_span) << 8 | u64::from(r_min) << 16 | u64::from(r_span) << 24 | form_bit;
    let data = &mut out[HEADER..];
    data.fill(0);
    match form {
        Form::Entries => {
            // SAFETY: as in `Set::blocks`, writing.
            let out = unsafe { std::slice::from_raw_parts_mut(data.as_mut_ptr().cast::<u32>(), data.len() * 2) };
            out.fill(u32::MAX);
            for (i, e) in entries.iter().enumerate() {
                let block = i / PAD * 2 * PAD;
                out[block + i % PAD] = e.l;
                out[block + PAD + i % PAD] = e.r;
            }
        }
        Form::Planes => planes(entries, (l_min, l_span, r_min), per, data),
    }
}

/// The planes of `entries`, 64 placements at a time: each one's signatures, `l` from
/// `l_min` in the low bits and `r` from `r_min` above them, as a row of a 64 by 64 bit
/// matrix whose transpose holds one word of every plane.
fn planes(entries: &[Entry], (l_min, l_span, r_min): (u32, u32, u32), per: usize, data: &mut [u64]) {
    let spans = data.len() / per;
    for (w, chunk) in entries.chunks(64).enumerate() {
        let mut m = [0u64; 64];
        for (row, e) in m.iter_mut().zip(chunk) {
            *row = u64::from(e.l >> l_min) | u64::from(e.r >> r_min) << l_span;
        }
        transpose(&mut m);
        for (p, &bits) in m.iter().enumerate().take(spans) {
            data[p * per + w] = bits;
        }
    }
}

/// Transposes a 64 by 64 bit matrix: bit `j` of row `i` becomes bit `i` of row `j`.
fn transpose(m: &mut [u64; 64]) {
    let mut width = 32;
    let mut mask = 0x0000_0000_ffff_ffffu64;
    while width != 0 {
        let mut k = 0;
        while k < 64 {
            for i in k..k + width {
                let t = ((m[i] >> width) ^ m[i + width]) & mask;
                m[i] ^= t << width;
                m[i + width] ^= t;
            }
            k += 2 * width;
        }
        width >>= 1;
        mask ^= mask << width;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_transpose_swaps_rows_and_columns() {
        let mut rng = crate::rng::Rng::new(2);
        let original: [u64; 64] = std::array::from_fn(|_| rng.below(u64::MAX));
        let mut m = original;
        transpose(&mut m);
        for (i, row) in original.iter().enumerate() {
            for (j, column) in m.iter().enumerate() {
                assert_eq!(column >> i & 1, row >> j & 1);
            }
        }
    }

    #[test]
    fn both_forms_count_what_each_placement_says() {
        let mut rng = crate::rng::Rng::new(3);
        for len in [0, 1, 15, 16, 17, 64, 65, 200] {
            let entries: Vec<Entry> =
                (0..len).map(|_| Entry { l: rng.below(1 << 20) as u32 & 0xfff0, r: rng.below(1 << 12) as u32 }).collect();
            for form in [Form::Entries, Form::Planes] {
                let (_, l_span, _, r_span) = spans(&entries);
                let mut words_ = vec![0u64; words(len, form, (l_span + r_span) as usize)];
                write(&entries, form, &mut words_);
                let set = Set::read(&words_);
                assert_eq!((set.len, set.form), (len, form));
                for _ in 0..50 {
                    let (ld, rd) = (rng.below(1 << 32) as u32, rng.below(1 << 32) as u32);
                    let want = entries.iter().filter(|e| e.l & ld == 0 && e.r & rd == 0).count() as u32;
                    assert_eq!(set.count(ld, rd), want, "len={len} {form:?}");
                }
            }
        }
    }
}
