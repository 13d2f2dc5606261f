//! The driver's construction-time heap tables: per-descriptor bookkeeping, the RX copy-out
//! buffer and SoftLRO's flow table. Each is allocated once, fallibly, when its owner is built
//! and never on the packet path; keeping them off the owner's value is what keeps every value
//! the core returns or moves to a few hundred bytes, so nothing the core builds passes through a
//! kernel stack as a 20-30 KiB temporary (DESIGN: no function above 2 KiB of stack).

use crate::error::AllocError;
use alloc::boxed::Box;
use alloc::vec::Vec;

/// A heap table of `N` copies of `fill`, built in place on the heap (no temporary of its size
/// anywhere); `Heap` when the allocator has no room.
pub(crate) fn table<T: Copy, const N: usize>(fill: T) -> Result<Box<[T; N]>, AllocError> {
    let size = N * size_of::<T>();
    let mut v = Vec::new();
    v.try_reserve_exact(N).map_err(|_| AllocError::Heap { size })?;
    v.resize(N, fill);
    // The length is `N`, so the conversion cannot fail; the error keeps it panic-free.
    v.into_boxed_slice().try_into().map_err(|_| AllocError::Heap { size })
}

/// An empty list with room for `n` items, reserved now so pushing up to `n` never allocates.
pub(crate) fn list<T>(n: usize) -> Result<Vec<T>, AllocError> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| AllocError::Heap { size: n.saturating_mul(size_of::<T>()) })?;
    Ok(v)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_table_has_its_length_and_fill() {
        let t = super::table::<u16, 512>(7).unwrap();
        assert_eq!(t.len(), 512);
        assert!(t.iter().all(|&x| x == 7));
    }

    #[test]
    fn a_list_takes_its_reservation_without_growing() {
        let mut v = super::list::<u64>(3).unwrap();
        let cap = v.capacity();
        v.extend([1, 2, 3]);
        assert_eq!(v.capacity(), cap);
    }

    #[test]
    fn an_impossible_size_is_an_error_not_a_panic() {
        assert!(super::list::<u64>(usize::MAX / 4).is_err());
    }
}
