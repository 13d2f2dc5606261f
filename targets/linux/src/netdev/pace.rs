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

/// Steps the unpaced loop takes before it looks at its descriptors again.
pub const UNPACED_MAX_STEPS: u32 = 16;
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

    /// How many steps to run now with simulated time at `sim_now`: paced, every whole step up
    /// to the wall clock; unpaced, enough to carry `backlog_ns` of queued wire time (at least
    /// one, at most [`UNPACED_MAX_STEPS`]).
    pub fn steps_due(&mut self, sim_now: u64, backlog_ns: u64) -> u64 {
        match self.pace {
            Pace::Wire => {
                let lag = self.wall_target().saturating_sub(sim_now);
                self.max_lag_ns = self.max_lag_ns.max(lag);
                lag / self.step_ns
            }
            Pace::None => backlog_ns.div_ceil(self.step_ns).clamp(1, u64::from(UNPACED_MAX_STEPS)),
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
    fn unpaced_steps_cover_the_backlog_within_bounds() {
        let mut c = Clock::new(Pace::None, 100_000, 5);
        assert_eq!(c.steps_due(5, 0), 1);
        assert_eq!(c.steps_due(5, 250_000), 3);
        assert_eq!(c.steps_due(5, u64::MAX / 2), u64::from(UNPACED_MAX_STEPS));
        assert_eq!(c.wait_for(5, false), Some(Duration::ZERO));
        assert_eq!(c.wait_for(5, true), None);
        assert_eq!(c.resume_at(5), 5);
    }

    #[test]
    fn paced_time_follows_the_wall_clock() {
        let mut c = Clock::new(Pace::Wire, 100_000, 1_000);
        std::thread::sleep(Duration::from_millis(2));
        let steps = c.steps_due(1_000, 0);
        assert!(steps >= 20, "{steps}");
        assert!(c.max_lag_ns >= 2_000_000);
        let r = c.resume_at(1_000);
        assert!(r >= 2_001_000 && (r - 1_000).is_multiple_of(100_000));
        assert!(c.wait_for(r, false).unwrap() <= Duration::from_micros(100));
    }
}
