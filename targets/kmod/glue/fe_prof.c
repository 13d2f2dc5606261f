// SPDX-License-Identifier: MIT OR Apache-2.0
/* The per-frame profile counters of fe_eth (see fe_prof.h). */
#include <linux/module.h>
#include "fe_prof.h"

DEFINE_PER_CPU(struct fe_prof_counters, fe_prof);
DEFINE_PER_CPU(u64, fe_prof_chip_t0);
DEFINE_PER_CPU(u8, fe_prof_sect);
DEFINE_PER_CPU(u32, fe_prof_rng);

bool fe_prof_on;
module_param_named(prof, fe_prof_on, bool, 0644);
MODULE_PARM_DESC(prof, "time the data paths' sections (prof_*_ns in ethtool -S; counts are always kept)");

const char fe_prof_names[FE_P_N][32] = {
	[FE_P_CHIP_CONTENDED] = "prof_chip_contended",
	[FE_P_CHIP_SPIN_NS] = "prof_chip_spin_ns",
	[FE_P_TX_CONTENDED] = "prof_tx_contended",
	[FE_P_TX_SPIN_NS] = "prof_tx_spin_ns",
	[FE_P_CHIP_HELD_NS] = "prof_chip_held_ns",
	[FE_P_STEPS] = "prof_steps",
	[FE_P_STEP_NS] = "prof_step_ns",
	[FE_P_RECLAIMS] = "prof_reclaims",
	[FE_P_RECLAIM_NS] = "prof_reclaim_ns",
	[FE_P_RX_POLLS] = "prof_rx_polls",
	[FE_P_RX_POLL_NS] = "prof_rx_poll_ns",
	[FE_P_UP_FRAMES] = "prof_up_frames",
	[FE_P_UP_NS] = "prof_up_ns",
	[FE_P_XMITS] = "prof_xmits",
	[FE_P_XMIT_NS] = "prof_xmit_ns",
	[FE_P_TICKS] = "prof_ticks",
	[FE_P_TICK_NS] = "prof_tick_ns",
	[FE_P_LOCKS_XMIT] = "prof_chip_locks_xmit",
	[FE_P_LOCKS_RECLAIM] = "prof_chip_locks_reclaim",
	[FE_P_LOCKS_RX_POLL] = "prof_chip_locks_rx_poll",
	[FE_P_LOCKS_STEP] = "prof_chip_locks_step",
	[FE_P_LOCKS_TICK] = "prof_chip_locks_tick",
	[FE_P_LOCKS_OTHER] = "prof_chip_locks_other",
};

u64 fe_prof_read(enum fe_prof_id id)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(fe_prof, cpu).v[id];
	return sum;
}
