//! An in-memory bus for host tests: plain storage, with a log of every access.

use super::Bus;
use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use core::cell::RefCell;

/// One access seen by a [`MemBus`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Access {
    /// A read of `offset` that returned `value`.
    Read {
        /// Byte offset.
        offset: usize,
        /// Value returned.
        value: u32,
    },
    /// A write of `value` to `offset`.
    Write {
        /// Byte offset.
        offset: usize,
        /// Value written.
        value: u32,
    },
}

/// Memory-backed registers: reads return the last value written (0 if never written).
///
/// It has no register semantics (no read-only bits, no W1C); the simulator provides those.
#[derive(Debug, Default)]
pub struct MemBus {
    words: RefCell<BTreeMap<usize, u32>>,
    log: RefCell<Vec<Access>>,
}

impl MemBus {
    /// An empty bus.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }
    /// The stored word at `offset`, without logging.
    #[must_use]
    pub fn peek(&self, offset: usize) -> u32 {
        self.words.borrow().get(&offset).copied().unwrap_or(0)
    }
    /// Stores `value` at `offset`, without logging (to preset hardware state).
    pub fn poke(&self, offset: usize, value: u32) {
        self.words.borrow_mut().insert(offset, value);
    }
    /// Every access so far, in order.
    #[must_use]
    pub fn log(&self) -> Vec<Access> {
        self.log.borrow().clone()
    }
    /// Forgets the access log.
    pub fn clear_log(&self) {
        self.log.borrow_mut().clear();
    }
}

impl Bus for MemBus {
    fn read32(&self, offset: usize) -> u32 {
        let value = self.peek(offset);
        self.log.borrow_mut().push(Access::Read { offset, value });
        value
    }
    fn write32(&self, offset: usize, value: u32) {
        self.poke(offset, value);
        self.log.borrow_mut().push(Access::Write { offset, value });
    }
}
