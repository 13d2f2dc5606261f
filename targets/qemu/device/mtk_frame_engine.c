// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mtk-frame-engine: a MediaTek Ethernet frame engine on the Arm `virt` machine, backed by a
 * model loaded at run time.
 *
 * This file is a thin shim. Everything about the chip (which register windows exist and where,
 * what the registers do, which GIC SPIs carry its interrupts, how many MACs it has) lives in a
 * shared library implementing targets/qemu/include/fe_model.h (libfe_qemu_model.so), loaded
 * with dlopen when the device is realized. The shim maps the windows the model names and
 * forwards MMIO accesses, frames, interrupt levels and virtual time; it never interprets a
 * register. Guest RAM is handed to the model as a host pointer, so DMA goes straight to it.
 *
 * It is a plain qdev device without a bus, like `-device loader`, so it can be added to `virt`
 * from the command line without touching the board.
 *
 * Properties:
 *   model=PATH          the model library (required)
 *   dtb=PATH            the guest device tree the model reads its facts from (required)
 *   options=STR         passed to fe_model_new unchanged (e.g. trace=/tmp/fe.trace)
 *   netdev0..netdev2    the backend of MAC 0..2; a MAC without one has no wire: its frames
 *                       are dropped and counted (QOM properties tx-dropped0..2)
 *   mac0..mac2          MAC address shown by `info network` (the guest sets its own)
 *   verbose=on          also print the model's diagnostics on stderr
 * The model's diagnostics always go to `-d guest_errors`.
 *
 * Example (with no -netdev at all, add -nic none: QEMU's default virtio NIC wants a ROM file):
 *   qemu-system-aarch64 -machine virt -cpu cortex-a53 -m 512 -nographic \
 *     -kernel Image -dtb guest.dtb \
 *     -netdev socket,id=n0,listen=:5000 -netdev user,id=n1 \
 *     -device mtk-frame-engine,model=libfe_qemu_model.so,dtb=guest.dtb,netdev0=n0,netdev1=n1
 *
 * Time: the model runs on QEMU_CLOCK_VIRTUAL. Before every MMIO access and received frame the
 * shim runs it up to now; after every call it runs it again up to now to learn its next
 * deadline and arms one timer there. The model has no reset entry, so a system reset does not
 * reset it; the device cannot be migrated.
 */

#include "qemu/osdep.h"
#include <dlfcn.h>
#include "qapi/error.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "qom/object.h"
#include "exec/memory.h"
#include "exec/address-spaces.h"
#include "hw/boards.h"
#include "hw/irq.h"
#include "hw/qdev-core.h"
#include "hw/qdev-properties.h"
#include "hw/qdev-properties-system.h"
#include "migration/vmstate.h"
#include "net/net.h"
#include "fe_model.h"

#define TYPE_MTK_FRAME_ENGINE "mtk-frame-engine"
OBJECT_DECLARE_SIMPLE_TYPE(MtkFrameEngine, MTK_FRAME_ENGINE)

#define FE_NICS 3

/* Every function of fe_model.h, resolved with dlsym (typeof keeps the header's prototypes). */
#define FE_API(X) X(abi) X(new) X(window_count) X(window) X(irq_count) X(irq_spi) \
    X(mac_count) X(read) X(write) X(receive) X(can_receive) X(run) X(free)
typedef struct FeApi {
#define FE_API_FIELD(n) __typeof__(fe_model_##n) *n;
    FE_API(FE_API_FIELD)
} FeApi;

typedef struct FeWindow {
    MemoryRegion mr;
    MtkFrameEngine *s;
    uint32_t index;
    bool mapped;
} FeWindow;

typedef struct FePort {
    MtkFrameEngine *s;
    uint32_t mac;
    NICConf conf;
    NICState *nic;
    bool refused;           /* can_receive said no: flush the queue once it says yes */
    uint64_t tx_dropped;    /* frames sent while there was no wire */
} FePort;

struct MtkFrameEngine {
    DeviceState parent_obj;

    char *model_path;
    char *dtb_path;
    char *options;
    bool verbose;
    FePort port[FE_NICS];

    void *dl;
    FeApi api;
    FeModel *m;
    FeModelHost host;
    FeWindow *win;
    uint32_t nwin;
    qemu_irq *irq;
    uint32_t nirq;
    QEMUTimer *timer;
    int depth;              /* > 0 while inside a model call that may call back */
    bool flushing;
};

/* ---- calls into the model ---- */

/* Runs the model up to the current virtual time; returns its next deadline. */
static uint64_t fe_run(MtkFrameEngine *s)
{
    uint64_t next;

    s->depth++;
    next = s->api.run(s->m, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
    s->depth--;
    return next;
}

/* Lets frames queued while the model refused them in, now that it takes them. */
static void fe_flush(MtkFrameEngine *s)
{
    bool again = true;

    if (s->depth || s->flushing) {
        return;
    }
    s->flushing = true;
    for (int pass = 0; again && pass < 8; pass++) {
        again = false;
        for (int i = 0; i < FE_NICS; i++) {
            FePort *p = &s->port[i];
            if (p->nic && p->refused && s->api.can_receive(s->m, p->mac)) {
                p->refused = false;
                qemu_flush_queued_packets(qemu_get_queue(p->nic));
                again = true;
            }
        }
    }
    s->flushing = false;
}

/* After a call into the model: run it up to now, arm the timer at its deadline, flush. */
static void fe_sync(MtkFrameEngine *s)
{
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    uint64_t next = fe_run(s);

    if (next == UINT64_MAX) {
        timer_del(s->timer);
    } else {
        timer_mod(s->timer, MAX(MIN(next, (uint64_t)INT64_MAX), (uint64_t)now));
    }
    fe_flush(s);
}

static void fe_timer_cb(void *opaque)
{
    fe_sync(opaque);
}

/* ---- MMIO ---- */

static uint64_t fe_mmio_read(void *opaque, hwaddr offset, unsigned size)
{
    FeWindow *w = opaque;
    MtkFrameEngine *s = w->s;
    uint64_t v;

    if (!s->m) {
        return 0;
    }
    fe_run(s);
    s->depth++;
    v = s->api.read(s->m, w->index, offset, size);
    s->depth--;
    fe_sync(s);
    return v;
}

static void fe_mmio_write(void *opaque, hwaddr offset, uint64_t v, unsigned size)
{
    FeWindow *w = opaque;
    MtkFrameEngine *s = w->s;

    if (!s->m) {
        return;
    }
    fe_run(s);
    s->depth++;
    s->api.write(s->m, w->index, offset, v, size);
    s->depth--;
    fe_sync(s);
}

static const MemoryRegionOps fe_mmio_ops = {
    .read = fe_mmio_read,
    .write = fe_mmio_write,
    .endianness = DEVICE_LITTLE_ENDIAN,
    .valid = { .min_access_size = 1, .max_access_size = 8 },
    .impl = { .min_access_size = 1, .max_access_size = 8 },
};

/* ---- network ---- */

static bool fe_can_receive(NetClientState *nc)
{
    FePort *p = qemu_get_nic_opaque(nc);
    MtkFrameEngine *s = p->s;

    /* While the model is busy (a frame it sent looped back to us), queue. */
    if (!s->m || s->depth || !s->api.can_receive(s->m, p->mac)) {
        p->refused = true;
        return false;
    }
    return true;
}

static ssize_t fe_receive(NetClientState *nc, const uint8_t *buf, size_t len)
{
    FePort *p = qemu_get_nic_opaque(nc);
    MtkFrameEngine *s = p->s;

    if (!s->m || s->depth) {
        p->refused = true;
        return 0;                       /* stays queued until fe_flush */
    }
    fe_run(s);
    if (!s->api.can_receive(s->m, p->mac)) {
        p->refused = true;
        fe_sync(s);
        return 0;
    }
    s->depth++;
    s->api.receive(s->m, p->mac, buf, len);
    s->depth--;
    fe_sync(s);
    return len;
}

static NetClientInfo fe_net_info = {
    .type = NET_CLIENT_DRIVER_NIC,
    .size = sizeof(NICState),
    .can_receive = fe_can_receive,
    .receive = fe_receive,
};

/* ---- callbacks from the model ---- */

static void fe_host_log(void *opaque, const char *line)
{
    MtkFrameEngine *s = opaque;

    qemu_log_mask(LOG_GUEST_ERROR, "mtk-frame-engine: %s\n", line);
    if (s->verbose) {
        fprintf(stderr, "mtk-frame-engine: %s\n", line);
    }
}

static void fe_host_set_irq(void *opaque, uint32_t line, int level)
{
    MtkFrameEngine *s = opaque;

    if (line < s->nirq) {
        qemu_set_irq(s->irq[line], level != 0);
    } else {
        fe_host_log(s, "model raised an interrupt line it did not declare");
    }
}

static void fe_host_transmit(void *opaque, uint32_t mac, const uint8_t *frame, size_t len)
{
    MtkFrameEngine *s = opaque;

    if (mac < FE_NICS && s->port[mac].nic) {
        qemu_send_packet(qemu_get_queue(s->port[mac].nic), frame, len);
    } else if (mac < FE_NICS) {
        s->port[mac].tx_dropped++;      /* no wire */
    }
}

/* ---- life cycle ---- */

/* The guest physical address of `ram`, from its place in system memory. */
static bool fe_ram_base(MemoryRegion *ram, uint64_t *base)
{
    MemoryRegion *sysmem = get_system_memory(), *mr;
    uint64_t a = 0;

    for (mr = ram; mr && mr != sysmem; mr = mr->container) {
        a += mr->addr;
    }
    *base = a;
    return mr == sysmem;
}

static DeviceState *fe_find_gic(Error **errp)
{
    static const char *const types[] = { "arm_gic_common", "arm-gicv3-common" };

    for (size_t i = 0; i < ARRAY_SIZE(types); i++) {
        bool ambiguous = false;
        Object *o = object_resolve_path_type("", types[i], &ambiguous);
        if (ambiguous) {
            error_setg(errp, "mtk-frame-engine: more than one %s in the machine", types[i]);
            return NULL;
        }
        if (o) {
            return DEVICE(o);
        }
    }
    error_setg(errp, "mtk-frame-engine: no GICv2 or GICv3 in the machine (use -machine virt)");
    return NULL;
}

static void fe_teardown(MtkFrameEngine *s)
{
    if (s->timer) {
        timer_free(s->timer);
        s->timer = NULL;
    }
    for (int i = 0; i < FE_NICS; i++) {
        if (s->port[i].nic) {
            qemu_del_nic(s->port[i].nic);
            s->port[i].nic = NULL;
        }
    }
    for (uint32_t i = 0; i < s->nwin; i++) {
        if (s->win[i].mapped) {
            memory_region_del_subregion(get_system_memory(), &s->win[i].mr);
            object_unparent(OBJECT(&s->win[i].mr));
            s->win[i].mapped = false;
        }
    }
    if (s->m) {
        FeModel *m = s->m;
        s->m = NULL;
        s->api.free(m);
    }
    if (s->dl) {
        dlclose(s->dl);
        s->dl = NULL;
    }
    g_free(s->irq);
    s->irq = NULL;
    s->nirq = 0;
}

static bool fe_setup(MtkFrameEngine *s, Error **errp)
{
    DeviceState *dev = DEVICE(s);
    MachineState *ms = MACHINE(qdev_get_machine());
    MemoryRegion *sysmem = get_system_memory();
    DeviceState *gic;
    uint64_t ram_base, spis;
    uint32_t abi, nmac;
    char err[1024] = "";

    if (!s->model_path || !s->dtb_path) {
        error_setg(errp, "mtk-frame-engine: the 'model' and 'dtb' properties are required");
        return false;
    }
    s->dl = dlopen(s->model_path, RTLD_NOW | RTLD_LOCAL);
    if (!s->dl) {
        error_setg(errp, "mtk-frame-engine: cannot load the model: %s", dlerror());
        return false;
    }
#define FE_RESOLVE(n)                                                                   \
    s->api.n = dlsym(s->dl, "fe_model_" #n);                                            \
    if (!s->api.n) {                                                                    \
        error_setg(errp, "mtk-frame-engine: %s has no symbol fe_model_" #n, s->model_path); \
        return false;                                                                   \
    }
    FE_API(FE_RESOLVE)
#undef FE_RESOLVE
    abi = s->api.abi();
    if (abi != FE_MODEL_ABI) {
        error_setg(errp, "mtk-frame-engine: %s speaks model ABI %u, this QEMU speaks %u",
                   s->model_path, abi, FE_MODEL_ABI);
        return false;
    }

    if (!ms->ram || !memory_region_is_ram(ms->ram) || !fe_ram_base(ms->ram, &ram_base)) {
        error_setg(errp, "mtk-frame-engine: guest RAM is not a RAM region of system memory");
        return false;
    }
    s->host = (FeModelHost) {
        .opaque = s,
        .set_irq = fe_host_set_irq,
        .transmit = fe_host_transmit,
        .log = fe_host_log,
    };
    s->m = s->api.new(s->dtb_path, s->options ? s->options : "",
                      memory_region_get_ram_ptr(ms->ram), ram_base, ms->ram_size,
                      &s->host, err, sizeof(err));
    if (!s->m) {
        err[sizeof(err) - 1] = 0;
        error_setg(errp, "mtk-frame-engine: %s", err[0] ? err : "fe_model_new failed");
        return false;
    }

    gic = fe_find_gic(errp);
    if (!gic) {
        return false;
    }
    spis = object_property_get_uint(OBJECT(gic), "num-irq", NULL);
    spis = spis > 32 ? spis - 32 : 0;
    s->nirq = s->api.irq_count(s->m);
    s->irq = g_new0(qemu_irq, s->nirq);
    for (uint32_t i = 0; i < s->nirq; i++) {
        uint32_t spi = s->api.irq_spi(s->m, i);
        if (spi >= spis) {
            error_setg(errp, "mtk-frame-engine: interrupt %u is SPI %u, the GIC has %" PRIu64
                       " SPIs", i, spi, spis);
            return false;
        }
        s->irq[i] = qdev_get_gpio_in(gic, spi);     /* GIC inputs 0.. are the SPIs */
    }

    s->nwin = s->api.window_count(s->m);
    s->win = g_new0(FeWindow, s->nwin);
    for (uint32_t i = 0; i < s->nwin; i++) {
        FeWindow *w = &s->win[i];
        uint64_t base, size;
        const char *name;
        MemoryRegionSection sec;
        g_autofree char *mrname = NULL;

        if (s->api.window(s->m, i, &base, &size, &name) != 0 || !size) {
            error_setg(errp, "mtk-frame-engine: the model has no window %u", i);
            return false;
        }
        sec = memory_region_find(sysmem, base, size);
        if (sec.mr) {
            error_setg(errp, "mtk-frame-engine: window %s [0x%" PRIx64 ", +0x%" PRIx64
                       ") overlaps %s", name, base, size, memory_region_name(sec.mr));
            memory_region_unref(sec.mr);
            return false;
        }
        w->s = s;
        w->index = i;
        mrname = g_strdup_printf("mtk-fe.%s", name);
        memory_region_init_io(&w->mr, OBJECT(s), &fe_mmio_ops, w, mrname, size);
        memory_region_add_subregion(sysmem, base, &w->mr);
        w->mapped = true;
    }

    nmac = s->api.mac_count(s->m);
    for (uint32_t i = 0; i < FE_NICS; i++) {
        FePort *p = &s->port[i];
        g_autofree char *name = NULL;

        p->s = s;
        p->mac = i;
        if (!p->conf.peers.ncs[0]) {
            continue;
        }
        if (i >= nmac) {
            error_setg(errp, "mtk-frame-engine: netdev%u is set but the model has %u MACs",
                       i, nmac);
            return false;
        }
        name = dev->id ? g_strdup_printf("%s.mac%u", dev->id, i) : NULL;
        qemu_macaddr_default_if_unset(&p->conf.macaddr);
        p->nic = qemu_new_nic(&fe_net_info, &p->conf, object_get_typename(OBJECT(s)), name,
                              &dev->mem_reentrancy_guard, p);
        qemu_format_nic_info_str(qemu_get_queue(p->nic), p->conf.macaddr.a);
    }

    s->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, fe_timer_cb, s);
    fe_sync(s);
    return true;
}

static void fe_realize(DeviceState *dev, Error **errp)
{
    MtkFrameEngine *s = MTK_FRAME_ENGINE(dev);

    if (!fe_setup(s, errp)) {
        fe_teardown(s);
    }
}

static void fe_unrealize(DeviceState *dev)
{
    fe_teardown(MTK_FRAME_ENGINE(dev));
}

static void fe_instance_init(Object *obj)
{
    MtkFrameEngine *s = MTK_FRAME_ENGINE(obj);

    for (int i = 0; i < FE_NICS; i++) {
        g_autofree char *name = g_strdup_printf("tx-dropped%d", i);
        object_property_add_uint64_ptr(obj, name, &s->port[i].tx_dropped, OBJ_PROP_FLAG_READ);
    }
}

static void fe_instance_finalize(Object *obj)
{
    /* A realized device is unrealized (fe_teardown) before it is finalized. */
    g_free(MTK_FRAME_ENGINE(obj)->win);
}

static Property fe_properties[] = {
    DEFINE_PROP_STRING("model", MtkFrameEngine, model_path),
    DEFINE_PROP_STRING("dtb", MtkFrameEngine, dtb_path),
    DEFINE_PROP_STRING("options", MtkFrameEngine, options),
    DEFINE_PROP_BOOL("verbose", MtkFrameEngine, verbose, false),
    DEFINE_PROP_NETDEV("netdev0", MtkFrameEngine, port[0].conf.peers),
    DEFINE_PROP_NETDEV("netdev1", MtkFrameEngine, port[1].conf.peers),
    DEFINE_PROP_NETDEV("netdev2", MtkFrameEngine, port[2].conf.peers),
    DEFINE_PROP_MACADDR("mac0", MtkFrameEngine, port[0].conf.macaddr),
    DEFINE_PROP_MACADDR("mac1", MtkFrameEngine, port[1].conf.macaddr),
    DEFINE_PROP_MACADDR("mac2", MtkFrameEngine, port[2].conf.macaddr),
    DEFINE_PROP_END_OF_LIST(),
};

/* The model's state lives outside QEMU: refuse migration and snapshots. */
static const VMStateDescription fe_vmstate = {
    .name = TYPE_MTK_FRAME_ENGINE,
    .unmigratable = 1,
};

static void fe_class_init(ObjectClass *klass, void *data)
{
    DeviceClass *dc = DEVICE_CLASS(klass);

    dc->desc = "MediaTek Ethernet frame engine (model loaded from a shared library)";
    dc->realize = fe_realize;
    dc->unrealize = fe_unrealize;
    dc->vmsd = &fe_vmstate;
    dc->user_creatable = true;
    dc->hotpluggable = false;
    device_class_set_props(dc, fe_properties);
    set_bit(DEVICE_CATEGORY_NETWORK, dc->categories);
}

static const TypeInfo fe_info = {
    .name = TYPE_MTK_FRAME_ENGINE,
    .parent = TYPE_DEVICE,
    .instance_size = sizeof(MtkFrameEngine),
    .instance_init = fe_instance_init,
    .instance_finalize = fe_instance_finalize,
    .class_init = fe_class_init,
};

static void fe_register_types(void)
{
    type_register_static(&fe_info);
}

type_init(fe_register_types)
