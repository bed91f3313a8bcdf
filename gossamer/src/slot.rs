//! The request/response slot format: one encoder and one decoder for both.
//!
//! A slot is `S` bytes (default 1024, a multiple of 64, at least 256). Everything a
//! batch carries sits at the *end* of the slot, so that a transport only has to copy
//! the used tail and the ready word lands last (dissertation §4.6):
//!
//! ```text
//!  0                 data_start              S-64        S-32     S-24    S-16  S-8   S
//!  | unused          | records ...           | cache[4]  | dstart | ncache | aux | seq |
//!                                                        | count  | flags  |     |     |
//! ```
//!
//! Header fields, as byte offsets from the slot end (all little-endian host order):
//! - `S-64..S-32`: code-pointer cache, 4 x u64 (request slots only);
//! - `S-32`: `data_start: u32`, offset of the first record byte; `S-28`: `count: u32`;
//! - `S-24`: `n_cache: u32`; `S-20`: `flags: u32` ([`flags`]);
//! - `S-16`: `aux: u64` (total byte length of a chunked request or response);
//! - `S-8`: `seq: u64`, the ready word: a new value means a new batch. Written last,
//!   with release ordering, by the transport.
//!
//! Records are 8-byte aligned and padded to 8 bytes, and `data_start` is a multiple
//! of 8, so plain-old-data payloads are aligned in slot memory.
//!
//! A request record: `code: u64` (an index `< 4` into the cache, or the full address
//! of a monomorphised trampoline), `prop: u64` (property address on the trustee, or a
//! token for internal requests), the closure's captured bytes (its `size_of`, padded),
//! then, for requests with a payload, `len: u64` and `len` payload bytes (padded).
//!
//! A response is the concatenation of each request's return value: fixed-size values
//! as raw bytes (padded, zero bytes for zero-sized types), variable-size values as
//! `len: u64` + codec bytes (padded).
//!
//! A batch too big for one slot travels in chunks (flag [`flags::CHUNK`], last one
//! also [`flags::LAST`]; the trustee reassembles and answers only the last). A
//! response too big for one slot is sent with [`flags::MORE`]; the client answers each
//! such chunk with a [`flags::CONTINUE`] request to get the next one.

use std::ptr;

/// Bytes of header (including the ready word) at the end of every slot.
pub(crate) const HEADER_SIZE: usize = 64;
/// Entries in the per-batch code-pointer cache.
pub(crate) const CACHE_ENTRIES: usize = 4;
/// Smallest allowed slot size.
pub(crate) const MIN_SLOT_SIZE: usize = 256;
/// Largest allowed slot size.
pub(crate) const MAX_SLOT_SIZE: usize = 1 << 24;
/// Bytes of the request record header (code word + property word).
pub(crate) const RECORD_HEADER: usize = 16;

/// Batch flags (header field `flags`).
pub(crate) mod flags {
    /// The batch is one piece of a request too big for a slot.
    pub const CHUNK: u32 = 1;
    /// The last piece of a chunked request.
    pub const LAST: u32 = 2;
    /// A response chunk; more follow, ask for them with `CONTINUE`.
    pub const MORE: u32 = 4;
    /// A request asking for the next response chunk.
    pub const CONTINUE: u32 = 8;
    /// A response (its last chunk) in which some records were not run because
    /// their property had moved: the data ends with the bounced records and a
    /// trailer (`worker/moves.rs`).
    pub const BOUNCED: u32 = 16;
}

const OFF_CACHE: usize = 64;
const OFF_DATA_START: usize = 32;
const OFF_COUNT: usize = 28;
const OFF_NCACHE: usize = 24;
const OFF_FLAGS: usize = 20;
const OFF_AUX: usize = 16;
/// Offset from the slot end of the ready word.
pub(crate) const OFF_SEQ: usize = 8;

/// Rounds up to a multiple of 8.
#[inline(always)]
pub(crate) const fn pad8(n: usize) -> usize {
    (n + 7) & !7
}

/// Usable record bytes in a slot of `slot_size` bytes.
#[inline(always)]
pub(crate) const fn data_capacity(slot_size: usize) -> usize {
    slot_size - HEADER_SIZE
}

/// Header of a batch, everything but the ready word.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Header {
    pub data_len: u32,
    pub count: u32,
    pub n_cache: u32,
    pub flags: u32,
    pub aux: u64,
    pub cache: [u64; CACHE_ENTRIES],
}

/// Bytes of the header region excluding the ready word.
pub(crate) const HEADER_BYTES: usize = HEADER_SIZE - OFF_SEQ;

impl Header {
    /// Serialises the header for a slot of `slot_size` bytes; the result is written at
    /// `slot_size - HEADER_SIZE`.
    pub(crate) fn encode(&self, slot_size: usize) -> [u8; HEADER_BYTES] {
        let mut b = [0u8; HEADER_BYTES];
        let base = HEADER_SIZE; // offsets below are from the slot end
        let at = |off: usize| base - off;
        for (i, c) in self.cache.iter().enumerate() {
            let o = at(OFF_CACHE) + 8 * i;
            b[o..o + 8].copy_from_slice(&c.to_ne_bytes());
        }
        let data_start = (data_capacity(slot_size) - self.data_len as usize) as u32;
        b[at(OFF_DATA_START)..at(OFF_DATA_START) + 4].copy_from_slice(&data_start.to_ne_bytes());
        b[at(OFF_COUNT)..at(OFF_COUNT) + 4].copy_from_slice(&self.count.to_ne_bytes());
        b[at(OFF_NCACHE)..at(OFF_NCACHE) + 4].copy_from_slice(&self.n_cache.to_ne_bytes());
        b[at(OFF_FLAGS)..at(OFF_FLAGS) + 4].copy_from_slice(&self.flags.to_ne_bytes());
        b[at(OFF_AUX)..at(OFF_AUX) + 8].copy_from_slice(&self.aux.to_ne_bytes());
        b
    }

    /// Parses the header of a slot; returns it with the offset of the first record.
    /// Rejects headers whose data range does not fit the slot.
    #[cfg(test)]
    pub(crate) fn from_slot(slot: &[u8]) -> Result<(Header, usize), SlotError> {
        if slot.len() < HEADER_SIZE {
            return Err(SlotError("slot smaller than its header"));
        }
        Self::from_end(&slot[slot.len() - HEADER_SIZE..], slot.len())
    }

    /// Parses the header from the last `HEADER_SIZE` bytes of a slot of `s` bytes
    /// (only the header region is read, never the records).
    pub(crate) fn from_end(end: &[u8], s: usize) -> Result<(Header, usize), SlotError> {
        if s < MIN_SLOT_SIZE || !s.is_multiple_of(64) || end.len() != HEADER_SIZE {
            return Err(SlotError(
                "slot size must be a multiple of 64 and at least 256",
            ));
        }
        let h = HEADER_SIZE;
        let u32_at = |off: usize| u32::from_ne_bytes(end[h - off..h - off + 4].try_into().unwrap());
        let u64_at = |off: usize| u64::from_ne_bytes(end[h - off..h - off + 8].try_into().unwrap());
        let data_start = u32_at(OFF_DATA_START) as usize;
        if data_start > data_capacity(s) || !data_start.is_multiple_of(8) {
            return Err(SlotError("corrupt slot header: data_start out of range"));
        }
        let mut cache = [0u64; CACHE_ENTRIES];
        for (i, c) in cache.iter_mut().enumerate() {
            *c = u64_at(OFF_CACHE - 8 * i);
        }
        let n_cache = u32_at(OFF_NCACHE);
        if n_cache as usize > CACHE_ENTRIES {
            return Err(SlotError("corrupt slot header: code cache too long"));
        }
        Ok((
            Header {
                data_len: (data_capacity(s) - data_start) as u32,
                count: u32_at(OFF_COUNT),
                n_cache,
                flags: u32_at(OFF_FLAGS),
                aux: u64_at(OFF_AUX),
                cache,
            },
            data_start,
        ))
    }

    /// Resolves a record's code word through the cache.
    #[inline(always)]
    pub(crate) fn resolve(&self, code: u64) -> u64 {
        if code < CACHE_ENTRIES as u64 {
            self.cache[code as usize]
        } else {
            code
        }
    }
}

/// A malformed slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SlotError(pub &'static str);

/// A growable, 8-byte aligned byte buffer (backed by `u64` words).
#[derive(Default)]
pub(crate) struct AlignedBuf {
    words: Vec<u64>,
    len: usize,
}

impl AlignedBuf {
    pub(crate) fn with_capacity(bytes: usize) -> Self {
        AlignedBuf {
            words: vec![0; pad8(bytes) / 8],
            len: 0,
        }
    }
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }
    #[inline(always)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }
    #[inline(always)]
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }
    #[inline(always)]
    pub(crate) fn as_ptr(&self) -> *const u8 {
        self.words.as_ptr() as *const u8
    }
    #[cfg(test)]
    pub(crate) fn as_bytes(&self) -> &[u8] {
        // SAFETY: the words are initialised (zero-filled on growth, and every write
        // goes through `reserve`, which keeps `len` inside the allocation).
        unsafe { std::slice::from_raw_parts(self.as_ptr(), self.len) }
    }
    /// Appends `n` bytes (`n` a multiple of 8) and returns a pointer to them.
    #[inline(always)]
    pub(crate) fn reserve(&mut self, n: usize) -> *mut u8 {
        debug_assert!(n.is_multiple_of(8));
        let need = (self.len + n) / 8;
        if need > self.words.len() {
            self.grow(need);
        }
        // SAFETY: `len + n <= words.len() * 8` after the growth above.
        let p = unsafe { (self.words.as_mut_ptr() as *mut u8).add(self.len) };
        self.len += n;
        p
    }
    #[cold]
    fn grow(&mut self, need_words: usize) {
        let new = need_words.max(self.words.len() * 2).max(16);
        self.words.resize(new, 0);
    }
    /// Appends raw bytes, padded to 8.
    pub(crate) fn extend(&mut self, src: *const u8, n: usize) {
        let dst = self.reserve(pad8(n));
        // SAFETY: `dst` has room for `pad8(n) >= n` bytes; `src` is valid for `n` bytes
        // (caller contract) and is not inside this buffer's spare capacity.
        unsafe { ptr::copy_nonoverlapping(src, dst, n) };
    }
}

/// Sequential writer of record fields into a raw region. Every field is padded to 8.
pub(crate) struct Writer {
    ptr: *mut u8,
    pos: usize,
    cap: usize,
}

impl Writer {
    /// # Safety
    /// `ptr` must be valid for writes of `cap` bytes and 8-byte aligned.
    #[inline(always)]
    pub(crate) unsafe fn new(ptr: *mut u8, cap: usize) -> Self {
        Writer { ptr, pos: 0, cap }
    }
    #[inline(always)]
    pub(crate) fn put_u64(&mut self, v: u64) {
        assert!(self.pos + 8 <= self.cap, "slot writer overflow");
        // SAFETY: bounds checked above; `pos` is a multiple of 8 in an 8-aligned region.
        unsafe { (self.ptr.add(self.pos) as *mut u64).write(v) };
        self.pos += 8;
    }
    /// Writes the bytes of a `Copy` value (padding bytes included, as raw memory).
    #[inline(always)]
    pub(crate) fn put_value<V: Copy>(&mut self, v: V) {
        let n = pad8(size_of::<V>());
        assert!(self.pos + n <= self.cap, "slot writer overflow");
        // SAFETY: bounds checked; unaligned write because V's alignment may exceed 8.
        unsafe { (self.ptr.add(self.pos) as *mut V).write_unaligned(v) };
        self.pos += n;
    }
    /// Writes `len: u64` then the bytes, padded.
    #[inline(always)]
    pub(crate) fn put_bytes(&mut self, src: *const u8, n: usize) {
        self.put_u64(n as u64);
        self.put_raw(src, n);
    }
    /// Writes bytes without a length prefix, padded.
    #[inline(always)]
    pub(crate) fn put_raw(&mut self, src: *const u8, n: usize) {
        assert!(self.pos + pad8(n) <= self.cap, "slot writer overflow");
        // SAFETY: bounds checked; `src` valid for `n` bytes by caller contract.
        unsafe { ptr::copy_nonoverlapping(src, self.ptr.add(self.pos), n) };
        self.pos += pad8(n);
    }
    #[cfg(test)]
    pub(crate) fn written(&self) -> usize {
        self.pos
    }
}

/// Sequential reader over record or response bytes (the mirror of [`Writer`]).
pub(crate) struct Reader {
    ptr: *const u8,
    pos: usize,
    len: usize,
}

impl Reader {
    /// # Safety
    /// `ptr` must be valid for reads of `len` bytes, 8-byte aligned, for the reader's
    /// whole use.
    #[inline(always)]
    pub(crate) unsafe fn new(ptr: *const u8, len: usize) -> Self {
        Reader { ptr, pos: 0, len }
    }
    #[inline(always)]
    pub(crate) fn u64(&mut self) -> u64 {
        assert!(self.pos + 8 <= self.len, "truncated slot record");
        // SAFETY: in bounds, 8-aligned (all fields are padded to 8).
        let v = unsafe { (self.ptr.add(self.pos) as *const u64).read() };
        self.pos += 8;
        v
    }
    /// Reads a value written by [`Writer::put_value`].
    ///
    /// # Safety
    /// The bytes at the cursor must have been written by `put_value::<V>`.
    #[inline(always)]
    pub(crate) unsafe fn value<V: Copy>(&mut self) -> V {
        let n = pad8(size_of::<V>());
        assert!(self.pos + n <= self.len, "truncated slot record");
        // SAFETY: in bounds; the caller guarantees these bytes hold a valid V.
        let v = unsafe { (self.ptr.add(self.pos) as *const V).read_unaligned() };
        self.pos += n;
        v
    }
    /// Reads a length-prefixed byte run; returns a pointer to it and its length.
    #[inline(always)]
    pub(crate) fn bytes(&mut self) -> (*const u8, usize) {
        let n = self.u64() as usize;
        let p = self.raw(n);
        (p, n)
    }
    /// Skips `n` bytes (padded) and returns a pointer to them.
    #[inline(always)]
    pub(crate) fn raw(&mut self, n: usize) -> *const u8 {
        assert!(
            n <= self.len && self.pos + pad8(n) <= self.len,
            "truncated slot record"
        );
        // SAFETY: in bounds.
        let p = unsafe { self.ptr.add(self.pos) };
        self.pos += pad8(n);
        p
    }
    #[cfg(test)]
    pub(crate) fn position(&self) -> usize {
        self.pos
    }
    /// The address of the cursor (where the next field starts).
    #[inline(always)]
    pub(crate) fn cursor(&self) -> *const u8 {
        // SAFETY: `pos <= len`, so this stays within (or one past) the region.
        unsafe { self.ptr.add(self.pos) }
    }
}

/// The batch under construction for one (client, trustee) pair: records plus the
/// code-pointer cache, laid out forward from offset 0; the transport places them
/// at the end of the peer's slot.
pub(crate) struct BatchWriter {
    pub(crate) buf: AlignedBuf,
    cap: usize,
    pub(crate) count: u32,
    cache: [u64; CACHE_ENTRIES],
    n_cache: u32,
}

impl BatchWriter {
    pub(crate) fn new(slot_size: usize) -> Self {
        let cap = data_capacity(slot_size);
        BatchWriter {
            buf: AlignedBuf::with_capacity(cap),
            cap,
            count: 0,
            cache: [0; CACHE_ENTRIES],
            n_cache: 0,
        }
    }
    #[inline(always)]
    pub(crate) fn is_empty(&self) -> bool {
        self.count == 0
    }
    #[inline(always)]
    pub(crate) fn remaining(&self) -> usize {
        self.cap - self.buf.len()
    }
    pub(crate) fn capacity(&self) -> usize {
        self.cap
    }
    /// The code word for `code`: a cache index if cached or cacheable, else itself.
    #[inline(always)]
    pub(crate) fn code_word(&mut self, code: u64) -> u64 {
        for i in 0..self.n_cache as usize {
            if self.cache[i] == code {
                return i as u64;
            }
        }
        if (self.n_cache as usize) < CACHE_ENTRIES {
            let i = self.n_cache as usize;
            self.cache[i] = code;
            self.n_cache += 1;
            return i as u64;
        }
        code
    }
    /// Starts a record of `len` bytes (multiple of 8, `<= remaining()`): writes the
    /// code and property words and returns a writer for the rest.
    #[inline(always)]
    pub(crate) fn record(&mut self, code: u64, prop: u64, len: usize) -> Writer {
        debug_assert!(len <= self.remaining() && len.is_multiple_of(8) && len >= RECORD_HEADER);
        let cw = self.code_word(code);
        let p = self.buf.reserve(len);
        self.count += 1;
        // SAFETY: `reserve` returned `len` writable, 8-aligned bytes.
        let mut w = unsafe { Writer::new(p, len) };
        w.put_u64(cw);
        w.put_u64(prop);
        w
    }
    pub(crate) fn header(&self, flags: u32) -> Header {
        Header {
            data_len: self.buf.len() as u32,
            count: self.count,
            n_cache: self.n_cache,
            flags,
            aux: 0,
            cache: self.cache,
        }
    }
    pub(crate) fn reset(&mut self) {
        self.buf.clear();
        self.count = 0;
        self.n_cache = 0;
    }
}

/// Writes a single full record (no cache) into a growable buffer: the large path.
pub(crate) fn large_record(buf: &mut AlignedBuf, code: u64, prop: u64, len: usize) -> Writer {
    let p = buf.reserve(len);
    // SAFETY: `reserve` returned `len` writable, 8-aligned bytes.
    let mut w = unsafe { Writer::new(p, len) };
    w.put_u64(code);
    w.put_u64(prop);
    w
}

#[cfg(test)]
// SAFETY (whole module): every Reader/raw access below points into a live, 8-aligned
// buffer owned by the test, at offsets the matching writer produced.
mod tests {
    use super::*;

    fn place(slot_size: usize, data: &[u8], h: &Header, seq: u64) -> Vec<u8> {
        // What a transport does: records end-aligned, then header, then the ready word.
        let mut slot = vec![0u8; slot_size];
        let cap = data_capacity(slot_size);
        slot[cap - data.len()..cap].copy_from_slice(data);
        slot[cap..slot_size - 8].copy_from_slice(&h.encode(slot_size));
        slot[slot_size - 8..].copy_from_slice(&seq.to_ne_bytes());
        slot
    }

    #[test]
    fn header_round_trip() {
        let h = Header {
            data_len: 48,
            count: 3,
            n_cache: 2,
            flags: flags::CHUNK,
            aux: 99,
            cache: [11, 22, 0, 0],
        };
        let slot = place(256, &[7u8; 48], &h, 5);
        let (back, start) = Header::from_slot(&slot).unwrap();
        assert_eq!(back, h);
        assert_eq!(start, 256 - 64 - 48);
        assert_eq!(u64::from_ne_bytes(slot[248..].try_into().unwrap()), 5);
    }

    #[test]
    fn corrupt_header_is_an_error() {
        let mut slot = vec![0u8; 256];
        slot[256 - 32..256 - 28].copy_from_slice(&1000u32.to_ne_bytes());
        assert!(Header::from_slot(&slot).is_err());
        assert!(Header::from_slot(&[0u8; 100]).is_err());
    }

    #[test]
    fn code_cache_fills_then_spills() {
        let mut b = BatchWriter::new(1024);
        let codes = [1000u64, 2000, 1000, 3000, 4000, 5000, 2000];
        let words: Vec<u64> = codes.iter().map(|&c| b.code_word(c)).collect();
        assert_eq!(words, vec![0, 1, 0, 2, 3, 5000, 1]);
        let h = b.header(0);
        for (c, w) in codes.iter().zip(&words) {
            assert_eq!(h.resolve(*w), *c);
        }
    }

    #[test]
    fn records_round_trip() {
        #[derive(Clone, Copy, PartialEq, Debug)]
        struct Captured {
            a: u8,
            b: u64,
            c: u16,
        }
        let mut b = BatchWriter::new(512);
        let payload: Vec<u8> = (0..37).collect();
        let mut n = 0;
        loop {
            let len = RECORD_HEADER + pad8(size_of::<Captured>()) + 8 + pad8(payload.len());
            if b.remaining() < len {
                break;
            }
            let mut w = b.record(0xdead_0000 + (n % 6), n, len);
            w.put_value(Captured {
                a: n as u8,
                b: n * 3,
                c: 7,
            });
            w.put_bytes(payload.as_ptr(), payload.len());
            assert_eq!(w.written(), len);
            n += 1;
        }
        assert!(n > 3);
        let h = b.header(0);
        let slot = place(512, b.buf.as_bytes(), &h, 1);
        let (back, start) = Header::from_slot(&slot).unwrap();
        assert_eq!(back.count as u64, n);
        // The slot vector is u8-aligned only; copy into an aligned buffer first.
        let mut al = AlignedBuf::with_capacity(slot.len());
        al.extend(slot.as_ptr(), slot.len());
        // SAFETY: `al` holds the whole slot, 8-aligned, and outlives `r`; the data
        // starts at `start` (8-aligned, from the header) and spans `data_len` bytes.
        let mut r = unsafe { Reader::new(al.as_ptr().add(start), back.data_len as usize) };
        for i in 0..n {
            assert_eq!(back.resolve(r.u64()), 0xdead_0000 + (i % 6));
            assert_eq!(r.u64(), i);
            // SAFETY: the encoder wrote a `Captured` at this position.
            let c: Captured = unsafe { r.value() };
            assert_eq!(
                c,
                Captured {
                    a: i as u8,
                    b: i * 3,
                    c: 7
                }
            );
            let (p, l) = r.bytes();
            // SAFETY: `bytes` returns a range inside the reader's buffer `al`.
            assert_eq!(unsafe { std::slice::from_raw_parts(p, l) }, &payload[..]);
        }
        assert_eq!(r.position(), back.data_len as usize);
    }

    #[test]
    fn large_record_beyond_slot_size_round_trips() {
        // A payload bigger than the slot goes to a growable buffer and is chunked;
        // reassembling the chunks gives the record back.
        let slot_size = 256;
        let cap = data_capacity(slot_size);
        for size in [cap - 32, cap, cap + 1, 3 * slot_size + 5, 1 << 16] {
            let payload: Vec<u8> = (0..size).map(|i| (i * 7 % 251) as u8).collect();
            let mut big = AlignedBuf::default();
            let len = RECORD_HEADER + 8 + pad8(size);
            let mut w = large_record(&mut big, 1234, 42, len);
            w.put_bytes(payload.as_ptr(), size);
            let mut re = AlignedBuf::default();
            for chunk in big.as_bytes().chunks(cap) {
                let h = Header {
                    data_len: chunk.len() as u32,
                    count: 1,
                    flags: flags::CHUNK,
                    aux: big.len() as u64,
                    ..Default::default()
                };
                let slot = place(slot_size, chunk, &h, 1);
                let (back, start) = Header::from_slot(&slot).unwrap();
                assert_eq!(back.aux as usize, big.len());
                re.extend(slot[start..].as_ptr(), back.data_len as usize);
            }
            assert_eq!(re.len(), big.len());
            // SAFETY: `re` is an 8-aligned buffer of `re.len()` bytes that outlives `r`.
            let mut r = unsafe { Reader::new(re.as_ptr(), re.len()) };
            assert_eq!(r.u64(), 1234);
            assert_eq!(r.u64(), 42);
            let (p, l) = r.bytes();
            // SAFETY: `bytes` returns a range inside `re`.
            assert_eq!(unsafe { std::slice::from_raw_parts(p, l) }, &payload[..]);
        }
    }

    #[test]
    fn response_values_fixed_and_variable() {
        let mut out = AlignedBuf::default();
        let vals = [(1u32, 2.5f32), (3, 4.5)];
        for v in vals {
            let p = out.reserve(pad8(size_of::<(u32, f32)>()));
            // SAFETY: `reserve` returned room for at least this many bytes.
            unsafe { (p as *mut (u32, f32)).write_unaligned(v) };
        }
        let s = b"variable";
        let p = out.reserve(8);
        // SAFETY: 8 reserved bytes, 8-aligned (AlignedBuf keeps 8-byte alignment).
        unsafe { (p as *mut u64).write(s.len() as u64) };
        out.extend(s.as_ptr(), s.len());
        // SAFETY: `out` is an 8-aligned buffer of `out.len()` bytes that outlives `r`.
        let mut r = unsafe { Reader::new(out.as_ptr(), out.len()) };
        for v in vals {
            // SAFETY: a `(u32, f32)` was written at each of these positions.
            assert_eq!(unsafe { r.value::<(u32, f32)>() }, v);
        }
        let (p, l) = r.bytes();
        // SAFETY: `bytes` returns a range inside `out`.
        assert_eq!(unsafe { std::slice::from_raw_parts(p, l) }, s);
        // zero-sized values take no bytes
        let before = r.position();
        // SAFETY: reading a zero-sized value touches no memory.
        unsafe { r.value::<()>() };
        assert_eq!(r.position(), before);
    }
}
