//! The driver instance: one frame engine, its rings and buffers, bring-up (`open`) and teardown
//! (`close`), and the MACs' links.
//!
//! The SoC is data: every register comes from the [`SocInfo`] maps, every per-SoC difference
//! from its capabilities and descriptor layouts. The data path lives next door: [`crate::tx`]
//! (`xmit`, `reclaim`) and [`crate::rx`] (`poll`).
//!
//! Next door as well: `set_features` ([`crate::features`]), TX checksum offload and TSO
//! ([`crate::tx_offload`]), `ethtool -S` counters ([`crate::ethtool`]) and the TX watchdog, which
//! recovers by [`Eth::close`] and [`Eth::open`] ([`crate::watchdog`]). Per-port queues and QDMA
//! shaping: [`crate::shaping`] (applied by `open`, remade by `link_up` and `link_down`).

use crate::desc;
use crate::dt::board::{Board, Duplex, Link, MAX_MACS};
pub use crate::error::{ErrorKind, EthError};
pub use crate::offload::{Features, LroMode};
use crate::platform::Platform;
use crate::ring::rx::{RxRegs, RxRing};
use crate::ring::tx::{TxRegs, TxRing};
use crate::shared::Shared;
use crate::space_bus::CapBus;
use crate::stats::Stats;
use alloc::boxed::Box;
use fe_regs::SocInfo;
use fe_regs::descriptors::DescriptorLayout;
use fe_regs::values::{GdmaFwdCfg, MacMcr, MacMcrMaxRx, PdmaGloCfgRxBt, QdmaGloCfgTxBt, QdmaTxSchRate, QdmaTxSchRate2};

pub use crate::ring::fq::FQ_SIZE;
pub use crate::ring::rx::RX_RING;
pub use crate::ring::tx::{TX_BUF, TX_RING};
/// Bytes of every RX, TX and free-queue buffer.
pub const BUF_SIZE: usize = 2048;
/// GDMA destination value that drops every received frame.
const FWD_DROP: u16 = 0x7777;
/// No enabled MAC behind a PSE source port ([`Eth::rx_mac`]).
const NO_MAC: u8 = u8::MAX;
/// GDMA destination value that sends received frames to the CPU (PDMA).
const FWD_CPU: u16 = 0x0000;

/// Who owns a DMA buffer right now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    /// The driver: free (TX) or being processed (RX).
    Driver,
    /// The engine: queued for sending (TX), posted for receiving (RX), or in the free queue.
    Engine,
}

/// Buffers by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BufferCounts {
    /// RX buffers.
    pub rx: usize,
    /// TX buffers.
    pub tx: usize,
    /// Free-queue pages.
    pub fq: usize,
}

impl BufferCounts {
    /// Every buffer counted.
    #[must_use]
    pub fn total(&self) -> usize {
        self.rx + self.tx + self.fq
    }
}

/// What `close` did with the buffers and frames still in flight.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CloseReport {
    /// Buffers taken back from the engine.
    pub returned: BufferCounts,
    /// Buffers the engine still holds after close (always zero; anything else is a leak).
    pub leaked: BufferCounts,
    /// TX frames the engine had completed and `close` reclaimed (counted as sent).
    pub tx_completed: u64,
    /// TX frames queued but never taken by the engine (counted as dropped).
    pub tx_dropped: u64,
    /// RX frames received but not polled (counted as dropped).
    pub rx_dropped: u64,
}

/// A MAC's link as the driver programs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkState {
    /// Speed in Mbit/s.
    pub speed: u32,
    /// Duplex.
    pub duplex: Duplex,
    /// Symmetric pause.
    pub pause: bool,
}

/// One MAC, copied out of the probed device tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MacPort {
    /// MAC id.
    pub id: u8,
    /// `status = "okay"`.
    pub enabled: bool,
    /// The device tree's fixed link, if any (the link is up from `open`).
    pub fixed: Option<LinkState>,
    /// TX queue of traffic sent directly on this MAC.
    pub queue: u8,
    /// The link now (`None` = down).
    pub link: Option<LinkState>,
    /// The interface (`phy-mode`) the MAC's path is set up for ("" for a disabled MAC).
    pub interface: &'static str,
}

/// One frame engine driven by the core.
#[derive(Debug)]
pub struct Eth<P: Platform> {
    pub(crate) p: P,
    pub(crate) soc: &'static SocInfo,
    pub(crate) tx_layout: DescriptorLayout,
    pub(crate) rx_layout: DescriptorLayout,
    pub(crate) macs: [Option<MacPort>; MAX_MACS],
    pub(crate) open: bool,
    /// Bit per MAC enabled in the device tree.
    pub(crate) enabled: u8,
    /// The enabled MAC behind each PSE source port of an RX descriptor ([`NO_MAC`] for none):
    /// the one lookup `poll` makes per frame.
    pub(crate) rx_port: [u8; 8],
    /// Offloads, forwarding, the MACs ready to send, and the counters: what the handles share.
    pub(crate) shared: Shared,
    pub(crate) tx: TxRing,
    pub(crate) rx: RxRing<RX_RING>,
    pub(crate) fq: crate::ring::fq::FreeQueue,
    /// RX copy-out buffer, big enough for a hardware LRO aggregate (on the heap).
    pub(crate) scratch: Box<[u8; crate::ring::lro::MAX_LRO_BUF]>,
    /// Hardware LRO rings (none in use on a SoC without hardware LRO).
    pub(crate) lro: crate::ring::lro::LroRings,
    pub(crate) mib: crate::stats::MibTotals,
    pub(crate) wd: crate::stats::WatchdogState,
    pub(crate) ports: crate::shaping::ports::PortTable,
    /// Which QDMA queue each switch user port sends on (fixed by the board).
    pub(crate) queues: crate::shaping::ports::PortQueues,
}

/// The enabled MAC a frame from PSE source port `src_port` arrived on, in the port table
/// `ports` ([`NO_MAC`] for none).
#[inline(always)]
pub(crate) fn port_mac(ports: &[u8; 8], src_port: u8) -> Option<u8> {
    Some(ports[usize::from(src_port) % 8]).filter(|m| *m != NO_MAC)
}

/// The driver's record of each of `board`'s MACs (out of line: its loop's temporaries stay out
/// of [`Eth::new`]'s frame).
#[inline(never)]
fn mac_ports(soc: &'static SocInfo, board: &Board<'_>) -> [Option<MacPort>; MAX_MACS] {
    let mut macs = [None; MAX_MACS];
    for m in board.macs() {
        let fixed = match m.link {
            Link::Fixed { speed, duplex, pause } => Some(LinkState { speed, duplex, pause }),
            _ => None,
        };
        if let Some(slot) = macs.get_mut(m.id as usize) {
            let interface = crate::path_setup::interface(soc, m.id, m.phy_mode).unwrap_or("");
            *slot = Some(MacPort { id: m.id, enabled: m.enabled, fixed, queue: m.queue, link: None, interface });
        }
    }
    macs
}

/// Every ring's memory, registers and heap tables, allocated before the driver is built (out
/// of line, so that [`Eth::new`]'s own frame stays small: a kernel stack).
struct RingMem {
    tx: crate::ring::tx::TxMem,
    tx_regs: TxRegs,
    rx: crate::ring::rx::RxMem<RX_RING>,
    rx_regs: RxRegs,
    lro: crate::ring::lro::LroMem,
    fq: crate::ring::fq::FreeQueue,
    scratch: Box<[u8; crate::ring::lro::MAX_LRO_BUF]>,
}

impl RingMem {
    /// The rings of `board`'s engine (`soc`) from `p`: descriptors in DMA memory, or in the
    /// SRAM inside the board's register window. Each step gives back what the earlier ones took
    /// when it fails. Out of line, so its temporaries never share a frame with the driver's.
    #[inline(never)]
    fn alloc<P: Platform>(soc: &'static SocInfo, board: &Board<'_>, p: &P) -> Result<Self, EthError> {
        let (tx_layout, pd) = (soc.caps.tx_descriptor, &soc.fe.pdma);
        let q = &soc.fe.qdma;
        let tx_regs = TxRegs { ctx: q.ctx_ptr, dtx: q.dtx_ptr, crx: q.crx_ptr, drx: q.drx_ptr };
        let (Some(base), Some(count), Some(cpu)) = (pd.rx_ptr.at(0), pd.rx_cnt_cfg.at(0), pd.pcrx_ptr.at(0)) else {
            return Err(EthError::Unsupported("the SoC's register map has no PDMA RX ring 0"));
        };
        let rx_regs = RxRegs { base, count, cpu };
        let (fq_at, tx_at, rx_at) =
            crate::ring::sram::places(soc, board.reg.base, board.reg.size).map_err(EthError::Sram)?;
        let tx = TxRing::alloc(p, tx_layout, tx_at)?;
        let rx = RxRing::<RX_RING>::alloc(p, RX_RING, BUF_SIZE, rx_at).inspect_err(|_| tx.free(p))?;
        let lro = match soc.caps.hw_lro {
            Some(caps) => crate::ring::lro::LroRings::alloc(p, caps, pd).inspect_err(|_| {
                tx.free(p);
                rx.free(p);
            })?,
            None => crate::ring::lro::LroMem::none(),
        };
        let fq = crate::ring::fq::FreeQueue::new(p, tx_layout.size(), BUF_SIZE, fq_at).inspect_err(|_| {
            tx.free(p);
            rx.free(p);
            lro.free(p);
        })?;
        let scratch = crate::heap::table(0).inspect_err(|_| {
            tx.free(p);
            rx.free(p);
            lro.free(p);
            fq.free(p);
        })?;
        Ok(RingMem { tx, tx_regs, rx, rx_regs, lro, fq, scratch })
    }
}

impl<P: Platform> Eth<P> {
    /// A driver for the frame engine `board` describes (its SoC, MACs and switch ports), on
    /// platform `p`. Allocates every ring and buffer now (nothing is allocated later); the
    /// engine is untouched until [`Eth::open`].
    // Never inlined: the caller's slot is then the one place the driver is built (inlined into a
    // caller that writes the result to the heap, it was built on that caller's stack first).
    #[inline(never)]
    pub fn new(board: &Board<'_>, p: P) -> Result<Self, EthError> {
        let soc = board.soc;
        let (tx_layout, rx_layout) = (soc.caps.tx_descriptor, soc.caps.rx_descriptor);
        if !desc::is_tx(tx_layout) {
            return Err(EthError::UnsupportedLayout(tx_layout));
        }
        if !desc::is_rx(rx_layout) {
            return Err(EthError::UnsupportedLayout(rx_layout));
        }
        crate::path_setup::check_buses(board, &p)?;
        let macs = mac_ports(soc, board);
        let m = RingMem::alloc(soc, board, &p)?;
        Ok(Eth {
            p,
            soc,
            tx_layout,
            rx_layout,
            enabled: macs.iter().flatten().filter(|m| m.enabled && m.id < 8).fold(0, |a, m| a | 1 << m.id),
            rx_port: rx_ports(&macs),
            macs,
            open: false,
            shared: Shared::new(Features::default()),
            tx: TxRing::with(m.tx, tx_layout, m.tx_regs),
            rx: RxRing::with(m.rx, rx_layout, m.rx_regs),
            fq: m.fq,
            lro: crate::ring::lro::LroRings::with(m.lro, rx_layout),
            mib: crate::stats::MibTotals::default(),
            wd: crate::stats::WatchdogState::default(),
            queues: crate::shaping::ports::board_queues(board),
            ports: crate::shaping::ports::user_ports(soc, board),
            scratch: m.scratch,
        })
    }

    /// The SoC being driven.
    #[must_use]
    pub fn soc(&self) -> &'static SocInfo {
        self.soc
    }

    /// The platform (buses, DMA memory, clock).
    #[must_use]
    pub fn platform(&self) -> &P {
        &self.p
    }

    /// Whether the interface is open.
    #[must_use]
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// The software counters now.
    #[must_use]
    pub fn stats(&self) -> Stats {
        self.shared.stats.snapshot()
    }

    /// The offloads in force (all on after `new`; changed by `set_features`, kept across
    /// `close`/`open`).
    #[must_use]
    pub fn features(&self) -> Features {
        self.shared.features()
    }

    /// MAC `id` as the driver knows it.
    #[must_use]
    pub fn mac(&self, id: u8) -> Option<&MacPort> {
        self.macs.get(id as usize).and_then(Option::as_ref)
    }

    /// The enabled MACs.
    pub fn enabled_macs(&self) -> impl Iterator<Item = &MacPort> {
        self.macs.iter().flatten().filter(|m| m.enabled)
    }

    /// The QDMA queue of traffic sent directly on MAC `mac` (queue = MAC id, never shaped).
    /// Switch user ports: [`Eth::port_queue`].
    #[must_use]
    pub fn queue_for_mac(&self, mac: u8) -> u8 {
        self.mac(mac).map_or(mac, |m| m.queue)
    }

    /// Buffers the engine holds now, from the ownership tables.
    #[must_use]
    pub fn engine_buffers(&self) -> BufferCounts {
        BufferCounts {
            rx: self.rx.engine_held() + self.lro.engine_held(),
            tx: self.tx.engine_held(),
            fq: if self.fq.in_engine { FQ_SIZE } else { 0 },
        }
    }

    /// Brings the engine up: cold reset through ETHSYS, QDMA free queue and TX ring, PDMA RX
    /// ring 0, GDMA forwarding to the CPU with RX checksum checks, MAC force mode per enabled
    /// MAC, interrupt masks, then the DMA enables.
    pub fn open(&mut self) -> Result<(), EthError> {
        if self.open {
            return Err(EthError::AlreadyOpen);
        }
        self.cold_reset();
        let enabled = self.macs.iter().flatten().filter(|m| m.enabled).map(|m| (m.id, m.interface));
        crate::path_setup::apply_all(&self.p, self.soc, enabled)?;
        self.init_free_queue()?;
        self.tx_init()?;
        self.rx_init()?;
        self.lro_rings_init()?;
        if self.shared.features().lro == LroMode::Hw {
            self.hw_lro_enable();
        }
        for id in 0..self.soc.fe.gdma.len() {
            self.init_gdma(id);
        }
        for id in 0..self.soc.fe.mac.len() {
            let link = self.mac(id as u8).filter(|m| m.enabled).and_then(|m| m.fixed);
            if let Some(m) = self.macs.get_mut(id).and_then(Option::as_mut) {
                m.link = link;
            }
            program_mcr(&self.p, self.soc, id, link);
        }
        self.ctl_handle().apply_shaping();
        self.init_irqs();
        self.start_dma();
        self.open = true;
        self.refresh_ready();
        Ok(())
    }

    /// Stops the engine and takes every buffer back: GDMA to drop, MACs to the link-down
    /// default, DMA off; completed TX descriptors are reclaimed (sent), the rest counted as
    /// dropped, unpolled RX frames counted as dropped. The report says what was returned and
    /// that nothing leaked.
    pub fn close(&mut self) -> Result<CloseReport, EthError> {
        if !self.open {
            return Err(EthError::NotOpen);
        }
        let bus = self.p.fe();
        let fe = self.soc.fe.bind(&bus);
        for id in 0..fe.gdma().len() {
            if let Some(g) = fe.gdma().at(id) {
                g.fwd_cfg().modify(|v| v.set_fwd(FWD_DROP));
            }
        }
        for id in 0..self.soc.fe.mac.len() {
            program_mcr(&self.p, self.soc, id, None);
            if let Some(m) = self.macs.get_mut(id).and_then(Option::as_mut) {
                m.link = None;
            }
        }
        self.hw_lro_disable()?;
        fe.pdma().irq_mask().write(|_| ());
        fe.qdma().int_mask().write(|_| ());
        fe.pdma().glo_cfg().modify(|v| v.set_rx_dma_en(false));
        fe.qdma().glo_cfg().modify(|v| {
            v.set_tx_dma_en(false);
            v.set_rx_dma_en(false);
        });
        self.wait_dma_idle();
        let held = self.engine_buffers();
        let sent_before = self.shared.stats.tx_frames();
        self.reclaim();
        let tx_completed = self.shared.stats.tx_frames() - sent_before;
        let tx_dropped = self.tx.teardown(&self.p)?;
        self.shared.stats.drops.tx_teardown.add(tx_dropped);
        let rx_dropped = self.rx_teardown()? + self.lro_teardown()?;
        self.fq.in_engine = false;
        self.open = false;
        self.refresh_ready();
        let leaked = self.engine_buffers();
        debug_assert_eq!(leaked.total(), 0, "close left buffers with the engine");
        Ok(CloseReport { returned: held, leaked, tx_completed, tx_dropped, rx_dropped })
    }

    /// Whether `xmit` on MAC `mac` would queue a frame now: the engine is open, the MAC enabled
    /// with its link up (its queue awake) and a descriptor free. A stack stops the MAC's queue
    /// while this is false and wakes it after `reclaim` or `link_up`.
    #[must_use]
    pub fn can_xmit(&self, mac: u8) -> bool {
        self.shared.tx_ready() & 1u8.checked_shl(u32::from(mac)).unwrap_or(0) != 0 && self.tx.room() > 0
    }

    /// Recomputes which MACs can send from `open` and the MACs' links.
    pub(crate) fn refresh_ready(&mut self) {
        self.shared.set_tx_ready(ready_mask(&self.macs, self.open));
    }

    /// Pulses the SoC's cold-reset bits in ETHSYS: assert, ~1 ms, deassert, 10 ms.
    fn cold_reset(&self) {
        let Some(bits) = self.soc.caps.cold_reset.field().and_then(|f| self.p.cap(f)) else { return };
        bits.set(true);
        self.p.delay_ns(1_000_000);
        bits.set(false);
        self.p.delay_ns(10_000_000);
    }

    /// The free queue: a linked list of pages the engine buffers frames in.
    fn init_free_queue(&mut self) -> Result<(), EthError> {
        self.fq.reset(&self.p, self.tx_layout, &self.soc.fe.qdma)?;
        Ok(())
    }

    /// The QDMA TX ring (its four pointers), and every queue's config and scheduler base value.
    fn tx_init(&mut self) -> Result<(), EthError> {
        self.tx.reset(&self.p)?;
        let bus = self.p.fe();
        let fe = self.soc.fe.bind(&bus);
        let q = fe.qdma();
        let shaper = self.soc.caps.shaper;
        let queues = usize::from(self.soc.caps.tx_queues).min(q.qtx_cfg().len());
        for i in 0..queues {
            if let Some(r) = q.qtx_cfg().at(i) {
                r.write(|v| {
                    v.set_res_thres_hi(4);
                    v.set_res_thres_lo(4);
                });
            }
            if let Some(sch) = shaper.at(i).and_then(|f| self.p.cap(f)) {
                sch.put(shaper.base);
            }
        }
        // Every scheduler uses max-rate WFQ (elements in range by construction).
        q.tx_sch_rate().write(|v| {
            for n in 0..QdmaTxSchRate::SCH_MAX_WFQ_COUNT {
                let _ = v.set_sch_max_wfq(n, true);
            }
        });
        if let Some(r) = q.tx_sch_rate2() {
            r.write(|v| {
                for n in 0..QdmaTxSchRate2::SCH_MAX_WFQ_COUNT {
                    let _ = v.set_sch_max_wfq(n, true);
                }
            });
        }
        Ok(())
    }

    /// PDMA RX ring 0: every descriptor given to the DMA with an empty 2 KiB buffer.
    fn rx_init(&mut self) -> Result<(), EthError> {
        self.rx.reset(&self.p)?;
        self.soc.fe.bind(&self.p.fe()).pdma().rst_idx().write(|v| {
            let ring0 = v.set_pst_drx_idx(0, true);
            debug_assert!(ring0, "rst_idx has ring 0's bit");
        });
        Ok(())
    }

    /// GDMA of MAC `id`: to the CPU with the RX checksum bits as the features say, or drop for a
    /// MAC the device tree leaves disabled.
    fn init_gdma(&self, id: usize) {
        let bus = self.p.fe();
        let fe = self.soc.fe.bind(&bus);
        let Some(g) = fe.gdma().at(id) else { return };
        let enabled = self.mac(id as u8).is_some_and(|m| m.enabled);
        g.fwd_cfg()
            .write_value(GdmaFwdCfg(0).with_fwd(if enabled { FWD_CPU } else { FWD_DROP }).with_strp_crc(enabled));
        if enabled {
            apply_rx_checksum(&self.p, self.soc, id, self.shared.rx_checksum());
        }
    }

    /// Acknowledges stale interrupts and unmasks RX done (PDMA) and TX done (QDMA). Routing
    /// them to the SoC's lines (`int_grp`) comes with interrupt handling, the next part.
    fn init_irqs(&self) {
        let bus = self.p.fe();
        let fe = self.soc.fe.bind(&bus);
        fe.pdma().irq_status().write(|v| v.clear_rx_done());
        fe.qdma().int_status().write(|v| {
            v.clear_tx_done();
            v.clear_rx_done();
        });
        self.set_irq_moderation(self.soc.caps.irq.moderation);
        fe.pdma().irq_mask().write(|v| v.set_rx_done(true));
        fe.qdma().int_mask().write(|v| v.set_tx_done(true));
    }

    /// Turns PDMA RX and QDMA TX on.
    fn start_dma(&self) {
        let bus = self.p.fe();
        let fe = self.soc.fe.bind(&bus);
        fe.pdma().glo_cfg().modify(|v| {
            v.set_rx_bt(PdmaGloCfgRxBt::Dw32);
            v.set_rx_dma_en(true);
        });
        fe.qdma().glo_cfg().modify(|v| {
            v.set_tx_bt(QdmaGloCfgTxBt::Dw32);
            v.set_tx_wb_ddone(true);
            v.set_tx_dma_en(true);
        });
    }

    /// Waits (up to 1 ms) for both DMA engines to report idle.
    fn wait_dma_idle(&self) {
        let bus = self.p.fe();
        let fe = self.soc.fe.bind(&bus);
        for _ in 0..100 {
            let rx = fe.pdma().glo_cfg().read().rx_dma_busy();
            let tx = fe.qdma().glo_cfg().read().tx_dma_busy();
            if !rx && !tx {
                return;
            }
            self.p.delay_ns(10_000);
        }
    }
}

/// Recomputes which MACs can send: bit `m` set while the engine is `open` and MAC `m` is
/// enabled with its link up (the one test `xmit` makes on its fast path).
pub(crate) fn ready_mask(macs: &[Option<MacPort>; MAX_MACS], open: bool) -> u8 {
    macs.iter().flatten().filter(|m| open && m.enabled && m.id < 8 && m.link.is_some()).fold(0, |a, m| a | 1 << m.id)
}

/// The enabled MAC behind each PSE source port ([`NO_MAC`] for none): GDMA n is PSE port n + 1.
fn rx_ports(macs: &[Option<MacPort>; MAX_MACS]) -> [u8; 8] {
    let mut rx = [NO_MAC; 8];
    for m in macs.iter().flatten().filter(|m| m.enabled && m.id < 7) {
        rx[usize::from(m.id) + 1] = m.id;
    }
    rx
}

/// Sets or clears the SoC's RX checksum bits (ICS/TCS/UCS, from the capabilities) of MAC `id`.
pub(crate) fn apply_rx_checksum<P: Platform>(p: &P, soc: &SocInfo, id: usize, on: bool) {
    if let Some(bits) = soc.caps.rx_checksum.at(id).and_then(|f| p.cap(f)) {
        bits.set(on);
    }
}

/// MAC `id`'s control register: force mode with the link's settings, or FORCE_MODE only (link
/// down).
pub(crate) fn program_mcr<P: Platform>(p: &P, soc: &SocInfo, id: usize, link: Option<LinkState>) {
    let bus = p.fe();
    let fe = soc.fe.bind(&bus);
    let Some(m) = fe.mac().at(id) else { return };
    let v = match link {
        None => MacMcr(0).with_force_mode(true),
        Some(l) => MacMcr(0)
            .with_force_mode(true)
            .with_force_link(true)
            .with_tx_en(true)
            .with_rx_en(true)
            .with_backoff_en(true)
            .with_backpr_en(true)
            .with_ipg_cfg(0b101)
            .with_max_rx(MacMcrMaxRx::B1536)
            .with_force_dpx(l.duplex == Duplex::Full)
            // 2.5 Gbit/s SerDes links use the 1000 setting.
            .with_speed_1000(l.speed >= 1000)
            .with_speed_100(l.speed == 100)
            .with_force_tx_fc(l.pause)
            .with_force_rx_fc(l.pause),
    };
    m.mcr().write_value(v);
}

impl<P: Platform> Drop for Eth<P> {
    /// Stops the engine if it is open (every buffer taken back, in-flight frames counted) and
    /// returns all DMA memory to the platform, so a driver can be unloaded cleanly.
    fn drop(&mut self) {
        if self.open {
            // A DMA error here leaves nothing better to do than to free the memory anyway: the
            // engines are off by the time close can fail.
            let _ = self.close();
        }
        self.tx.free(&self.p);
        self.rx_pool_release();
        self.rx.free(&self.p);
        self.lro.free(&self.p);
        self.fq.free(&self.p);
    }
}
