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
 * Locking: fe_eth.lock (a BH spinlock) serialises every call into Rust; frames received under
 * it are queued and handed to the stack after it is released, so a reply sent from the RX
 * softirq (a TCP ACK on the other MAC) never re-enters the lock.
 */
#include <linux/module.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/skbuff.h>
#include <linux/dma-mapping.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/platform_device.h>
#include <linux/of.h>
#include <linux/mod_devicetable.h>
#include <linux/irqflags.h>
#include "fe_rs.h"

#define DRV_NAME "fe_eth"
/* Stop a MAC's queue below this many free TX descriptors (a 64 KiB TSO frame needs 32). */
#define FE_TX_STOP 40
#define FE_TX_WAKE 128
/* Stack the device-tree probe runs on (it needs more than THREAD_SIZE, see README.md). */
#define FE_PROBE_STACK (128 * 1024)

static char *board = "mt7621-router";
module_param(board, charp, 0444);
MODULE_PARM_DESC(board, "bundled board device tree to bring up (a dts/ file stem)");
static uint tick_us = 500;
module_param(tick_us, uint, 0444);
MODULE_PARM_DESC(tick_us, "simulator tick: how often the hrtimer advances simulated time and schedules NAPI (us)");

struct fe_eth;

struct fe_port {
	struct fe_eth *eth;
	u8 mac;
	bool peer;
};

struct fe_eth {
	spinlock_t lock;
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
	/* Interrupt causes the core's handler masked and NAPI owns until it unmasks them. */
	u32 irq_work;
	/* NAPI polls and the time spent in them (reported at rmmod). */
	u64 polls, poll_ns;
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

/* ------------------------------------------------------------------ hooks for the Rust half */

static gfp_t fe_gfp(void)
{
	if (current == fe_sleeper && !in_interrupt() && !irqs_disabled())
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
	cpu = dma_alloc_coherent(&fe_dma_pdev->dev, size, &handle, GFP_KERNEL | __GFP_NOWARN);
	if (!cpu) {
		pr_err(DRV_NAME ": dma_alloc_coherent of %zu bytes failed\n", size);
		return NULL;
	}
	*dma = handle;
	return cpu;
}

void fe_kmod_dma_free(void *cpu, size_t size, u64 dma)
{
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

struct fe_rx_ctx {
	struct fe_eth *eth;
	struct sk_buff_head q;
};

void fe_kmod_rx(void *ctx, u8 mac, const u8 *data, size_t len, bool verified, u16 segs, u16 seg_size)
{
	struct fe_rx_ctx *c = ctx;
	struct net_device *dev = mac < ARRAY_SIZE(c->eth->by_mac) ? c->eth->by_mac[mac] : NULL;
	struct sk_buff *skb;

	if (!dev)
		return;
	skb = napi_alloc_skb(&c->eth->napi, len);
	if (!skb) {
		dev->stats.rx_dropped++;
		return;
	}
	skb_put_data(skb, data, len);
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
	__skb_queue_tail(&c->q, skb);
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

static void fe_wake_queues(struct fe_eth *eth, u32 room)
{
	int i;

	if (room < FE_TX_WAKE)
		return;
	for (i = 0; i < eth->info.nmacs; i++)
		if (eth->ndev[i] && netif_queue_stopped(eth->ndev[i]) && netif_carrier_ok(eth->ndev[i]))
			netif_wake_queue(eth->ndev[i]);
}

static int fe_napi_poll(struct napi_struct *napi, int budget)
{
	struct fe_eth *eth = container_of(napi, struct fe_eth, napi);
	struct fe_rx_ctx ctx = { .eth = eth };
	u64 now = ktime_get_ns(), behind;
	struct sk_buff *skb;
	u32 room, done = 0;

	__skb_queue_head_init(&ctx.q);
	spin_lock(&eth->lock);
	/*
	 * Drain RX ring 0 first; only an empty ring (a poll under budget) lets simulated time run
	 * another sub-step, so a sub-step's frames always find the ring's 256 descriptors free.
	 */
	room = fe_rs_tx_room(eth->rs);
	done = fe_rs_poll(eth->rs, budget, &ctx);
	while (done < budget) {
		behind = fe_rs_step(eth->rs, now, &room, &ctx);
		done += fe_rs_poll(eth->rs, budget - done, &ctx);
		if (!behind)
			break;
	}
	eth->polls++;
	eth->poll_ns += ktime_get_ns() - now;
	spin_unlock(&eth->lock);
	while ((skb = __skb_dequeue(&ctx.q))) {
		if (skb_is_gso(skb)) {
			/* A SoftLRO aggregate bypasses GRO: what GRO holds goes first, in order. */
			napi_gro_flush(napi, false);
			netif_receive_skb(skb);
		} else {
			napi_gro_receive(napi, skb);
		}
	}
	fe_wake_queues(eth, room);
	if (done < budget && napi_complete_done(napi, done)) {
		/* Drained: unmask what the interrupt handler masked (a cause still pending
		 * raises its line again, and the next tick sees it). */
		spin_lock(&eth->lock);
		fe_rs_irq_enable(eth->rs, eth->irq_work);
		eth->irq_work = 0;
		spin_unlock(&eth->lock);
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
	struct sk_buff *skb;
	u32 work = 0;

	__skb_queue_head_init(&ctx.q);
	spin_lock(&eth->lock);
	if (!eth->irq_work)
		work = eth->irq_work = fe_rs_irq(eth->rs, ktime_get_ns(), &ctx);
	spin_unlock(&eth->lock);
	/* Frames the peer net_devices received from their MAC's wire. */
	while ((skb = __skb_dequeue(&ctx.q)))
		netif_receive_skb(skb);
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

static netdev_tx_t fe_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct fe_port *p = port_of(dev);
	struct fe_eth *eth = p->eth;
	u16 mss = 0;
	bool csum;
	u32 room;
	int r;

	/*
	 * Runts are padded to 60 bytes here, as the MAC's partner drops them (the simulated MAC,
	 * like the firmware's smoltcp adapter, leaves padding to the sender).
	 */
	if (eth_skb_pad(skb)) {
		dev->stats.tx_dropped++;
		return NETDEV_TX_OK;
	}
	/* The core copies the frame into its TX buffers: one linear run of bytes. */
	if (skb_linearize(skb))
		goto drop;
	if (skb_is_gso(skb))
		mss = skb_shinfo(skb)->gso_size;
	csum = skb->ip_summed == CHECKSUM_PARTIAL;
	spin_lock_bh(&eth->lock);
	r = fe_rs_xmit(eth->rs, p->mac, skb->data, skb->len, mss, csum);
	room = fe_rs_tx_room(eth->rs);
	if (r == FE_RS_XMIT_OK) {
		dev->stats.tx_packets += skb_is_gso(skb) ? skb_shinfo(skb)->gso_segs : 1;
		dev->stats.tx_bytes += skb->len;
	} else {
		dev->stats.tx_dropped++;
	}
	spin_unlock_bh(&eth->lock);
	if (room < FE_TX_STOP)
		netif_stop_queue(dev);
	dev_consume_skb_any(skb);
	return NETDEV_TX_OK;
drop:
	dev->stats.tx_dropped++;
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

/* The offloads the core applies engine-wide (every MAC shares them). */
#define FE_SHARED_FEATURES (NETIF_F_RXCSUM | NETIF_F_IP_CSUM | NETIF_F_TSO | NETIF_F_LRO)

static int fe_set_features(struct net_device *dev, netdev_features_t features)
{
	struct fe_eth *eth = port_of(dev)->eth;
	int i, r;

	if (eth->syncing)
		return 0;
	spin_lock_bh(&eth->lock);
	r = fe_rs_set_features(eth->rs, features & NETIF_F_RXCSUM, features & NETIF_F_IP_CSUM,
			       features & NETIF_F_TSO, features & NETIF_F_LRO);
	spin_unlock_bh(&eth->lock);
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
	spin_lock_bh(&p->eth->lock);
	fe_rs_peer_send(p->eth->rs, p->mac, skb->data, skb->len);
	spin_unlock_bh(&p->eth->lock);
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
	spin_lock_bh(&eth->lock);
	fe_rs_regs(eth->rs, port_of(dev)->mac, buf);
	spin_unlock_bh(&eth->lock);
}

static int fe_get_sset_count(struct net_device *dev, int sset)
{
	struct fe_eth *eth = port_of(dev)->eth;
	u32 n;

	if (sset != ETH_SS_STATS)
		return -EOPNOTSUPP;
	spin_lock_bh(&eth->lock);
	n = fe_rs_stats(eth->rs, port_of(dev)->mac, NULL, NULL, 0);
	spin_unlock_bh(&eth->lock);
	return n;
}

static void fe_get_strings(struct net_device *dev, u32 sset, u8 *data)
{
	struct fe_eth *eth = port_of(dev)->eth;

	if (sset != ETH_SS_STATS)
		return;
	spin_lock_bh(&eth->lock);
	fe_rs_stats(eth->rs, port_of(dev)->mac, (char *)data, NULL, U32_MAX);
	spin_unlock_bh(&eth->lock);
}

static void fe_get_ethtool_stats(struct net_device *dev, struct ethtool_stats *stats, u64 *data)
{
	struct fe_eth *eth = port_of(dev)->eth;

	spin_lock_bh(&eth->lock);
	fe_rs_stats(eth->rs, port_of(dev)->mac, NULL, data, stats->n_stats);
	spin_unlock_bh(&eth->lock);
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
MODULE_DEVICE_TABLE(of, fe_of_match);

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

/* ------------------------------------------------------------------ the probe's stack */

/* Calls fn(arg) with the stack pointer at stack_top; interrupts must be off (see below). */
static noinline void *fe_call_on_stack(void *(*fn)(void *), void *arg, void *stack_top)
{
	register void *x0 asm("x0") = arg;

	asm volatile("mov x19, sp\n\t"
		     "mov sp, %[top]\n\t"
		     "blr %[fn]\n\t"
		     "mov sp, x19"
		     : "+r"(x0)
		     : [top] "r"(stack_top), [fn] "r"(fn)
		     : "x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13",
		       "x14", "x15", "x16", "x17", "x18", "x19", "x30", "cc", "memory");
	return x0;
}

/*
 * Runs fn(arg) on a separate 128 KiB stack. Interrupts stay off meanwhile: arm64's entry code
 * treats any stack pointer outside the task stack's alignment window as an overflow, so no
 * exception may arrive while it is in use. fn must not sleep, fault or take long (the probe
 * reads a DTB in memory and allocates with GFP_ATOMIC).
 */
static void *fe_on_big_stack(void *(*fn)(void *), void *arg)
{
	unsigned long flags;
	void *stack, *ret;

	stack = kmalloc(FE_PROBE_STACK, GFP_KERNEL);
	if (!stack)
		return NULL;
	local_irq_save(flags);
	ret = fe_call_on_stack(fn, arg, stack + FE_PROBE_STACK);
	local_irq_restore(flags);
	kfree(stack);
	return ret;
}

/* ------------------------------------------------------------------ module init/exit */

static void fe_teardown(struct fe_eth *eth)
{
	int i;
	s64 leaked;

	/* No more polls (so no more frames for the net_devices), then the net_devices go. */
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
	spin_lock_bh(&eth->lock);
	leaked = fe_rs_close(eth->rs);
	spin_unlock_bh(&eth->lock);
	pr_info(DRV_NAME ": closed: %lld buffers left with the engine; %llu NAPI polls, %llu ns each on average\n",
		leaked, eth->polls, eth->polls ? div64_u64(eth->poll_ns, eth->polls) : 0);
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
	struct fe_eth *eth;
	void *probed, *build;
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
	eth = kzalloc(sizeof(*eth), GFP_KERNEL);
	if (!eth) {
		err = -ENOMEM;
		goto no_eth;
	}
	spin_lock_init(&eth->lock);
	/* Probe and build on the big stack; allocate and open on ours (see fe_on_big_stack). */
	probed = fe_on_big_stack(fe_rs_probe, &arg);
	fe_sleeper = current;
	build = fe_rs_prepare(probed, board, strlen(board));
	fe_sleeper = NULL;
	if (build && fe_on_big_stack(fe_rs_build, build) == build) {
		fe_sleeper = current;
		eth->rs = fe_rs_create(build, &eth->info);
		fe_sleeper = NULL;
	}
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
	spin_lock_bh(&eth->lock);
	fe_rs_start(eth->rs, ktime_get_ns());
	spin_unlock_bh(&eth->lock);
	napi_enable(&eth->napi);
	eth->napi_on = true;
	hrtimer_start(&eth->timer, ns_to_ktime((u64)tick_us * NSEC_PER_USEC), HRTIMER_MODE_REL_SOFT);
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
	pr_info(DRV_NAME ": board %s up (%u net_devices, tick %u us)\n", board, eth->info.nmacs, tick_us);
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
