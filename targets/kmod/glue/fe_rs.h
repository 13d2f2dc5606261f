/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * The functions the Rust half (targets/kmod/src/dev.rs) exports to the C glue, and the hooks
 * it imports. Which context calls each and under which lock is written in dev.rs: TX under
 * fe_eth.tx_lock, NAPI without a lock, the interrupt path without a lock, control under
 * fe_eth.ctl_lock, the whole engine (set_features_whole, close) with everything stopped; the
 * Rust half takes fe_eth.chip_lock itself (fe_kmod_chip_lock) around each access to the chip.
 */
#ifndef FE_RS_H
#define FE_RS_H

#include <linux/types.h>
#include <linux/spinlock_types.h>

#define FE_RS_MAX_MACS 3
#define FE_RS_REGS_WORDS (1 + FE_RS_MAX_MACS)
#define FE_RS_STAT_NAME_LEN 32
#define FE_RS_XMIT_OK 0
#define FE_RS_XMIT_FULL 1
#define FE_RS_XMIT_DROP (-1)
#define FE_RS_FEATURES_OK 0
#define FE_RS_FEATURES_REFUSED (-1)
#define FE_RS_FEATURES_NEED_WHOLE 1

struct fe_rs_dev;

struct fe_rs_info {
	u32 nmacs;
	u8 mac[FE_RS_MAX_MACS];
	u8 partner[FE_RS_MAX_MACS];
	char soc[16];
};

struct fe_rs_probe_arg {
	const char *name;
	size_t len;
	const u8 *blob;
	size_t blob_len;
};

void *fe_rs_probe(void *arg);
struct fe_rs_dev *fe_rs_create(void *probed, const char *name, size_t len, spinlock_t *chip_lock,
				struct fe_rs_info *info);
void fe_rs_start(struct fe_rs_dev *dev, u64 now_ns);
s64 fe_rs_close(struct fe_rs_dev *dev);
void fe_rs_destroy(struct fe_rs_dev *dev);
u64 fe_rs_step(struct fe_rs_dev *dev, u64 now_ns, void *ctx);
u32 fe_rs_reclaim(struct fe_rs_dev *dev);
u32 fe_rs_irq(struct fe_rs_dev *dev, u64 now_ns, void *ctx);
void fe_rs_irq_enable(struct fe_rs_dev *dev, u32 work);
void fe_rs_peer_send(struct fe_rs_dev *dev, u8 mac, const u8 *data, size_t len);
u32 fe_rs_tx_room(struct fe_rs_dev *dev);
u32 fe_rs_poll(struct fe_rs_dev *dev, u32 budget, void *ctx, bool zero_copy);
/* One piece of a frame to send (fe_rs_xmit): an skb's head or one of its page fragments. */
struct fe_rs_part {
	const u8 *data;
	size_t len;
};
/* Most pieces fe_rs_xmit takes (the head and MAX_SKB_FRAGS fragments; the glue checks). */
#define FE_RS_TX_PARTS 18
int fe_rs_xmit(struct fe_rs_dev *dev, u8 mac, const struct fe_rs_part *parts, u32 nparts, u16 gso_mss, bool csum,
	       u32 *room);
int fe_rs_set_features(struct fe_rs_dev *dev, bool rx_csum, bool tx_csum, bool tso, bool lro);
int fe_rs_set_features_whole(struct fe_rs_dev *dev, bool rx_csum, bool tx_csum, bool tso, bool lro);
u32 fe_rs_regs(struct fe_rs_dev *dev, u8 mac, u32 *out);
u32 fe_rs_stats(struct fe_rs_dev *dev, u8 mac, char *names, u64 *values, u32 max);

/* Imported by the Rust half. */
u32 fe_kmod_chip_lock(void *lock);
void fe_kmod_chip_unlock(void *lock);
void *fe_kmod_alloc(size_t size, size_t align, bool zero);
void fe_kmod_free(void *ptr, size_t align);
void *fe_kmod_dma_alloc(size_t size, u64 *dma);
void fe_kmod_dma_free(void *cpu, size_t size, u64 dma);
bool fe_kmod_dma_pages_ok(const void *cpu, size_t size);
bool fe_kmod_page_idle(const void *cpu);
void fe_kmod_log(u32 level, const char *msg, size_t len);
void __noreturn fe_kmod_panic(const char *msg, size_t len);
void fe_kmod_rx(void *ctx, u8 mac, const u8 *data, size_t len, bool verified, u16 segs, u16 seg_size);
void fe_kmod_peer_rx(void *ctx, u8 mac, const u8 *data, size_t len);
void fe_kmod_rx_page(void *ctx, u8 mac, void *page, u32 headroom, size_t len, bool verified);

#endif
