//! Large zero-filled arrays in anonymous memory maps. Dropping one returns its
//! memory to the system at once; heap allocations of earlier layers would
//! otherwise linger in the allocator and inflate the peak.

use std::io;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU16, AtomicU64};

use bytemuck::Zeroable;
use memmap2::MmapMut;

/// A fixed-length array of `T` in its own anonymous memory map, zeroed by
/// the system; it derefs to a slice.
pub struct BigArray<T> {
    map: MmapMut,
    len: usize,
    _items: PhantomData<T>,
}

impl<T: Zeroable> BigArray<T> {
    /// `len` zero items, or the system's refusal to provide the memory.
    pub fn zeroed(len: usize) -> io::Result<BigArray<T>> {
        let bytes = len
            .checked_mul(size_of::<T>())
            .ok_or_else(|| io::Error::new(io::ErrorKind::OutOfMemory, "array too large"))?;
        // A zero-length map is refused by the system; map one byte instead.
        let map = MmapMut::map_anon(bytes.max(1))?;
        // Huge pages spare the TLB on the random accesses of the
        // propagation; a refusal only costs speed.
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::HugePage);
        Ok(BigArray {
            map,
            len,
            _items: PhantomData,
        })
    }
}

impl<T> BigArray<T> {
    /// The items' bytes, in this machine's byte order.
    pub fn as_bytes(&self) -> &[u8] {
        &self.map[..self.len * size_of::<T>()]
    }

    /// The items' bytes, to fill with the bytes of valid items (of
    /// [`BigArray::as_bytes`] on this machine).
    pub fn as_bytes_mut(&mut self) -> &mut [u8] {
        let bytes = self.len * size_of::<T>();
        &mut self.map[..bytes]
    }
}

/// Returns the memory the heap holds freed to the system. glibc keeps what
/// rayon's workers free in their arenas: a part's lookups, freed, would
/// still count against the budget when the same memory is given to the
/// next phase (a bucket of deferred lookups' values), and a cgroup of the
/// budget's size kills the build. Elsewhere a no-op.
pub fn release_freed_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` only returns free memory; no live allocation moves.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Makes large allocations go to the system, and back to it when freed,
/// whatever sizes were freed before. glibc raises its threshold for that
/// to the largest block freed (up to 32 MiB), after which blocks below it
/// stay in the arena of the thread that freed them.
pub fn large_allocations_to_the_system() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` changes a setting of the allocator; nothing moves.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 << 10);
    }
}

#[cfg(target_endian = "little")]
impl BigArray<AtomicU16> {
    /// The same memory as 64-bit words, four items to a word, the first in
    /// the lowest bits. Its length must be a multiple of four.
    pub fn into_words(self) -> BigArray<AtomicU64> {
        assert!(self.len.is_multiple_of(4), "whole words");
        BigArray {
            map: self.map,
            len: self.len / 4,
            _items: PhantomData,
        }
    }
}

impl<T> Deref for BigArray<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: the map is page-aligned, holds `len` items of T and was
        // zero-filled, a valid T (`Zeroable`); writes go through `&mut`/atomics.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr().cast(), self.len) }
    }
}

impl<T> DerefMut for BigArray<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, with exclusive access through `&mut self`.
        unsafe { std::slice::from_raw_parts_mut(self.map.as_mut_ptr().cast(), self.len) }
    }
}
