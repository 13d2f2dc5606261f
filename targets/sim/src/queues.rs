//! QDMA's TX queues inside the engine: frames taken from descriptors, waiting for their MAC,
//! with a mask of the queues that hold any, so the scheduler looks only at those, and each
//! queue's weighted service (WFQ).

use alloc::collections::VecDeque;
use alloc::vec::Vec;

/// QDMA queues modelled.
pub const QUEUES: usize = 16;

// The occupancy mask has a bit per queue.
const _: () = assert!(QUEUES <= u32::BITS as usize);

/// The engine's TX queues: `(mac, frame)` per queue, oldest first.
#[derive(Debug, Default)]
pub(crate) struct TxQueues {
    queues: [VecDeque<(usize, Vec<u8>)>; QUEUES],
    /// Bit `q` set when queue `q` holds a frame.
    occupied: u32,
    /// Frames in all queues.
    frames: usize,
    /// Per queue: service received, scaled by 1/weight (WFQ).
    service: [u64; QUEUES],
    /// The least service among the queues that held frames at the last charge: a queue that
    /// starts holding frames again starts from here, not from where it fell idle (it would
    /// otherwise take over the MAC until it caught up). It never decreases.
    floor: u64,
}

impl TxQueues {
    /// Appends `frame` for MAC `mac` to queue `q` (`q < QUEUES`).
    pub(crate) fn push(&mut self, q: usize, mac: usize, frame: Vec<u8>) {
        if let Some(queue) = self.queues.get_mut(q) {
            if queue.is_empty() {
                self.service[q] = self.service[q].max(self.floor);
            }
            queue.push_back((mac, frame));
            self.occupied |= 1 << q;
            self.frames += 1;
        }
    }

    /// The MAC of queue `q`'s oldest frame, if it holds one.
    pub(crate) fn front_mac(&self, q: usize) -> Option<usize> {
        self.queues.get(q)?.front().map(|(mac, _)| *mac)
    }

    /// Takes queue `q`'s oldest frame.
    pub(crate) fn pop(&mut self, q: usize) -> Option<(usize, Vec<u8>)> {
        let queue = self.queues.get_mut(q)?;
        let f = queue.pop_front()?;
        if queue.is_empty() {
            self.occupied &= !(1 << q);
        }
        self.frames -= 1;
        Some(f)
    }

    /// The queues holding frames, in round-robin order from queue `start`: `start` (if it
    /// holds any), the ones above it, then those below.
    pub(crate) fn occupied_from(&self, start: usize) -> impl Iterator<Item = usize> {
        let start = start % QUEUES;
        let low = (1u32 << start) - 1;
        let (mut above, mut below) = (self.occupied & !low, self.occupied & low);
        core::iter::from_fn(move || {
            let bits = if above != 0 { &mut above } else { &mut below };
            let q = bits.trailing_zeros() as usize;
            (q < QUEUES).then(|| {
                *bits &= *bits - 1;
                q
            })
        })
    }

    /// How many queues hold frames.
    pub(crate) fn busy(&self) -> u32 {
        self.occupied.count_ones()
    }

    /// Frames in all queues.
    pub(crate) fn frames(&self) -> usize {
        self.frames
    }

    /// Queue `q`'s weighted service so far (`q < QUEUES`).
    pub(crate) fn service(&self, q: usize) -> u64 {
        self.service.get(q).copied().unwrap_or(0)
    }

    /// Charges queue `q` (just sent from) with `amount` of weighted service. The floor first
    /// moves up to the least service among the queues holding frames and `q`.
    pub(crate) fn charge(&mut self, q: usize, amount: u64) {
        let Some(&own) = self.service.get(q) else { return };
        let least = self.occupied_from(0).map(|k| self.service[k]).fold(own, u64::min);
        self.floor = self.floor.max(least);
        self.service[q] += amount;
    }

    /// Drops every frame and forgets the service (an engine reset).
    pub(crate) fn clear(&mut self) {
        *self = TxQueues::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mask_and_the_count_follow_the_queues() {
        let mut t = TxQueues::default();
        let holds = |t: &TxQueues, q: usize| t.occupied_from(0).any(|k| k == q);
        assert_eq!((t.frames(), t.occupied_from(0).count(), t.busy()), (0, 0, 0));
        t.push(3, 0, alloc::vec![1]);
        t.push(3, 1, alloc::vec![2]);
        t.push(QUEUES - 1, 0, alloc::vec![3]);
        t.push(QUEUES, 0, alloc::vec![4]);
        assert_eq!((t.frames(), holds(&t, 3), holds(&t, QUEUES - 1), holds(&t, 0)), (3, true, true, false));
        assert_eq!(t.busy(), 2);
        assert_eq!(t.front_mac(3), Some(0));
        assert_eq!(t.pop(3), Some((0, alloc::vec![1])));
        assert!(holds(&t, 3));
        assert_eq!(t.pop(3), Some((1, alloc::vec![2])));
        assert!(!holds(&t, 3) && t.pop(3).is_none());
        t.push(0, 0, alloc::vec![5]);
        t.push(5, 0, alloc::vec![6]);
        assert_eq!(t.occupied_from(4).collect::<Vec<_>>(), [5, QUEUES - 1, 0]);
        assert_eq!(t.occupied_from(0).collect::<Vec<_>>(), [0, 5, QUEUES - 1]);
        assert_eq!(t.occupied_from(QUEUES - 1).collect::<Vec<_>>(), [QUEUES - 1, 0, 5]);
        t.clear();
        assert!(t.frames() == 0 && !holds(&t, QUEUES - 1));
        assert_eq!(t.occupied_from(3).count(), 0);
    }

    #[test]
    fn a_queue_back_from_idle_starts_at_the_floor() {
        let mut t = TxQueues::default();
        t.push(1, 0, alloc::vec![1]);
        t.push(2, 0, alloc::vec![2]);
        t.pop(1);
        t.charge(1, 100);
        t.pop(2);
        t.charge(2, 300);
        assert_eq!((t.service(1), t.service(2)), (100, 300));
        // Queue 2 alone busy for a while: queue 1, idle, must not come back with its old 100.
        for _ in 0..3 {
            t.push(2, 0, alloc::vec![3]);
            t.pop(2);
            t.charge(2, 300);
        }
        t.push(1, 0, alloc::vec![4]);
        assert_eq!(t.service(1), 900, "lifted to the least service at the last charge (queue 2's)");
        t.push(1, 0, alloc::vec![5]);
        assert_eq!(t.service(1), 900, "only when it starts holding frames");
        t.clear();
        assert_eq!((t.service(1), t.service(2)), (0, 0));
    }
}
