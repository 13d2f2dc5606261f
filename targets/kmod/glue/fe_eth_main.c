// SPDX-License-Identifier: MIT OR Apache-2.0
/*
 * fe_eth: the C half of the frame-engine kernel module. The driver core (Rust, fe-driver) runs
 * on the register-level simulator (fe-sim) standing in for the SoC; this file gives it to the
 * kernel: one net_device per enabled MAC (MACs wired back to back in pairs; a MAC left over is
 * wired to a software peer net_device, fepeerN), one NAPI context for the shared RX ring, an hrtimer
 * that paces simulated time against the kernel clock and schedules NAPI, ethtool_ops
 * (features, register dump, counters), and a platform_driver whose of_match_table is generated
 * from the register maps' compatible table (fe_of_match.h).
 *
 * Locking: the driver core is split into its handles (Eth::split), each driven by its own
 * context: ndo_start_xmit and NAPI's TX reclaim on EthTx under fe_eth.tx_lock; NAPI on EthRx
 * without a lock (NAPI never runs twice at once); the tick (the chip's interrupt lines) and
 * the end of a NAPI poll on EthIrq without a lock; ethtool and ndo_set_features on EthCtl under
 * fe_eth.ctl_lock. The simulated chip has its own lock, fe_eth.chip_lock, innermost, held for
 * one register or DMA access at a time (a real chip needs none). Lock order: ctl, tx, chip;
 * fe_lock()/fe_unlock() check it on every acquisition, and fe_might_sleep() checks that
 * nothing sleeps under them or in softirq context (the packaged kernel has neither lockdep
 * nor CONFIG_DEBUG_ATOMIC_SLEEP): a violation is counted (ethtool -S) and warns once.
 * Frames NAPI receives go up from inside the poll (no lock is held there); frames a peer
 * net_device receives are produced under the chip lock and queued until it is released.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <linux/dma-mapping.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/platform_device.h>
#include <linux/of.h>
#include <linux/mod_devicetable.h>
#include <linux/irqflags.h>
#include <linux/percpu.h>
#include <linux/atomic.h>
#include <linux/sched/task_stack.h>
#include <linux/firmware.h>
#ifdef CONFIG_ARM64
#include <asm/stack_pointer.h>
#endif
#include "fe_rs.h"
#include "fe_prof.h"

#define DRV_NAME "fe_eth"
/* Stop a MAC's queue below this many free TX descriptors (a 64 KiB TSO frame needs 32). */
#define FE_TX_STOP 40
#define FE_TX_WAKE 128
/* Largest device tree blob dtb= takes (the Rust half's BLOB_MAX). */
#define FE_DTB_MAX (1u << 20)
/* Paint of the unused kernel stack while the Rust half is measured (fe_measure_stack). */
#define FE_STACK_PAINT 0x5a
/* Bytes below the measuring frame left unpainted: the painting memset's own frame. */
#define FE_STACK_SLACK 256
/* Bytes of the kernel stack that must stay untouched below the deepest point module init reaches. */
#define FE_STACK_MARGIN 4096

static char *board = "mt7621-router";
module_param(board, charp, 0444);
MODULE_PARM_DESC(board, "bundled board device tree to bring up (a dts/ file stem)");
static char *dtb = "";
module_param(dtb, charp, 0444);
MODULE_PARM_DESC(dtb, "a device tree blob to bring up instead of a bundled board: a file request_firmware finds (/lib/firmware/NAME)");
static bool zerocopy = true;
module_param(zerocopy, bool, 0644);
MODULE_PARM_DESC(zerocopy, "receive into pool pages that go up as skbs (read at every NAPI poll; 0 copies)");
static uint tick_us = 500;
module_param(tick_us, uint, 0444);
MODULE_PARM_DESC(tick_us, "simulator tick: how often the hrtimer advances simulated time and schedules NAPI (us)");
/* FE_BATCH_CALL (enum fe_batch below): one hold per xmit, reclaim and RX poll. */
static uint chip_batch = 2;
module_param(chip_batch, uint, 0644);
MODULE_PARM_DESC(chip_batch, "chip lock holds: 0 one per register or DMA access; 1 one per xmit and reclaim, RX per access; 2 (default) one per xmit, reclaim and RX poll (frames go up after the poll's chip work); 3 the whole NAPI poll under tx_lock and the chip, as the single-lock module did (read at every call)");
static bool reclaim_steps = true;
module_param(reclaim_steps, bool, 0644);
MODULE_PARM_DESC(reclaim_steps, "NAPI reclaims TX after every simulator sub-step (0: once per poll; read at every poll)");

struct fe_eth;

struct fe_port {
	struct fe_eth *eth;
	u8 mac;
	bool peer;
};

/* Per-CPU counters of where xmit and NAPI ran (CPUs above the last share its slot). */
#define FE_CPU_SLOTS 4

struct fe_eth {
	/* EthCtl: ethtool, ndo_set_features (process context, rtnl held). */
	spinlock_t ctl_lock;
	/* EthTx: ndo_start_xmit, NAPI's reclaim, queue stop/wake. */
	spinlock_t tx_lock;
	/* The simulated chip (taken by the Rust half around each access). */
	spinlock_t chip_lock;
	struct fe_rs_dev *rs;
	struct fe_rs_info info;
	struct net_device *ndev[FE_RS_MAX_MACS];
	struct net_device *by_mac[8];
	/* Software link partners of MACs without a partner MAC, by device index and by MAC. */
	struct net_device *peer[FE_RS_MAX_MACS];
	struct net_device *peer_by_mac[8];
	struct net_device napi_dev;
	struct napi_struct napi;
	struct hrtimer timer;
	bool syncing;
	bool napi_on;
	bool timer_on;
	/* Interrupt causes the core's handler masked and NAPI owns until it unmasks them. */
	atomic_t irq_work;
	/* The CPU NAPI runs on, plus one; 0 while it does not run. */
	atomic_t napi_cpu;
	/* xmit calls that found NAPI running on another CPU (concurrency, shown by ethtool -S). */
	atomic64_t xmit_napi_overlap;
	atomic64_t xmit_on[FE_CPU_SLOTS], napi_on_cpu[FE_CPU_SLOTS];
	/* Whole-engine feature changes (quiesce, reunite, split again). */
	atomic64_t whole_engine;
	/* NAPI polls and the time spent in them (reported at rmmod). */
	atomic64_t polls, poll_ns;
};

static struct fe_eth *fe;
/*
 * The device the simulator's DMA memory is allocated for: a platform device of its own (not
 * named like the platform_driver, which would bind to it), with a 32-bit coherent DMA mask as
 * the frame engine's 32-bit descriptors need. On a real board this is the Ethernet node's
 * platform device.
 */
static struct platform_device *fe_dma_pdev;
/* The task whose allocations may sleep (module init/exit outside the lock); NULL otherwise. */
static struct task_struct *fe_sleeper;

/* ------------------------------------------------------------------ lock checks */

/* Lock ranks, in the order they nest (a lock is taken only while holding lower ranks). */
enum fe_rank { FE_RANK_CTL, FE_RANK_TX, FE_RANK_CHIP };
static const char *const fe_rank_name[] = { "ctl_lock", "tx_lock", "chip_lock" };
/* The module's locks this CPU holds, by rank (every lock is taken with BH off and never
 * across a sleep, so the holder cannot migrate or be interleaved on its CPU). */
static DEFINE_PER_CPU(unsigned int, fe_held);
/* Chip lock acquisitions per CPU (what the simulator's lock costs: ethtool -S chip_lock_taken). */
static DEFINE_PER_CPU(u64, fe_chip_taken);
static atomic64_t fe_order_violations = ATOMIC64_INIT(0);
static atomic64_t fe_sleep_violations = ATOMIC64_INIT(0);

static void fe_lock_note(enum fe_rank rank)
{
	unsigned int *held = this_cpu_ptr(&fe_held);

	if (*held >> rank) {
		atomic64_inc(&fe_order_violations);
		WARN_ONCE(1, DRV_NAME ": lock order: %s taken while holding ranks %#x\n", fe_rank_name[rank], *held);
	}
	*held |= 1u << rank;
}

static void fe_unlock_note(enum fe_rank rank)
{
	*this_cpu_ptr(&fe_held) &= ~(1u << rank);
}

/* Takes `l` of rank `rank` with BH off (the caller may already have it off). */
static void fe_lock(spinlock_t *l, enum fe_rank rank)
{
	if (rank == FE_RANK_TX && !spin_trylock_bh(l)) {
		u64 t0 = fe_prof_start();

		spin_lock_bh(l);
		fe_prof_add(FE_P_TX_CONTENDED, 1);
		fe_prof_end(FE_P_TX_SPIN_NS, t0);
	} else if (rank != FE_RANK_TX) {
		spin_lock_bh(l);
	}
	fe_lock_note(rank);
}

static void fe_unlock(spinlock_t *l, enum fe_rank rank)
{
	fe_unlock_note(rank);
	spin_unlock_bh(l);
}

/* Before anything that may sleep: not in softirq/IRQ context, IRQs on, none of our locks held. */
static void fe_might_sleep(const char *what)
{
	if (in_interrupt() || irqs_disabled() || this_cpu_read(fe_held)) {
		atomic64_inc(&fe_sleep_violations);
		WARN_ONCE(1, DRV_NAME ": %s may sleep, called in atomic context (held %#x)\n", what,
			  this_cpu_read(fe_held));
	}
}

/* ------------------------------------------------------------------ hooks for the Rust half */

/* Whether this CPU holds the chip lock for a whole call (fe_chip_hold): then the Rust half's
 * per-access lock and unlock are nested in it and do nothing. Only the holder's CPU sees it set,
 * and it cannot be preempted or interleaved meanwhile (the lock is taken with BH off). */
static DEFINE_PER_CPU(bool, fe_chip_held);

u32 fe_kmod_chip_lock(void *lock)
{
	if (this_cpu_read(fe_chip_held))
		return smp_processor_id();
	if (!spin_trylock_bh(lock)) {
		u64 t0 = fe_prof_start();

		spin_lock_bh(lock);
		fe_prof_add(FE_P_CHIP_CONTENDED, 1);
		fe_prof_end(FE_P_CHIP_SPIN_NS, t0);
	}
	fe_lock_note(FE_RANK_CHIP);
	this_cpu_inc(fe_chip_taken);
	fe_prof_chip_taken();
	this_cpu_write(fe_prof_chip_t0, fe_prof_sample());
	return smp_processor_id();
}

void fe_kmod_chip_unlock(void *lock)
{
	if (this_cpu_read(fe_chip_held))
		return;
	fe_prof_end_sampled(FE_P_CHIP_HELD_NS, this_cpu_read(fe_prof_chip_t0));
	fe_unlock(lock, FE_RANK_CHIP);
}

/*
 * Takes the chip lock for a whole call into the Rust half (an xmit, a reclaim, the chip work of
 * an RX poll) when `on`: every chip access inside it is then one of a single hold instead of a
 * round trip of its own. Nothing inside may take another of the module's locks or hand a
 * frame to the stack (whose ACK would take tx_lock): frames wait in the poll's queue.
 */
static bool fe_chip_hold(struct fe_eth *eth, bool on)
{
	if (!on)
		return false;
	fe_kmod_chip_lock(&eth->chip_lock);
	this_cpu_write(fe_chip_held, true);
	return true;
}

static void fe_chip_release(struct fe_eth *eth, bool held)
{
	if (!held)
		return;
	this_cpu_write(fe_chip_held, false);
	fe_kmod_chip_unlock(&eth->chip_lock);
}

static gfp_t fe_gfp(void)
{
	if (current == fe_sleeper && !in_interrupt() && !irqs_disabled() && !this_cpu_read(fe_held))
		return GFP_KERNEL;
	return GFP_ATOMIC;
}

void *fe_kmod_alloc(size_t size, size_t align, bool zero)
{
	gfp_t gfp = fe_gfp() | __GFP_NOWARN | (zero ? __GFP_ZERO : 0);
	void *raw, *p;

	if (size == 0)
		size = 1;
	if (align <= ARCH_KMALLOC_MINALIGN)
		return kvmalloc(size, gfp);
	/* Over-allocate and keep the raw pointer just below the aligned one. */
	raw = kvmalloc(size + align + sizeof(void *), gfp);
	if (!raw)
		return NULL;
	p = PTR_ALIGN(raw + sizeof(void *), align);
	((void **)p)[-1] = raw;
	return p;
}

void fe_kmod_free(void *ptr, size_t align)
{
	if (!ptr)
		return;
	if (align <= ARCH_KMALLOC_MINALIGN)
		kvfree(ptr);
	else
		kvfree(((void **)ptr)[-1]);
}

void *fe_kmod_dma_alloc(size_t size, u64 *dma)
{
	dma_addr_t handle;
	void *cpu;

	if (!fe_dma_pdev)
		return NULL;
	fe_might_sleep("dma_alloc_coherent");
	cpu = dma_alloc_coherent(&fe_dma_pdev->dev, size, &handle, GFP_KERNEL | __GFP_NOWARN);
	if (!cpu) {
		pr_info(DRV_NAME ": dma_alloc_coherent of %zu bytes failed\n", size);
		return NULL;
	}
	*dma = handle;
	return cpu;
}

/* Pool pages (targets/kmod/src/rxpool.rs): headroom, frame, skb_shared_info in one page. */
#define FE_RX_HEADROOM 64
#define FE_RX_TAILROOM 384

bool fe_kmod_dma_pages_ok(const void *cpu, size_t size)
{
	size_t off;

	BUILD_BUG_ON(SKB_DATA_ALIGN(sizeof(struct skb_shared_info)) > FE_RX_TAILROOM);
	BUILD_BUG_ON(NET_SKB_PAD > FE_RX_HEADROOM);
	if (!virt_addr_valid(cpu) || !PAGE_ALIGNED(cpu))
		return false;
	for (off = 0; off < size; off += PAGE_SIZE) {
		struct page *page = virt_to_page(cpu + off);

		if (page_count(page) != 1 || PageCompound(page))
			return false;
	}
	return true;
}

bool fe_kmod_page_idle(const void *cpu)
{
	return page_count(virt_to_page(cpu)) == 1;
}

void fe_kmod_dma_free(void *cpu, size_t size, u64 dma)
{
	fe_might_sleep("dma_free_coherent");
	dma_free_coherent(&fe_dma_pdev->dev, size, cpu, dma);
}

void fe_kmod_log(u32 level, const char *msg, size_t len)
{
	int n = (int)min_t(size_t, len, 1024);

	switch (level) {
	case 0:
		pr_info(DRV_NAME ": %.*s\n", n, msg);
		break;
	case 1:
		pr_warn(DRV_NAME ": %.*s\n", n, msg);
		break;
	default:
		pr_err(DRV_NAME ": %.*s\n", n, msg);
		break;
	}
}

void __noreturn fe_kmod_panic(const char *msg, size_t len)
{
	panic(DRV_NAME ": Rust panic: %.*s\n", (int)min_t(size_t, len, 1024), msg);
}

/*
 * What a call into Rust that may produce frames passes as `ctx`: NAPI delivers its frames at
 * once (`direct`, no lock held in the poll); frames produced under the chip lock (the peer
 * net_devices') wait in `q` until it is released.
 */
struct fe_rx_ctx {
	struct fe_eth *eth;
	bool direct;
	struct sk_buff_head q;
};

/* A received skb to the stack from NAPI: GRO, or a SoftLRO aggregate past it. */
static void fe_up(struct fe_eth *eth, struct sk_buff *skb)
{
	u64 t0 = fe_prof_sample();

	if (skb_is_gso(skb)) {
		/* A SoftLRO aggregate bypasses GRO: what GRO holds goes first, in order. */
		napi_gro_flush(&eth->napi, false);
		netif_receive_skb(skb);
	} else {
		napi_gro_receive(&eth->napi, skb);
	}
	fe_prof_add(FE_P_UP_FRAMES, 1);
	fe_prof_end_sampled(FE_P_UP_NS, t0);
}

/* Bytes of a large frame copied into the skb's linear part (its headers); the rest goes to pages. */
#define FE_RX_LINEAR 256

/*
 * A copy of a large frame (a SoftLRO aggregate, up to 64 KiB) as an skb with a small linear
 * part and the rest in order-0 pages: one linear buffer of the aggregate's size would be a
 * high-order GFP_ATOMIC allocation per aggregate (order 4-5 for 64 KiB), slow and likely to
 * fail once memory is fragmented.
 */
static struct sk_buff *fe_rx_paged(struct napi_struct *napi, const u8 *data, size_t len)
{
	struct sk_buff *skb = napi_alloc_skb(napi, FE_RX_LINEAR);
	size_t off = min_t(size_t, len, FE_RX_LINEAR);

	if (!skb)
		return NULL;
	skb_put_data(skb, data, off);
	while (off < len) {
		size_t n = min_t(size_t, len - off, PAGE_SIZE);
		struct page *page;

		if (skb_shinfo(skb)->nr_frags >= MAX_SKB_FRAGS)
			goto fail;
		page = dev_alloc_page();
		if (!page)
			goto fail;
		memcpy(page_address(page), data + off, n);
		skb_add_rx_frag(skb, skb_shinfo(skb)->nr_frags, page, 0, n, PAGE_SIZE);
		off += n;
	}
	return skb;
fail:
	kfree_skb(skb);
	return NULL;
}

void fe_kmod_rx(void *ctx, u8 mac, const u8 *data, size_t len, bool verified, u16 segs, u16 seg_size)
{
	struct fe_rx_ctx *c = ctx;
	struct net_device *dev = mac < ARRAY_SIZE(c->eth->by_mac) ? c->eth->by_mac[mac] : NULL;
	struct sk_buff *skb;

	if (!dev)
		return;
	if (len > PAGE_SIZE) {
		skb = fe_rx_paged(&c->eth->napi, data, len);
	} else {
		skb = napi_alloc_skb(&c->eth->napi, len);
		if (skb)
			skb_put_data(skb, data, len);
	}
	if (!skb) {
		dev->stats.rx_dropped++;
		return;
	}
	skb->protocol = eth_type_trans(skb, dev);
	if (verified)
		skb->ip_summed = CHECKSUM_UNNECESSARY;
	if (segs > 1) {
		/* A SoftLRO aggregate: the stack sees one GSO skb of segs segments. */
		skb_shinfo(skb)->gso_size = seg_size;
		skb_shinfo(skb)->gso_segs = segs;
		skb_shinfo(skb)->gso_type = skb->protocol == htons(ETH_P_IPV6) ? SKB_GSO_TCPV6 : SKB_GSO_TCPV4;
	}
	dev->stats.rx_packets++;
	dev->stats.rx_bytes += len;
	if (!c->direct)
		__skb_queue_tail(&c->q, skb);
	else
		fe_up(c->eth, skb);
}

/*
 * A frame the engine wrote into a pool page (zero-copy): an skb over the whole page, the
 * frame at `headroom`, skb_shared_info at its end; the stack gets a page reference of its own,
 * which it drops when it frees the skb (or a frag GRO or TCP made of its head), and the pool
 * reuses the page once only its own reference is left.
 */
void fe_kmod_rx_page(void *ctx, u8 mac, void *page, u32 headroom, size_t len, bool verified)
{
	struct fe_rx_ctx *c = ctx;
	struct net_device *dev = mac < ARRAY_SIZE(c->eth->by_mac) ? c->eth->by_mac[mac] : NULL;
	struct sk_buff *skb;
	u64 t0;

	if (!dev)
		return;
	get_page(virt_to_page(page));
	skb = napi_build_skb(page, PAGE_SIZE);
	if (!skb) {
		put_page(virt_to_page(page));
		dev->stats.rx_dropped++;
		return;
	}
	skb_reserve(skb, headroom);
	skb_put(skb, len);
	skb->protocol = eth_type_trans(skb, dev);
	if (verified)
		skb->ip_summed = CHECKSUM_UNNECESSARY;
	skb_record_rx_queue(skb, 0);
	dev->stats.rx_packets++;
	dev->stats.rx_bytes += len;
	if (!c->direct) {
		__skb_queue_tail(&c->q, skb);
		return;
	}
	t0 = fe_prof_sample();
	napi_gro_receive(&c->eth->napi, skb);
	fe_prof_add(FE_P_UP_FRAMES, 1);
	fe_prof_end_sampled(FE_P_UP_NS, t0);
}

void fe_kmod_peer_rx(void *ctx, u8 mac, const u8 *data, size_t len)
{
	struct fe_rx_ctx *c = ctx;
	struct net_device *dev = mac < ARRAY_SIZE(c->eth->peer_by_mac) ? c->eth->peer_by_mac[mac] : NULL;
	struct sk_buff *skb;

	if (!dev || !netif_running(dev))
		return;
	skb = napi_alloc_skb(&c->eth->napi, len);
	if (!skb) {
		dev->stats.rx_dropped++;
		return;
	}
	skb_put_data(skb, data, len);
	skb->protocol = eth_type_trans(skb, dev);
	dev->stats.rx_packets++;
	dev->stats.rx_bytes += len;
	__skb_queue_tail(&c->q, skb);
}

/* ------------------------------------------------------------------ NAPI and the tick */

static unsigned int fe_cpu_slot(void)
{
	return min_t(unsigned int, smp_processor_id(), FE_CPU_SLOTS - 1);
}

/* Under tx_lock: wake the MACs' queues when the ring has room again. */
static void fe_wake_queues(struct fe_eth *eth, u32 room)
{
	int i;

	if (room < FE_TX_WAKE)
		return;
	for (i = 0; i < eth->info.nmacs; i++)
		if (eth->ndev[i] && netif_queue_stopped(eth->ndev[i]) && netif_carrier_ok(eth->ndev[i]))
			netif_wake_queue(eth->ndev[i]);
}

/* NAPI's TX half: reclaim under the TX lock, and wake the queues if that made room. */
/* The chip_batch modes (module parameter). */
enum fe_batch { FE_BATCH_ACCESS, FE_BATCH_TX, FE_BATCH_CALL, FE_BATCH_POLL };

/* EthTx::reclaim with tx_lock held (and the chip held for the call when `hold`): TX room. */
static u32 fe_reclaim_locked(struct fe_eth *eth, bool hold)
{
	u64 t0 = fe_prof_sample();
	u8 sect = fe_prof_enter(FE_S_RECLAIM);
	bool held = fe_chip_hold(eth, hold);
	u32 room = fe_rs_reclaim(eth->rs);

	fe_chip_release(eth, held);
	fe_prof_leave(sect);
	fe_prof_add(FE_P_RECLAIMS, 1);
	fe_prof_end_sampled(FE_P_RECLAIM_NS, t0);
	return room;
}

/* NAPI's TX half: reclaim under the TX lock, and wake the queues if that made room. */
static void fe_reclaim(struct fe_eth *eth)
{
	fe_lock(&eth->tx_lock, FE_RANK_TX);
	fe_wake_queues(eth, fe_reclaim_locked(eth, READ_ONCE(chip_batch) != FE_BATCH_ACCESS));
	fe_unlock(&eth->tx_lock, FE_RANK_TX);
}

/*
 * fe_rs_poll, counted and timed (the stack's share is FE_P_UP_NS). FE_BATCH_ACCESS and
 * FE_BATCH_TX: each frame goes up from inside the poll. FE_BATCH_CALL: the chip lock is held across the Rust half's
 * poll and the frames wait in ctx->q until it is released. FE_BATCH_POLL: the caller holds it
 * and delivers ctx->q.
 */
static u32 fe_poll_rs(struct fe_eth *eth, u32 budget, struct fe_rx_ctx *ctx, bool zc, unsigned int mode)
{
	u64 t0 = fe_prof_sample();
	u8 sect = fe_prof_enter(FE_S_RX_POLL);
	bool held = fe_chip_hold(eth, mode == FE_BATCH_CALL);
	struct sk_buff *skb;
	u32 n;

	ctx->direct = mode <= FE_BATCH_TX;
	n = fe_rs_poll(eth->rs, budget, ctx, zc);
	fe_chip_release(eth, held);
	fe_prof_leave(sect);
	if (mode == FE_BATCH_CALL)
		while ((skb = __skb_dequeue(&ctx->q)))
			fe_up(eth, skb);
	fe_prof_add(FE_P_RX_POLLS, 1);
	fe_prof_end_sampled(FE_P_RX_POLL_NS, t0);
	return n;
}

static void fe_deliver_queued(struct fe_rx_ctx *ctx)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(&ctx->q)))
		netif_receive_skb(skb);
}

static int fe_napi_poll(struct napi_struct *napi, int budget)
{
	struct fe_eth *eth = container_of(napi, struct fe_eth, napi);
	struct fe_rx_ctx ctx = { .eth = eth, .direct = true };
	struct fe_rx_ctx chip_ctx = { .eth = eth };
	u64 now = ktime_get_ns(), behind;
	unsigned int mode = min_t(unsigned int, READ_ONCE(chip_batch), FE_BATCH_POLL);
	bool zc, each, whole = mode == FE_BATCH_POLL, held = false;
	struct sk_buff *skb;
	u32 done = 0, room = 0;

	__skb_queue_head_init(&ctx.q);
	__skb_queue_head_init(&chip_ctx.q);
	atomic_set(&eth->napi_cpu, smp_processor_id() + 1);
	atomic64_inc(&eth->napi_on_cpu[fe_cpu_slot()]);
	/*
	 * FE_BATCH_POLL: the whole poll under tx_lock and one hold of the chip, as the module did
	 * before the engine was split (one lock around everything): xmit waits for the poll.
	 */
	if (whole) {
		fe_lock(&eth->tx_lock, FE_RANK_TX);
		held = fe_chip_hold(eth, true);
		room = fe_reclaim_locked(eth, false);
	} else {
		fe_reclaim(eth);
	}
	/*
	 * Drain RX ring 0 first; only an empty ring (a poll under budget) lets simulated time run
	 * another sub-step, so a sub-step's frames always find the ring's 256 descriptors free.
	 * Frames go up after each fe_rs_poll (or from inside it, FE_BATCH_ACCESS; or at the end,
	 * FE_BATCH_POLL) with no lock held: a TCP ACK they cause is sent on the other MAC under
	 * tx_lock, from this softirq.
	 */
	zc = READ_ONCE(zerocopy);
	each = READ_ONCE(reclaim_steps);
	done = fe_poll_rs(eth, budget, &ctx, zc, mode);
	while (done < budget) {
		u64 t0 = fe_prof_sample();
		u8 sect = fe_prof_enter(FE_S_STEP);

		behind = fe_rs_step(eth->rs, now, &chip_ctx);
		fe_prof_leave(sect);
		fe_prof_add(FE_P_STEPS, 1);
		fe_prof_end_sampled(FE_P_STEP_NS, t0);
		/* What the step sent is reclaimed at once: the next step's pacing sees the TX ring
		 * idle (and runs the whole way) only with a fresh count. */
		if (each && whole)
			room = fe_reclaim_locked(eth, false);
		else if (each)
			fe_reclaim(eth);
		done += fe_poll_rs(eth, budget - done, &ctx, zc, mode);
		if (!behind)
			break;
	}
	if (!each && whole)
		room = fe_reclaim_locked(eth, false);
	else if (!each)
		fe_reclaim(eth);
	if (whole) {
		fe_chip_release(eth, held);
		fe_wake_queues(eth, room);
		fe_unlock(&eth->tx_lock, FE_RANK_TX);
		while ((skb = __skb_dequeue(&ctx.q)))
			fe_up(eth, skb);
	}
	atomic64_inc(&eth->polls);
	atomic64_add(ktime_get_ns() - now, &eth->poll_ns);
	atomic_set(&eth->napi_cpu, 0);
	fe_deliver_queued(&chip_ctx);
	if (done < budget && napi_complete_done(napi, done)) {
		/* Drained: unmask what the interrupt handler masked (a cause still pending
		 * raises its line again, and the next tick sees it). */
		fe_rs_irq_enable(eth->rs, atomic_xchg(&eth->irq_work, 0));
	}
	return min_t(int, done, budget);
}

/*
 * The chip's clock and interrupt lines (a soft hrtimer, so softirq context like NAPI): while no
 * interrupt cause is masked, each tick runs the simulator one sub-step towards the kernel clock
 * and calls the core's interrupt handler for every raised line; what it masked schedules NAPI.
 * While NAPI owns the masked causes, it runs the chip itself between its polls.
 */
static enum hrtimer_restart fe_tick(struct hrtimer *t)
{
	struct fe_eth *eth = container_of(t, struct fe_eth, timer);
	struct fe_rx_ctx ctx = { .eth = eth };
	u64 t0 = fe_prof_sample();
	u8 sect = fe_prof_enter(FE_S_TICK);
	u32 work = 0;

	__skb_queue_head_init(&ctx.q);
	if (!atomic_read(&eth->irq_work)) {
		work = fe_rs_irq(eth->rs, ktime_get_ns(), &ctx);
		if (work)
			atomic_set(&eth->irq_work, work);
	}
	fe_prof_leave(sect);
	fe_prof_add(FE_P_TICKS, 1);
	fe_prof_end_sampled(FE_P_TICK_NS, t0);
	/* Frames the peer net_devices received from their MAC's wire. */
	fe_deliver_queued(&ctx);
	if (work)
		napi_schedule(&eth->napi);
	hrtimer_forward_now(t, ns_to_ktime((u64)tick_us * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

/* ------------------------------------------------------------------ net_device_ops */

static struct fe_port *port_of(struct net_device *dev)
{
	return netdev_priv(dev);
}

static int fe_open(struct net_device *dev)
{
	netif_carrier_on(dev);
	netif_start_queue(dev);
	return 0;
}

static int fe_stop(struct net_device *dev)
{
	netif_stop_queue(dev);
	netif_carrier_off(dev);
	return 0;
}

static_assert(FE_RS_TX_PARTS >= MAX_SKB_FRAGS + 1);

/*
 * The pieces of skb for fe_rs_xmit: its head, then each page fragment (lowmem: the kernel's
 * linear map). A GSO skb's TCP headers are pulled into the head when they are not all there
 * (a GSO skb that is not TCP is refused); an skb with a frag_list, or a fragment without a
 * kernel address, is linearized instead. Returns how many pieces, or -1 (drop).
 */
static int fe_tx_parts(struct sk_buff *skb, struct fe_rs_part *parts)
{
	int i, n = 0;

	if (skb_is_gso(skb)) {
		/* Only TCP is advertised (NETIF_F_TSO); the stack segments anything else. */
		if (!(skb_shinfo(skb)->gso_type & (SKB_GSO_TCPV4 | SKB_GSO_TCPV6)) ||
		    !pskb_may_pull(skb, skb_transport_offset(skb) + tcp_hdrlen(skb)))
			return -1;
	}
	if (skb_has_frag_list(skb))
		goto linear;
	parts[n].data = skb->data;
	parts[n++].len = skb_headlen(skb);
	for (i = 0; i < skb_shinfo(skb)->nr_frags; i++) {
		const skb_frag_t *f = &skb_shinfo(skb)->frags[i];

		parts[n].data = skb_frag_address_safe(f);
		parts[n].len = skb_frag_size(f);
		if (!parts[n].data)
			goto linear;
		n++;
	}
	return n;
linear:
	if (skb_linearize(skb))
		return -1;
	parts[0].data = skb->data;
	parts[0].len = skb->len;
	return 1;
}

static netdev_tx_t fe_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct fe_rs_part parts[FE_RS_TX_PARTS];
	struct fe_port *p = port_of(dev);
	struct fe_eth *eth = p->eth;
	unsigned int packets, bytes, napi_cpu;
	int nparts;
	u64 t0;
	u16 mss = 0;
	u8 sect;
	bool held;
	bool csum;
	u32 room;
	int r, i;

	/*
	 * Runts are padded to 60 bytes here, as the MAC's partner drops them (the simulated MAC,
	 * like the firmware's smoltcp adapter, leaves padding to the sender).
	 */
	if (eth_skb_pad(skb)) {
		dev->stats.tx_dropped++;
		return NETDEV_TX_OK;
	}
	/*
	 * The core copies the frame into its TX buffers piece by piece: the head and the page
	 * fragments go as they are (no 64 KiB GFP_ATOMIC linear copy per GSO skb), TSO finding
	 * every header in the head.
	 */
	nparts = fe_tx_parts(skb, parts);
	if (nparts < 0)
		goto drop;
	if (skb_is_gso(skb))
		mss = skb_shinfo(skb)->gso_size;
	csum = skb->ip_summed == CHECKSUM_PARTIAL;
	packets = skb_is_gso(skb) ? skb_shinfo(skb)->gso_segs : 1;
	bytes = skb->len;
	/* BH is off in ndo_start_xmit; fe_lock's spin_lock_bh only nests. */
	fe_lock(&eth->tx_lock, FE_RANK_TX);
	napi_cpu = atomic_read(&eth->napi_cpu);
	if (napi_cpu && napi_cpu - 1 != smp_processor_id())
		atomic64_inc(&eth->xmit_napi_overlap);
	atomic64_inc(&eth->xmit_on[fe_cpu_slot()]);
	t0 = fe_prof_sample();
	sect = fe_prof_enter(FE_S_XMIT);
	held = fe_chip_hold(eth, READ_ONCE(chip_batch) != 0);
	r = fe_rs_xmit(eth->rs, p->mac, parts, nparts, mss, csum, &room);
	fe_chip_release(eth, held);
	fe_prof_leave(sect);
	fe_prof_add(FE_P_XMITS, 1);
	fe_prof_end_sampled(FE_P_XMIT_NS, t0);
	/* The MACs share the TX ring: all stop when it runs low; NAPI's reclaim wakes them
	 * (under this lock, so no wake-up is missed). */
	if (room < FE_TX_STOP)
		for (i = 0; i < eth->info.nmacs; i++)
			netif_stop_queue(eth->ndev[i]);
	fe_unlock(&eth->tx_lock, FE_RANK_TX);
	if (r == FE_RS_XMIT_OK) {
		dev->stats.tx_packets += packets;
		dev->stats.tx_bytes += bytes;
	} else {
		dev->stats.tx_dropped++;
	}
	dev_consume_skb_any(skb);
	return NETDEV_TX_OK;
drop:
	dev->stats.tx_dropped++;
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

/* The offloads the core applies engine-wide (every MAC shares them). */
#define FE_SHARED_FEATURES (NETIF_F_RXCSUM | NETIF_F_IP_CSUM | NETIF_F_TSO | NETIF_F_LRO)

/*
 * Stops every context that uses a handle of the engine (the tick, NAPI, every TX queue) so
 * that the Rust half may reunite it. Process context (rtnl held); sleeps.
 */
static void fe_quiesce(struct fe_eth *eth)
{
	int i;

	fe_might_sleep("fe_quiesce");
	hrtimer_cancel(&eth->timer);
	napi_disable(&eth->napi);
	for (i = 0; i < eth->info.nmacs; i++) {
		netif_tx_disable(eth->ndev[i]);
		if (eth->peer[i])
			netif_tx_disable(eth->peer[i]);
	}
	/* An xmit that passed its queue check before the stop has left tx_lock after this. */
	fe_lock(&eth->tx_lock, FE_RANK_TX);
	fe_unlock(&eth->tx_lock, FE_RANK_TX);
}

/* Undoes fe_quiesce. */
static void fe_resume(struct fe_eth *eth)
{
	int i;

	napi_enable(&eth->napi);
	/* NAPI may have stopped with causes masked: unmask them, the next tick sees what is pending. */
	fe_rs_irq_enable(eth->rs, atomic_xchg(&eth->irq_work, 0));
	hrtimer_start(&eth->timer, ns_to_ktime((u64)tick_us * NSEC_PER_USEC), HRTIMER_MODE_REL_SOFT);
	/* The MACs' queues wake as after a reclaim (only with room in the TX ring; else NAPI's
	 * next reclaim wakes them); the peers' have no ring. */
	fe_reclaim(eth);
	for (i = 0; i < eth->info.nmacs; i++)
		if (eth->peer[i] && netif_running(eth->peer[i]) && netif_carrier_ok(eth->peer[i]))
			netif_tx_wake_all_queues(eth->peer[i]);
}

static int fe_set_features(struct net_device *dev, netdev_features_t features)
{
	struct fe_eth *eth = port_of(dev)->eth;
	bool rx = features & NETIF_F_RXCSUM, tx = features & NETIF_F_IP_CSUM;
	bool tso = features & NETIF_F_TSO, lro = features & NETIF_F_LRO;
	int i, r;

	if (eth->syncing)
		return 0;
	/* From the control handle while TX and NAPI run ... */
	fe_lock(&eth->ctl_lock, FE_RANK_CTL);
	r = fe_rs_set_features(eth->rs, rx, tx, tso, lro);
	fe_unlock(&eth->ctl_lock, FE_RANK_CTL);
	if (r == FE_RS_FEATURES_NEED_WHOLE) {
		/* ... or, for hardware LRO on or off, on the whole engine with everything stopped. */
		fe_quiesce(eth);
		fe_lock(&eth->ctl_lock, FE_RANK_CTL);
		r = fe_rs_set_features_whole(eth->rs, rx, tx, tso, lro);
		fe_unlock(&eth->ctl_lock, FE_RANK_CTL);
		fe_resume(eth);
		atomic64_inc(&eth->whole_engine);
	}
	if (r)
		return -EINVAL;
	netdev_info(dev, "features: rx-checksum %s, tx-checksum %s, tso %s, lro %s (engine-wide)\n",
		    features & NETIF_F_RXCSUM ? "on" : "off", features & NETIF_F_IP_CSUM ? "on" : "off",
		    features & NETIF_F_TSO ? "on" : "off", features & NETIF_F_LRO ? "on" : "off");
	/* The other MACs follow, so every net_device shows what the engine does. */
	eth->syncing = true;
	for (i = 0; i < eth->info.nmacs; i++) {
		struct net_device *o = eth->ndev[i];

		if (!o || o == dev)
			continue;
		o->wanted_features = (o->wanted_features & ~FE_SHARED_FEATURES) | (features & FE_SHARED_FEATURES);
		netdev_update_features(o);
	}
	eth->syncing = false;
	return 0;
}

static netdev_features_t fe_fix_features(struct net_device *dev, netdev_features_t features)
{
	/* The core's TSO needs its TX checksum offload. */
	if (!(features & NETIF_F_IP_CSUM))
		features &= ~NETIF_F_TSO;
	return features;
}

static const struct net_device_ops fe_netdev_ops = {
	.ndo_open = fe_open,
	.ndo_stop = fe_stop,
	.ndo_start_xmit = fe_start_xmit,
	.ndo_set_features = fe_set_features,
	.ndo_fix_features = fe_fix_features,
	.ndo_validate_addr = eth_validate_addr,
	.ndo_set_mac_address = eth_mac_addr,
};

/* The peer net_device: a plain software NIC on the far end of a MAC's wire. */
static netdev_tx_t fe_peer_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct fe_port *p = port_of(dev);

	if (eth_skb_pad(skb)) {
		dev->stats.tx_dropped++;
		return NETDEV_TX_OK;
	}
	if (skb_linearize(skb)) {
		dev->stats.tx_dropped++;
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}
	/* The peer is the far end of a wire: only the chip lock (inside). */
	fe_rs_peer_send(p->eth->rs, p->mac, skb->data, skb->len);
	dev->stats.tx_packets++;
	dev->stats.tx_bytes += skb->len;
	dev_consume_skb_any(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops fe_peer_ops = {
	.ndo_open = fe_open,
	.ndo_stop = fe_stop,
	.ndo_start_xmit = fe_peer_xmit,
	.ndo_validate_addr = eth_validate_addr,
	.ndo_set_mac_address = eth_mac_addr,
};

static void fe_peer_get_drvinfo(struct net_device *dev, struct ethtool_drvinfo *info)
{
	strscpy(info->driver, DRV_NAME "_peer", sizeof(info->driver));
	snprintf(info->bus_info, sizeof(info->bus_info), "sim:%s:mac%u-partner", fe->info.soc, port_of(dev)->mac);
}

static const struct ethtool_ops fe_peer_ethtool_ops = {
	.get_drvinfo = fe_peer_get_drvinfo,
	.get_link = ethtool_op_get_link,
};

/* ------------------------------------------------------------------ ethtool_ops */

static void fe_get_drvinfo(struct net_device *dev, struct ethtool_drvinfo *info)
{
	strscpy(info->driver, DRV_NAME, sizeof(info->driver));
	snprintf(info->bus_info, sizeof(info->bus_info), "sim:%s:mac%u", fe->info.soc, port_of(dev)->mac);
	info->n_stats = 0;
}

static int fe_get_regs_len(struct net_device *dev)
{
	return FE_RS_REGS_WORDS * sizeof(u32);
}

/* Word 0: this MAC's GDMA_FWD_CFG; words 1..: GDMA0.. GDMA2's. */
static void fe_get_regs(struct net_device *dev, struct ethtool_regs *regs, void *buf)
{
	struct fe_eth *eth = port_of(dev)->eth;

	regs->version = 1;
	/* Register reads only: the chip lock, no handle. */
	fe_rs_regs(eth->rs, port_of(dev)->mac, buf);
}

/* The glue's own counters, after the Rust half's. */
static const char fe_glue_stat_names[][ETH_GSTRING_LEN] = {
	"lock_order_violations", "sleep_in_atomic", "chip_lock_taken", "whole_engine_changes",
	"xmit_while_napi_other_cpu",
	"xmit_cpu0", "xmit_cpu1", "xmit_cpu2", "xmit_cpu3+",
	"napi_cpu0", "napi_cpu1", "napi_cpu2", "napi_cpu3+",
};
#define FE_GLUE_STATS (ARRAY_SIZE(fe_glue_stat_names) + FE_P_N)

static void fe_glue_stats(struct fe_eth *eth, u64 *v)
{
	int i;

	v[0] = atomic64_read(&fe_order_violations);
	v[1] = atomic64_read(&fe_sleep_violations);
	v[2] = 0;
	for_each_possible_cpu(i)
		v[2] += per_cpu(fe_chip_taken, i);
	v[3] = atomic64_read(&eth->whole_engine);
	v[4] = atomic64_read(&eth->xmit_napi_overlap);
	for (i = 0; i < FE_CPU_SLOTS; i++) {
		v[5 + i] = atomic64_read(&eth->xmit_on[i]);
		v[5 + FE_CPU_SLOTS + i] = atomic64_read(&eth->napi_on_cpu[i]);
	}
	for (i = 0; i < FE_P_N; i++)
		v[ARRAY_SIZE(fe_glue_stat_names) + i] = fe_prof_read(i);
}

static int fe_get_sset_count(struct net_device *dev, int sset)
{
	struct fe_eth *eth = port_of(dev)->eth;
	u32 n;

	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	fe_lock(&eth->ctl_lock, FE_RANK_CTL);
	n = fe_rs_stats(eth->rs, port_of(dev)->mac, NULL, NULL, 0);
	fe_unlock(&eth->ctl_lock, FE_RANK_CTL);
	return n + FE_GLUE_STATS;
}

static void fe_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	struct fe_eth *eth = port_of(dev)->eth;
	u32 n;

	if (sset != ETH_SS_STATS)
		return;
	fe_lock(&eth->ctl_lock, FE_RANK_CTL);
	n = fe_rs_stats(eth->rs, port_of(dev)->mac, NULL, NULL, 0);
	fe_rs_stats(eth->rs, port_of(dev)->mac, (char *)data, NULL, n);
	fe_unlock(&eth->ctl_lock, FE_RANK_CTL);
	memcpy(data + n * ETH_GSTRING_LEN, fe_glue_stat_names, sizeof(fe_glue_stat_names));
	BUILD_BUG_ON(sizeof(fe_prof_names[0]) != ETH_GSTRING_LEN);
	memcpy(data + (n + ARRAY_SIZE(fe_glue_stat_names)) * ETH_GSTRING_LEN, fe_prof_names, sizeof(fe_prof_names));
}

static void fe_get_ethtool_stats(struct net_device *dev, struct ethtool_stats *stats, u64 *data)
{
	struct fe_eth *eth = port_of(dev)->eth;
	u32 n = stats->n_stats > FE_GLUE_STATS ? stats->n_stats - FE_GLUE_STATS : 0;

	fe_lock(&eth->ctl_lock, FE_RANK_CTL);
	n = min(n, fe_rs_stats(eth->rs, port_of(dev)->mac, NULL, data, n));
	fe_unlock(&eth->ctl_lock, FE_RANK_CTL);
	if (stats->n_stats >= n + FE_GLUE_STATS)
		fe_glue_stats(eth, data + n);
}

static int fe_get_link_ksettings(struct net_device *dev, struct ethtool_link_ksettings *cmd)
{
	ethtool_link_ksettings_zero_link_mode(cmd, supported);
	cmd->base.speed = SPEED_1000;
	cmd->base.duplex = DUPLEX_FULL;
	cmd->base.port = PORT_OTHER;
	cmd->base.autoneg = AUTONEG_DISABLE;
	return 0;
}

static const struct ethtool_ops fe_ethtool_ops = {
	.get_drvinfo = fe_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_regs_len = fe_get_regs_len,
	.get_regs = fe_get_regs,
	.get_sset_count = fe_get_sset_count,
	.get_strings = fe_get_strings,
	.get_ethtool_stats = fe_get_ethtool_stats,
	.get_link_ksettings = fe_get_link_ksettings,
};

/* ------------------------------------------------------------------ platform_driver */

static const struct of_device_id fe_of_match[] = {
#include "fe_of_match.h"
	{}
};
/*
 * No MODULE_DEVICE_TABLE: this build carries the simulator and brings up a simulated board at
 * init, so it must never be autoloaded on a real MediaTek router because its compatible matched
 * (ghost interfaces, 16 MiB of coherent memory and a 500 us timer on a production box). It is
 * loaded by hand only (scripts/kmod-test); the build that binds to the device gets the alias.
 */

static int fe_plat_probe(struct platform_device *pdev)
{
	/*
	 * A real frame engine: what it takes is a Platform over ioremap'ed registers, the DT's
	 * properties into a Board, clocks and resets (README.md). This build drives the simulator.
	 */
	dev_warn(&pdev->dev, "real frame engine at %pOF: not driven by this build (simulator only)\n",
		 pdev->dev.of_node);
	return -ENODEV;
}

static struct platform_driver fe_plat_driver = {
	.probe = fe_plat_probe,
	.driver = {
		.name = DRV_NAME,
		.of_match_table = fe_of_match,
	},
};

/* ------------------------------------------------------------------ stack depth */

/* How deep a call went into this task's kernel stack (fe_measure_stack). */
struct fe_stack_use {
	/* Bytes below the caller's stack pointer the call wrote (exceptions taken meanwhile included). */
	unsigned long used;
	/* Bytes of the stack below the caller's stack pointer. */
	unsigned long free;
};

/*
 * Runs fn(arg) and measures how deep it went into this task's kernel stack: the unused stack
 * below this frame is painted first, and afterwards the lowest byte that is no longer paint is
 * the deepest point anything wrote during the call. An upper bound, not an estimate (an
 * exception taken meanwhile counts too); the Rust half runs on the kernel stack like any C
 * code, and this is the figure that says it fits.
 */
static noinline void *fe_measure_stack(void *(*fn)(void *), void *arg, struct fe_stack_use *use)
{
	u8 *low = (u8 *)(end_of_stack(current) + 1);
	u8 *top = (u8 *)current_stack_pointer;
	u8 *p;
	void *ret;

	memset(low, FE_STACK_PAINT, top - FE_STACK_SLACK - low);
	ret = fn(arg);
	for (p = low; p < top - FE_STACK_SLACK && *p == FE_STACK_PAINT; p++)
		;
	use->used = top - p;
	use->free = top - low;
	return ret;
}

/* fe_rs_create's arguments, for fe_measure_stack. */
struct fe_create_arg {
	void *probed;
	struct fe_eth *eth;
};

static void *fe_create_call(void *a)
{
	struct fe_create_arg *c = a;

	const char *name = dtb[0] ? dtb : board;

	return fe_rs_create(c->probed, name, strlen(name), &c->eth->chip_lock, &c->eth->info);
}

/* ------------------------------------------------------------------ module init/exit */

/*
 * What one chip lock round trip costs when nobody else wants it (spin_lock_bh, the rank
 * check, the counters, spin_unlock_bh): measured once at load, so that chip_lock_taken per
 * frame (ethtool -S) reads as time. Nothing runs on the chip yet.
 */
static void fe_chip_bench(struct fe_eth *eth)
{
	u64 t0 = ktime_get_ns();
	int i;

	for (i = 0; i < 4096; i++) {
		fe_kmod_chip_lock(&eth->chip_lock);
		fe_kmod_chip_unlock(&eth->chip_lock);
	}
	pr_info(DRV_NAME ": chip lock round trip: %llu ns uncontended (4096 taken at load)\n",
		div_u64(ktime_get_ns() - t0, 4096));
}

static void fe_teardown(struct fe_eth *eth)
{
	int i;
	s64 leaked;
	u64 polls;

	/* No more polls (so no more frames for the net_devices), then the net_devices go. */
	fe_might_sleep("fe_teardown");
	if (eth->timer_on)
		hrtimer_cancel(&eth->timer);
	/* A NAPI context that was never enabled must not be disabled (it would wait forever). */
	if (eth->napi_on)
		napi_disable(&eth->napi);
	netif_napi_del(&eth->napi);
	for (i = 0; i < eth->info.nmacs; i++) {
		if (eth->ndev[i] && eth->ndev[i]->reg_state == NETREG_REGISTERED)
			unregister_netdev(eth->ndev[i]);
		if (eth->peer[i] && eth->peer[i]->reg_state == NETREG_REGISTERED)
			unregister_netdev(eth->peer[i]);
	}
	/* Nothing runs now: the whole engine closes. */
	leaked = fe_rs_close(eth->rs);
	polls = atomic64_read(&eth->polls);
	pr_info(DRV_NAME ": closed: %lld buffers left with the engine; %llu NAPI polls, %llu ns each on average; "
		"lock order violations %lld, sleeps in atomic context %lld\n",
		leaked, polls, polls ? div64_u64(atomic64_read(&eth->poll_ns), polls) : 0,
		atomic64_read(&fe_order_violations), atomic64_read(&fe_sleep_violations));
	fe_sleeper = current;
	fe_rs_destroy(eth->rs);
	fe_sleeper = NULL;
	for (i = 0; i < eth->info.nmacs; i++) {
		if (eth->ndev[i])
			free_netdev(eth->ndev[i]);
		if (eth->peer[i])
			free_netdev(eth->peer[i]);
	}
}

static int __init fe_init(void)
{
	struct fe_rs_probe_arg arg = { .name = board, .len = strlen(board) };
	const struct firmware *fw = NULL;
	struct fe_stack_use probe_use, create_use;
	struct fe_create_arg create;
	struct fe_eth *eth;
	void *probed;
	int i, err;

	fe_dma_pdev = platform_device_register_simple(DRV_NAME "-dma", PLATFORM_DEVID_NONE, NULL, 0);
	if (IS_ERR(fe_dma_pdev)) {
		err = PTR_ERR(fe_dma_pdev);
		fe_dma_pdev = NULL;
		return err;
	}
	err = dma_coerce_mask_and_coherent(&fe_dma_pdev->dev, DMA_BIT_MASK(32));
	if (err)
		goto no_eth;
	/*
	 * The simulated engine's DMA is the CPU's own copy, so the device is cache-coherent: its
	 * coherent memory then lies in the linear map (no uncached remap), and from CMA it is made
	 * of pages with a reference count each, which zero-copy receive hands to the stack.
	 */
#if defined(CONFIG_ARCH_HAS_SYNC_DMA_FOR_DEVICE) || defined(CONFIG_ARCH_HAS_SYNC_DMA_FOR_CPU) || \
	defined(CONFIG_ARCH_HAS_SYNC_DMA_FOR_CPU_ALL)
	fe_dma_pdev->dev.dma_coherent = true;
#endif
	eth = kzalloc(sizeof(*eth), GFP_KERNEL);
	if (!eth) {
		err = -ENOMEM;
		goto no_eth;
	}
	spin_lock_init(&eth->ctl_lock);
	spin_lock_init(&eth->tx_lock);
	spin_lock_init(&eth->chip_lock);
	if (dtb[0]) {
		/* A device tree from the firmware loader (copied by the probe, released at once). */
		err = request_firmware(&fw, dtb, &fe_dma_pdev->dev);
		if (err) {
			pr_err(DRV_NAME ": dtb=%s: request_firmware failed (%d)\n", dtb, err);
			kfree(eth);
			goto no_eth;
		}
		if (!fw->size || fw->size > FE_DTB_MAX) {
			pr_err(DRV_NAME ": dtb=%s: %zu bytes, not a device tree blob of 1 to %u bytes\n", dtb, fw->size,
			       FE_DTB_MAX);
			release_firmware(fw);
			kfree(eth);
			err = -EINVAL;
			goto no_eth;
		}
		arg = (struct fe_rs_probe_arg){ .name = dtb, .len = strlen(dtb), .blob = fw->data, .blob_len = fw->size };
	}
	/* Probe and create on the kernel stack, measured: no Rust frame is above 2 KiB, and the
	 * deepest point both reach must leave FE_STACK_MARGIN of the stack untouched. */
	fe_sleeper = current;
	probed = fe_measure_stack(fe_rs_probe, &arg, &probe_use);
	release_firmware(fw);
	create = (struct fe_create_arg){ .probed = probed, .eth = eth };
	eth->rs = fe_measure_stack(fe_create_call, &create, &create_use);
	fe_sleeper = NULL;
	pr_info(DRV_NAME ": stack: the probe reached %lu bytes and the bring-up %lu bytes below module init's frame, which had %lu bytes of the %lu-byte kernel stack below it (%s)\n",
		probe_use.used, create_use.used, create_use.free, (unsigned long)THREAD_SIZE,
		max(probe_use.used, create_use.used) + FE_STACK_MARGIN <= create_use.free ? "fits with the margin" :
		"TOO DEEP");
	if (!eth->rs) {
		kfree(eth);
		err = -ENODEV;
		goto no_eth;
	}
	hrtimer_init(&eth->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	eth->timer.function = fe_tick;
	init_dummy_netdev(&eth->napi_dev);
	netif_napi_add(&eth->napi_dev, &eth->napi, fe_napi_poll);
	for (i = 0; i < eth->info.nmacs; i++) {
		struct net_device *dev = alloc_etherdev(sizeof(struct fe_port));
		u8 addr[ETH_ALEN] = { 0x02, 0xfe, 0, 0, 0, 0 };

		if (!dev) {
			err = -ENOMEM;
			goto fail;
		}
		port_of(dev)->eth = eth;
		port_of(dev)->mac = eth->info.mac[i];
		addr[5] = eth->info.mac[i] + 1;
		eth_hw_addr_set(dev, addr);
		dev->netdev_ops = &fe_netdev_ops;
		dev->ethtool_ops = &fe_ethtool_ops;
		dev->hw_features = NETIF_F_SG | FE_SHARED_FEATURES;
		/* As after Eth::new: checksums and TSO on, LRO off. */
		dev->features = NETIF_F_SG | NETIF_F_RXCSUM | NETIF_F_IP_CSUM | NETIF_F_TSO;
		dev->min_mtu = ETH_MIN_MTU;
		dev->max_mtu = 1500;
		netif_set_tso_max_size(dev, 65535 - ETH_HLEN);
		eth->ndev[i] = dev;
		eth->by_mac[eth->info.mac[i]] = dev;
		if (eth->info.partner[i] != 0xff)
			continue;
		dev = alloc_netdev(sizeof(struct fe_port), "fepeer%d", NET_NAME_ENUM, ether_setup);
		if (!dev) {
			err = -ENOMEM;
			goto fail;
		}
		port_of(dev)->eth = eth;
		port_of(dev)->mac = eth->info.mac[i];
		port_of(dev)->peer = true;
		addr[5] = 0x80 + eth->info.mac[i] + 1;
		eth_hw_addr_set(dev, addr);
		dev->netdev_ops = &fe_peer_ops;
		dev->ethtool_ops = &fe_peer_ethtool_ops;
		dev->max_mtu = 1500;
		eth->peer[i] = dev;
		eth->peer_by_mac[eth->info.mac[i]] = dev;
	}
	fe = eth;
	fe_rs_start(eth->rs, ktime_get_ns());
	fe_chip_bench(eth);
	napi_enable(&eth->napi);
	eth->napi_on = true;
	hrtimer_start(&eth->timer, ns_to_ktime((u64)tick_us * NSEC_PER_USEC), HRTIMER_MODE_REL_SOFT);
	eth->timer_on = true;
	for (i = 0; i < eth->info.nmacs; i++) {
		struct net_device *dev = eth->ndev[i];

		netif_carrier_off(dev);
		err = register_netdev(dev);
		if (err)
			goto fail;
		if (eth->peer[i]) {
			netif_carrier_off(eth->peer[i]);
			err = register_netdev(eth->peer[i]);
			if (err)
				goto fail;
			netdev_info(dev, "%s MAC %u, wired to peer %s\n", eth->info.soc, eth->info.mac[i],
				    eth->peer[i]->name);
		} else {
			netdev_info(dev, "%s MAC %u, wired back to back to MAC %u\n", eth->info.soc,
				    eth->info.mac[i], eth->info.partner[i]);
		}
	}
	err = platform_driver_register(&fe_plat_driver);
	if (err)
		goto fail;
	pr_info(DRV_NAME ": board %s up (%u net_devices, tick %u us)\n", dtb[0] ? dtb : board, eth->info.nmacs, tick_us);
	return 0;
fail:
	fe_teardown(eth);
	fe = NULL;
	kfree(eth);
no_eth:
	platform_device_unregister(fe_dma_pdev);
	fe_dma_pdev = NULL;
	return err;
}

static void __exit fe_exit(void)
{
	platform_driver_unregister(&fe_plat_driver);
	fe_teardown(fe);
	kfree(fe);
	fe = NULL;
	platform_device_unregister(fe_dma_pdev);
	fe_dma_pdev = NULL;
}

module_init(fe_init);
module_exit(fe_exit);
MODULE_DESCRIPTION("MediaTek frame engine: the fe-driver core on the fe-sim simulator");
MODULE_LICENSE("Dual MIT/GPL");
