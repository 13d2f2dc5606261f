/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * Where the module's time and lock round trips go, per frame: per-CPU counters the glue bumps
 * on its data paths (the chip lock, the simulator's sub-steps, NAPI's polls and reclaims, the
 * frames handed to the stack, xmit, the tick), shown after the glue's own in `ethtool -S`
 * (prefix `prof_`). Counts are always kept (a per-CPU add); the `_ns` figures only while the
 * module parameter `prof` is 1: the rare sections (spinning for a contended lock) are timed
 * every time, the hot ones (per frame, per lock hold) one in FE_PROF_EVERY picked at random
 * and counted FE_PROF_EVERY times, so that two clock reads per section do not cost the guest
 * a few percent of its instructions. The guest divides the deltas of
 * one iperf3 run by the frames it moved (scripts/kmod-test, KMOD-PROF lines): counts per frame
 * do not depend on how loaded the host is, and the time shares compare within one run.
 */
#ifndef FE_PROF_H
#define FE_PROF_H

#include <linux/percpu.h>
#include <linux/ktime.h>

enum fe_prof_id {
	/* Chip lock acquisitions that found it held, and the time spent spinning for it. */
	FE_P_CHIP_CONTENDED,
	FE_P_CHIP_SPIN_NS,
	/* tx_lock acquisitions that found it held (an xmit on one CPU against another's xmit or
	 * NAPI's reclaim), and the time spent spinning for it. */
	FE_P_TX_CONTENDED,
	FE_P_TX_SPIN_NS,
	/* Time the chip lock was held (every simulator access, sub-steps included). */
	FE_P_CHIP_HELD_NS,
	/* Simulator sub-steps run by NAPI (fe_rs_step) and the time they took. */
	FE_P_STEPS,
	FE_P_STEP_NS,
	/* NAPI's TX reclaims (tx_lock, EthTx::reclaim) and their time. */
	FE_P_RECLAIMS,
	FE_P_RECLAIM_NS,
	/* fe_rs_poll calls and their time (the stack's share, below, included). */
	FE_P_RX_POLLS,
	FE_P_RX_POLL_NS,
	/* Frames handed to the stack from NAPI and the time the stack took with them (GRO, IP,
	 * TCP, and any ACK it sent through xmit from there). */
	FE_P_UP_FRAMES,
	FE_P_UP_NS,
	/* ndo_start_xmit calls and the time in fe_rs_xmit (the core's TX path under tx_lock). */
	FE_P_XMITS,
	FE_P_XMIT_NS,
	/* Ticks of the hrtimer and their time (a sub-step and the interrupt handler). */
	FE_P_TICKS,
	FE_P_TICK_NS,
	/* Chip lock acquisitions by the section that took them (the sections nest: an ACK sent
	 * from inside the stack's receive counts as xmit). */
	FE_P_LOCKS_XMIT,
	FE_P_LOCKS_RECLAIM,
	FE_P_LOCKS_RX_POLL,
	FE_P_LOCKS_STEP,
	FE_P_LOCKS_TICK,
	FE_P_LOCKS_OTHER,
	FE_P_N
};

/* The section a CPU is in, for FE_P_LOCKS_* (0: other). */
enum fe_prof_sect { FE_S_OTHER, FE_S_XMIT, FE_S_RECLAIM, FE_S_RX_POLL, FE_S_STEP, FE_S_TICK };

struct fe_prof_counters {
	u64 v[FE_P_N];
};

DECLARE_PER_CPU(struct fe_prof_counters, fe_prof);
/* When the chip lock was taken on this CPU (for FE_P_CHIP_HELD_NS). */
DECLARE_PER_CPU(u64, fe_prof_chip_t0);
/* The section this CPU is in (enum fe_prof_sect). */
DECLARE_PER_CPU(u8, fe_prof_sect);
/* The module parameter `prof`. */
extern bool fe_prof_on;
extern const char fe_prof_names[FE_P_N][32];

/* One hot section in this many is timed (a power of two). */
#define FE_PROF_EVERY 16

/* This CPU's xorshift32 state for picking the hot sections to time (never 0 once used). */
DECLARE_PER_CPU(u32, fe_prof_rng);

/* A rare section's start: the clock while `prof` is on, else 0 (nothing timed). */
static inline u64 fe_prof_start(void)
{
	return READ_ONCE(fe_prof_on) ? ktime_get_ns() : 0;
}

static inline void fe_prof_add(enum fe_prof_id id, u64 v)
{
	this_cpu_add(fe_prof.v[id], v);
}

/* Ends a section begun with fe_prof_start: adds its time to `id`. */
static inline void fe_prof_end(enum fe_prof_id id, u64 t0)
{
	if (t0)
		fe_prof_add(id, ktime_get_ns() - t0);
}

/* A hot section's start: the clock for one in FE_PROF_EVERY of them (at random, so no periodic
 * pattern of sections can bias the pick) while `prof` is on, else 0. */
static inline u64 fe_prof_sample(void)
{
	u32 x;

	if (!READ_ONCE(fe_prof_on))
		return 0;
	x = this_cpu_read(fe_prof_rng) ?: 0x9e3779b9u;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	this_cpu_write(fe_prof_rng, x);
	return (x & (FE_PROF_EVERY - 1)) ? 0 : ktime_get_ns();
}

/* Ends a section begun with fe_prof_sample: adds its time, scaled to the sections not timed. */
static inline void fe_prof_end_sampled(enum fe_prof_id id, u64 t0)
{
	if (t0)
		fe_prof_add(id, (ktime_get_ns() - t0) * FE_PROF_EVERY);
}

/* Enters section `sect`; returns the one to go back to (fe_prof_leave). */
static inline u8 fe_prof_enter(enum fe_prof_sect sect)
{
	u8 prev = this_cpu_read(fe_prof_sect);

	this_cpu_write(fe_prof_sect, sect);
	return prev;
}

static inline void fe_prof_leave(u8 prev)
{
	this_cpu_write(fe_prof_sect, prev);
}

/* A chip lock acquisition, counted for the section this CPU is in. */
static inline void fe_prof_chip_taken(void)
{
	static const u8 by_sect[] = {
		[FE_S_OTHER] = FE_P_LOCKS_OTHER, [FE_S_XMIT] = FE_P_LOCKS_XMIT,
		[FE_S_RECLAIM] = FE_P_LOCKS_RECLAIM, [FE_S_RX_POLL] = FE_P_LOCKS_RX_POLL,
		[FE_S_STEP] = FE_P_LOCKS_STEP, [FE_S_TICK] = FE_P_LOCKS_TICK,
	};
	u8 s = this_cpu_read(fe_prof_sect);

	fe_prof_add(s < ARRAY_SIZE(by_sect) ? by_sect[s] : FE_P_LOCKS_OTHER, 1);
}

/* Sum over every CPU. */
u64 fe_prof_read(enum fe_prof_id id);

#endif
