/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * fe_model.h: the contract between the QEMU device `mtk-frame-engine` (a thin C shim compiled
 * into QEMU) and the frame-engine model (`fe-sim`, built as the shared library
 * libfe_qemu_model.so by targets/qemu, loaded with dlopen from the device's `model` property).
 *
 * The model owns every fact about the chip: which register windows exist and where (it reads
 * the guest device tree named by the `dtb` property, the same tree the guest boots with), which
 * GIC SPIs carry its interrupt lines, how many MACs have a wire. The shim maps what it is told,
 * forwards MMIO, frames and time, and never interprets a register.
 *
 * Threading: every call happens under QEMU's big lock (MMIO, timers and NIC receive all run
 * with it held), so the model is single-threaded. Callbacks run inside the call that caused them.
 */
#ifndef FE_MODEL_H
#define FE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI version; the shim refuses a model whose fe_model_abi() differs. */
#define FE_MODEL_ABI 1

typedef struct FeModel FeModel;

/* What the model calls back into the device. */
typedef struct FeModelHost {
    void *opaque;
    /* Interrupt line `line` (index into fe_model_irq_spi) goes to `level` (0 or 1). */
    void (*set_irq)(void *opaque, uint32_t line, int level);
    /* MAC `mac` finished putting `frame` (no FCS, padded to 60 bytes) on its wire. */
    void (*transmit)(void *opaque, uint32_t mac, const uint8_t *frame, size_t len);
    /* One line of diagnostics (a driver violation, a refused access), without newline. */
    void (*log)(void *opaque, const char *line);
} FeModelHost;

/* FE_MODEL_ABI of the library. */
uint32_t fe_model_abi(void);

/*
 * A model of the frame engine that the guest tree `dtb_path` describes (its Ethernet node, the
 * syscons it points at, its MACs and switch). Guest RAM is `ram_size` bytes at guest physical
 * address `ram_base`, reachable by the model at host address `ram` (DMA goes straight to it).
 * `options` is a comma-separated list of key=value pairs (may be NULL or ""):
 *   trace=PATH   log every MMIO write (time, window, offset, register name, value) to PATH.
 * On failure returns NULL and writes a NUL-terminated message (naming the file and the node
 * path) into err (err_len bytes).
 */
FeModel *fe_model_new(const char *dtb_path, const char *options, uint8_t *ram, uint64_t ram_base,
                      uint64_t ram_size, const FeModelHost *host, char *err, size_t err_len);

/* Register windows: how many, and window i's guest physical base, size and name ("fe", "ethsys",
 * "sgmiisys0", ...; valid while the model lives). Returns 0 on success, -1 for i out of range. */
uint32_t fe_model_window_count(const FeModel *m);
int fe_model_window(const FeModel *m, uint32_t i, uint64_t *base, uint64_t *size, const char **name);

/* Interrupt lines in device-tree order: how many, and the GIC SPI number of line i. */
uint32_t fe_model_irq_count(const FeModel *m);
uint32_t fe_model_irq_spi(const FeModel *m, uint32_t i);

/* MACs (index = the DT's mac@N reg); the shim gives each one a NIC (netdev0, netdev1, ...). */
uint32_t fe_model_mac_count(const FeModel *m);

/* An MMIO access of `size` bytes (1, 2, 4 or 8) at `offset` of window `window`. The shim calls
 * fe_model_run with the current virtual time first, as before fe_model_receive. */
uint64_t fe_model_read(FeModel *m, uint32_t window, uint64_t offset, uint32_t size);
void fe_model_write(FeModel *m, uint32_t window, uint64_t offset, uint64_t value, uint32_t size);

/* A frame (no FCS) from MAC `mac`'s link partner (the NIC backend). */
void fe_model_receive(FeModel *m, uint32_t mac, const uint8_t *frame, size_t len);

/* Whether MAC `mac` can take a frame now (its receive path is enabled and has room). */
int fe_model_can_receive(const FeModel *m, uint32_t mac);

/*
 * Runs the model up to `now_ns` (QEMU_CLOCK_VIRTUAL): frames leave through transmit, lines
 * change through set_irq. Returns the virtual time at which it wants to run next, or
 * UINT64_MAX when nothing is pending (MMIO and receive calls run it too).
 */
uint64_t fe_model_run(FeModel *m, uint64_t now_ns);

/* Frees the model (the device is being destroyed). */
void fe_model_free(FeModel *m);

#ifdef __cplusplus
}
#endif

#endif /* FE_MODEL_H */
