//! Frame buffers the engine reuses: a frame's bytes, once written to an RX ring (or dropped),
//! hold the next frame taken from TX descriptors or cut by TSO, instead of a heap allocation
//! per frame. In a kernel that zeroes every allocation (`init_on_alloc`, Debian's default) an
//! allocation costs as much as writing the frame twice; here it is a pop from a list.

use alloc::vec::Vec;

/// Buffers up to this capacity are kept for single frames (a 1518-byte frame and then some).
const SMALL: usize = 4096;
/// At most this many small buffers are kept (what is in flight on a busy link, not a pool
/// that grows with traffic).
const MAX_SMALL: usize = 256;

/// Spare frame buffers: small ones for frames, one large one for a gathered GSO frame.
#[derive(Debug, Default)]
pub(crate) struct FrameBuffers {
    small: Vec<Vec<u8>>,
    large: Vec<u8>,
}

impl FrameBuffers {
    /// An empty buffer for one frame (a reused one when there is one).
    pub(crate) fn small(&mut self) -> Vec<u8> {
        self.small.pop().unwrap_or_default()
    }

    /// An empty buffer for a frame gathered from several descriptors (up to 64 KiB and more):
    /// the large spare, with whatever capacity it has.
    pub(crate) fn large(&mut self) -> Vec<u8> {
        core::mem::take(&mut self.large)
    }

    /// Takes back a buffer whose frame is done with; keeps it if it fits the spares.
    pub(crate) fn give(&mut self, mut buf: Vec<u8>) {
        buf.clear();
        if buf.capacity() > SMALL {
            if buf.capacity() > self.large.capacity() {
                self.large = buf;
            }
        } else if buf.capacity() > 0 && self.small.len() < MAX_SMALL {
            self.small.push(buf);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    #[test]
    fn buffers_come_back_empty_and_the_pool_is_bounded() {
        let mut b = FrameBuffers::default();
        let f = vec![7u8; 1500];
        let cap = f.capacity();
        b.give(f);
        let g = b.small();
        assert!(g.is_empty() && g.capacity() == cap, "the same buffer, cleared");
        assert_eq!(b.small().capacity(), 0, "none left: a new (empty) one");
        for _ in 0..2 * MAX_SMALL {
            b.give(vec![0u8; 64]);
        }
        assert_eq!(b.small.len(), MAX_SMALL);
        b.give(vec![0u8; 70_000]);
        b.give(vec![0u8; 9_000]);
        assert!(b.large().capacity() >= 70_000, "the larger of two large buffers stays");
        assert_eq!(b.large().capacity(), 0);
    }
}
