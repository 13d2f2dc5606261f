//! How simulated time moves in `fe netdev`: locked to a monotonic clock (`--pace wire`, so each
//! link runs at its real speed) or as fast as there is work (`--pace none`).

use std::time::{Duration, Instant};

/// Which clock drives the simulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pace {
    /// Simulated time follows the wall clock: link speeds are real.
    Wire,
    /// Simulated time runs as fast as the host moves frames.
    None,
}

impl Pace {
    /// The CLI name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Pace::Wire => "wire",
            Pace::None => "none",
        }
    }
}

/// Longest unpaced step, in poll intervals: an unpaced step carries the wire's whole backlog
/// (as a busy host's NAPI finds a full ring), up to this many intervals, so the RX ring (255
/// frames) never overflows between polls, even at 2.5 Gbit/s.
pub const UNPACED_MAX_INTERVALS: u64 = 8;
/// The same while hardware LRO is on: its rings hold 7 aggregates of about 7 segments each.
pub const UNPACED_MAX_INTERVALS_HW_LRO: u64 = 4;
/// Simulated time with nothing moving after which the loop sleeps until a descriptor is ready
/// (longer than hardware LRO's age timer, so no aggregate is left in the engine).
pub const QUIET_NS: u64 = 2_000_000;

/// The mapping of wall-clock time to simulated time.
#[derive(Debug)]
pub struct Clock {
    pace: Pace,
    step_ns: u64,
    wall0: Instant,
    sim0: u64,
    /// Largest lag of simulated time behind the wall clock seen at the start of an iteration.
    pub max_lag_ns: u64,
}

impl Clock {
    /// A clock for `pace` whose simulated time is `sim_now` now; `step_ns` is the poll interval.
    #[must_use]
    pub fn new(pace: Pace, step_ns: u64, sim_now: u64) -> Clock {
        Clock { pace, step_ns: step_ns.max(1), wall0: Instant::now(), sim0: sim_now, max_lag_ns: 0 }
    }

    /// The pace.
    #[must_use]
    pub fn pace(&self) -> Pace {
        self.pace
    }

    /// The poll interval in simulated ns.
    #[must_use]
    pub fn step_ns(&self) -> u64 {
        self.step_ns
    }

    /// The simulated time the wall clock says it is (paced).
    #[must_use]
    pub fn wall_target(&self) -> u64 {
        self.sim0 + self.wall0.elapsed().as_nanos() as u64
    }

    /// The steps to run now with simulated time at `sim_now`, as `(count, ns each)`: paced,
    /// every whole poll interval up to the wall clock; unpaced, one step that carries
    /// `backlog_ns` of queued wire time (at least one interval, at most
    /// `max_intervals`).
    pub fn steps_due(&mut self, sim_now: u64, backlog_ns: u64, max_intervals: u64) -> (u64, u64) {
        match self.pace {
            Pace::Wire => {
                let lag = self.wall_target().saturating_sub(sim_now);
                self.max_lag_ns = self.max_lag_ns.max(lag);
                (lag / self.step_ns, self.step_ns)
            }
            Pace::None => (1, backlog_ns.clamp(self.step_ns, self.step_ns * max_intervals.max(1))),
        }
    }

    /// How long to wait for descriptors before the next step: `None` (until one is ready) when
    /// the simulation is quiet; paced, until the next step is due; unpaced, not at all.
    #[must_use]
    pub fn wait_for(&self, sim_now: u64, quiet: bool) -> Option<Duration> {
        if quiet {
            return None;
        }
        match self.pace {
            Pace::Wire => {
                let due = sim_now + self.step_ns;
                Some(Duration::from_nanos(due.saturating_sub(self.wall_target())))
            }
            Pace::None => Some(Duration::ZERO),
        }
    }

    /// After a quiet spell: the simulated time to jump to (paced: the wall clock, rounded down
    /// to a step; unpaced: no jump).
    #[must_use]
    pub fn resume_at(&self, sim_now: u64) -> u64 {
        match self.pace {
            Pace::Wire => {
                let t = self.wall_target();
                if t > sim_now { sim_now + (t - sim_now) / self.step_ns * self.step_ns } else { sim_now }
            }
            Pace::None => sim_now,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unpaced_step_carries_the_backlog_within_bounds() {
        let mut c = Clock::new(Pace::None, 100_000, 5);
        assert_eq!(c.steps_due(5, 0, UNPACED_MAX_INTERVALS), (1, 100_000));
        assert_eq!(c.steps_due(5, 250_000, UNPACED_MAX_INTERVALS), (1, 250_000));
        assert_eq!(c.steps_due(5, u64::MAX / 2, UNPACED_MAX_INTERVALS), (1, 100_000 * UNPACED_MAX_INTERVALS));
        assert_eq!(c.steps_due(5, u64::MAX / 2, 0), (1, 100_000));
        assert_eq!(c.wait_for(5, false), Some(Duration::ZERO));
        assert_eq!(c.wait_for(5, true), None);
        assert_eq!(c.resume_at(5), 5);
    }

    #[test]
    fn paced_time_follows_the_wall_clock() {
        let mut c = Clock::new(Pace::Wire, 100_000, 1_000);
        std::thread::sleep(Duration::from_millis(2));
        let (steps, each) = c.steps_due(1_000, 0, UNPACED_MAX_INTERVALS);
        assert!(steps >= 20, "{steps}");
        assert_eq!(each, 100_000);
        assert!(c.max_lag_ns >= 2_000_000);
        let r = c.resume_at(1_000);
        assert!(r >= 2_001_000 && (r - 1_000).is_multiple_of(100_000));
        assert!(c.wait_for(r, false).unwrap() <= Duration::from_micros(100));
    }
}
