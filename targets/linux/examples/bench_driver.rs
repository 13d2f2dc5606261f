//! Benchmark (not a test): instructions per frame in the driver core, without the model.
//!
//! The platform here is plain memory: registers are an array, DMA memory a byte vector, and the
//! "hardware" (completing TX descriptors, filling RX ones) is emulated by this program outside
//! the driver's functions. `scripts/bench-driver` runs it under callgrind, collecting only inside
//! `xmit`, `reclaim` and `poll`, for two frame counts, and reports the difference per frame.
//!
//! Usage: `bench_driver tx|txburst|rx|rxsoft|rxzc|rxzcsoft FRAME_BYTES N` (`rxsoft`: RX through
//! SoftLRO, one bulk TCP flow, so every frame is merged; `rxzc`: zero-copy RX, each frame handed
//! up in its DMA buffer from the platform's pool (`Eth::poll_buffers`), the stack giving it back
//! to the pool; `rxzcsoft`: SoftLRO on the pooled ring (`Eth::poll_buffers_coalesced`)).

use fe_driver::dt;
use fe_driver::eth::Eth;
use fe_driver::platform::{Clock, DmaError, DmaMemory, Platform, RxPool};
use fe_regs::bus::Bus;
use std::cell::{Cell, RefCell};

const DMA_BASE: u64 = 0x1000_0000;
/// Frames per RX poll (NAPI's default weight): a loaded interface finds a full budget each poll.
const BUDGET: usize = 64;

struct Mem {
    regs: RefCell<Vec<u32>>,
    sys: RefCell<Vec<u32>>,
    dma: RefCell<Vec<u8>>,
    next: Cell<usize>,
    now: Cell<u64>,
    /// The RX pool: free buffers' addresses (a page pool's recycling ring).
    pool: RefCell<Vec<u32>>,
}

#[derive(Clone, Copy)]
struct Regs<'a>(&'a RefCell<Vec<u32>>);

// Every platform method is `#[inline(never)]` so callgrind can attribute it to the platform
// (the "model") and `scripts/bench-driver` can subtract it from the driver core's count.
impl Bus for Regs<'_> {
    #[inline(never)]
    fn read32(&self, offset: usize) -> u32 {
        self.0.borrow()[offset / 4]
    }
    #[inline(never)]
    fn write32(&self, offset: usize, value: u32) {
        self.0.borrow_mut()[offset / 4] = value;
    }
}

#[derive(Clone, Copy)]
struct Null<'a>(&'a Mem);

impl DmaMemory for Null<'_> {
    #[inline(never)]
    fn dma_alloc(&self, size: usize, align: usize) -> Option<u64> {
        let start = (self.0.next.get() + align - 1) & !(align - 1);
        let end = start + size;
        let mut d = self.0.dma.borrow_mut();
        if end > d.len() {
            d.resize(end, 0);
        }
        self.0.next.set(end);
        Some(DMA_BASE + start as u64)
    }
    #[inline(never)]
    fn dma_free(&self, _addr: u64, _size: usize) {}
    #[inline(never)]
    fn rx_release(&self, addr: u64, _size: usize) {
        self.0.pool.borrow_mut().push(addr as u32);
    }
    // Barriers as a real platform has them: on x86_64 both are compiler fences (stores are not
    // reordered with stores, nor loads with loads), on arm64 `dmb oshst` / `dmb oshld`.
    #[inline(never)]
    fn dma_wmb(&self) {
        std::sync::atomic::fence(std::sync::atomic::Ordering::Release);
    }
    #[inline(never)]
    fn dma_rmb(&self) {
        std::sync::atomic::fence(std::sync::atomic::Ordering::Acquire);
    }
    // In place, as a real platform does with volatile loads: the done word, the barrier, the rest.
    #[inline(never)]
    fn dma_read_desc(&self, addr: u64, ctrl: usize, done: u32, out: &mut [u32]) -> Result<bool, DmaError> {
        let c = rd(self.0, addr + 4 * ctrl as u64);
        if c & done == 0 {
            if let Some(w) = out.get_mut(ctrl) {
                *w = c;
            }
            return Ok(false);
        }
        std::sync::atomic::fence(std::sync::atomic::Ordering::Acquire);
        for (k, w) in out.iter_mut().enumerate() {
            *w = rd(self.0, addr + 4 * k as u64);
        }
        Ok(true)
    }
    #[inline(never)]
    fn dma_read(&self, addr: u64, out: &mut [u8]) -> Result<(), DmaError> {
        let s = (addr - DMA_BASE) as usize;
        out.copy_from_slice(&self.0.dma.borrow()[s..s + out.len()]);
        Ok(())
    }
    #[inline(never)]
    fn dma_write(&self, addr: u64, data: &[u8]) -> Result<(), DmaError> {
        let s = (addr - DMA_BASE) as usize;
        self.0.dma.borrow_mut()[s..s + data.len()].copy_from_slice(data);
        Ok(())
    }
    // A platform with directly addressable DMA memory reads and writes descriptor words in
    // place, as a real one does with volatile accesses.
    #[inline(never)]
    fn dma_read_words(&self, addr: u64, out: &mut [u32]) -> Result<(), DmaError> {
        for (k, w) in out.iter_mut().enumerate() {
            *w = rd(self.0, addr + 4 * k as u64);
        }
        Ok(())
    }
    #[inline(never)]
    fn dma_write_words(&self, addr: u64, words: &[u32]) -> Result<(), DmaError> {
        for (k, w) in words.iter().enumerate() {
            wr(self.0, addr + 4 * k as u64, *w);
        }
        Ok(())
    }
}

/// A received frame's buffer as the stack owns it: 8 bytes, as an skb pointer or a buffer index
/// is (so `rx_swap`'s answer, with the fresh buffer's address, comes back in two registers).
struct Buf {
    addr: u32,
    len: u32,
}

/// Zero-copy receive: the pool is a free list of 2 KiB DMA buffers (a page pool's recycling
/// ring); handing a filled buffer over is passing its address and length (memory is coherent
/// here, so there is nothing to sync).
impl RxPool for Null<'_> {
    type Buf = Buf;
    #[inline(never)]
    fn rx_alloc(&self, _size: usize) -> Option<u32> {
        self.0.pool.borrow_mut().pop()
    }
    #[inline(never)]
    fn rx_swap(&self, filled: u32, len: usize) -> Option<(u32, Buf)> {
        let fresh = self.0.pool.borrow_mut().pop()?;
        Some((fresh, Buf { addr: filled, len: len as u32 }))
    }
}

impl Clock for Null<'_> {
    #[inline(never)]
    fn now_ns(&self) -> u64 {
        self.0.now.get()
    }
    #[inline(never)]
    fn delay_ns(&self, ns: u64) {
        self.0.now.set(self.0.now.get() + ns);
    }
}

impl<'a> Platform for Null<'a> {
    type Fe = Regs<'a>;
    type Syscon = Regs<'a>;
    fn fe(&self) -> Regs<'a> {
        Regs(&self.0.regs)
    }
    /// Every syscon shares one small register file: the benchmark measures the data path.
    fn syscon(&self, _space: fe_regs::Space) -> Option<Regs<'a>> {
        Some(Regs(&self.0.sys))
    }
}

fn rd(m: &Mem, addr: u64) -> u32 {
    let s = (addr - DMA_BASE) as usize;
    let d = m.dma.borrow();
    u32::from_le_bytes([d[s], d[s + 1], d[s + 2], d[s + 3]])
}

fn wr(m: &Mem, addr: u64, v: u32) {
    let s = (addr - DMA_BASE) as usize;
    m.dma.borrow_mut()[s..s + 4].copy_from_slice(&v.to_le_bytes());
}

/// The "stack": takes a received frame (kept out of line so the benchmark can exclude it).
#[inline(never)]
fn stack(bytes: &mut usize, frame: &[u8]) {
    *bytes += std::hint::black_box(frame).len();
}

/// One RX poll: the entry point `scripts/bench-driver` collects in (out of line, so the
/// driver's `poll_coalesced` may be inlined into it).
#[inline(never)]
fn rx_poll(eth: &mut Eth<Null<'_>>, lro: &mut fe_driver::softlro::SoftLro<'_>, bytes: &mut usize) -> usize {
    eth.poll_coalesced(BUDGET, lro, &mut sink_for(bytes))
}

/// The sink the driver calls: the stack's entry (its closure is excluded with `stack`).
fn sink_for(bytes: &mut usize) -> impl FnMut(fe_driver::RxFrame<'_>) + '_ {
    move |f| stack(bytes, f.data)
}

/// One zero-copy RX poll (`poll_buffers_coalesced`, which is `poll_buffers` while coalescing is
/// off): the entry point `scripts/bench-driver` collects in for `rxzc` and `rxzcsoft`.
#[inline(never)]
fn rx_poll_zc(
    eth: &mut Eth<Null<'_>>,
    lro: &mut fe_driver::softlro::SoftLro<'_>,
    mem: &Mem,
    bytes: &mut usize,
) -> usize {
    eth.poll_buffers_coalesced(BUDGET, lro, &mut zc_sink_for(mem, bytes))
}

/// The stack's entry for zero-copy receive: a frame in its buffer is taken (its length, the
/// bytes untouched, as a stack handing the buffer on would) and the buffer recycled to the pool;
/// a copied aggregate goes to `stack`.
fn zc_sink_for<'a>(mem: &'a Mem, bytes: &'a mut usize) -> impl FnMut(fe_driver::Received<'_, Buf>) + 'a {
    move |r| match r {
        fe_driver::Received::Buffer(b) => {
            *bytes += std::hint::black_box(b.buf.len) as usize;
            mem.pool.borrow_mut().push(b.buf.addr);
        }
        fe_driver::Received::Copied(f) => stack(bytes, f.data),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (mode, len, n) = match args.as_slice() {
        [_, m, l, n] => (m.clone(), l.parse::<usize>().expect("FRAME_BYTES"), n.parse::<usize>().expect("N")),
        _ => {
            eprintln!("usage: bench_driver tx|txburst|rx|rxsoft|rxzc|rxzcsoft FRAME_BYTES N");
            std::process::exit(2);
        }
    };
    let dtb = fe_linux::dtc::compile(&fe_linux::dtc::dts_dir().join("mt7621-router.dts"), &[]).expect("board");
    let plat = dt::probe(&dtb).expect("probe");
    let soc = plat.soc;
    let mem = Mem {
        regs: RefCell::new(vec![0; 0x80000 / 4]),
        sys: RefCell::new(vec![0; 0x1000 / 4]),
        dma: RefCell::new(Vec::new()),
        next: Cell::new(0),
        now: Cell::new(0),
        pool: RefCell::new(Vec::new()),
    };
    let mut eth = Eth::new(&plat, Null(&mem)).expect("new");
    eth.open().expect("open");
    let fe = &soc.fe;
    let reg = |o: u32| mem.regs.borrow()[o as usize / 4];
    let set = |o: u32, v: u32| mem.regs.borrow_mut()[o as usize / 4] = v;
    // A bulk TCP stream: 1514-byte frames carry 1448 bytes with timestamps; 60-byte frames
    // (64 on the wire) carry 6 bytes without options.
    let mut stream = if len >= 1514 {
        fe_sim::packet::TcpStream::bulk(false, None)
    } else {
        let spec = fe_sim::packet::TcpSpec { payload_seed: 0x5eed, ..Default::default() };
        fe_sim::packet::TcpStream::new(spec, len.saturating_sub(54).max(1))
    };
    let frames: Vec<Vec<u8>> = (0..n.max(1)).map(|_| stream.next_segment()).collect();
    let frame = frames[0].clone();
    let mut sink_bytes = 0usize;
    match mode.as_str() {
        "tx" | "txburst" => {
            // `tx`: one `xmit` (and doorbell) per frame; `txburst`: one `xmit_burst` of 32.
            let burst: Vec<&[u8]> = vec![&frame; 32];
            let mut i = 0;
            while i < n {
                if mode == "tx" {
                    for _ in 0..32.min(n - i) {
                        if eth.xmit(0, 0, &frame).is_err() {
                            panic!("ring full at {i}");
                        }
                    }
                } else {
                    let b = eth.xmit_burst(0, 0, &burst[..32.min(n - i)]);
                    assert!(b.stopped.is_none(), "burst stopped at {i}: {b:?}");
                }
                i += 32;
                // The "engine": complete every queued descriptor, then the driver reclaims.
                let (mut d, ctx) = (reg(fe.qdma.dtx_ptr.offset()), reg(fe.qdma.ctx_ptr.offset()));
                let mut last = d;
                while d != ctx {
                    let a = u64::from(d);
                    wr(&mem, a + 8, rd(&mem, a + 8) | 1 << 31);
                    last = d;
                    d = rd(&mem, a + 4);
                }
                set(fe.qdma.dtx_ptr.offset(), ctx);
                set(fe.qdma.drx_ptr.offset(), last);
                eth.reclaim();
            }
        }
        "rx" | "rxsoft" | "rxzc" | "rxzcsoft" => {
            let zc = mode.starts_with("rxzc");
            if zc {
                // The pool: a ring's worth of buffers and as many again for the stack to hold.
                for _ in 0..2 * fe_driver::eth::RX_RING {
                    let a = Null(&mem).dma_alloc(fe_driver::eth::BUF_SIZE, 64).expect("pool");
                    mem.pool.borrow_mut().push(u32::try_from(a).expect("pool below 4 GiB"));
                }
                eth.close().expect("close");
                eth.rx_pool_attach().expect("attach");
                eth.open().expect("open");
            }
            if mode.ends_with("soft") {
                let f = fe_driver::Features { lro: fe_driver::LroMode::Soft, ..eth.features() };
                eth.set_features(f).expect("soft lro");
            }
            let mut storage = vec![0u8; 8 * 65536];
            let mut lro = fe_driver::softlro::SoftLro::new(&mut storage, 8);
            let base = u64::from(reg(fe.pdma.rx_ptr.at(0).unwrap().offset()));
            let size = reg(fe.pdma.rx_cnt_cfg.at(0).unwrap().offset());
            let mut dma_idx = 0u32;
            let mut left = n;
            while left > 0 {
                // The "engine": fill descriptors up to the CPU index, one poll's budget at a time.
                let cpu = reg(fe.pdma.pcrx_ptr.at(0).unwrap().offset());
                let mut filled = 0;
                while dma_idx != cpu && filled < BUDGET && filled < left {
                    let a = base + u64::from(dma_idx) * 16;
                    let buf = u64::from(rd(&mem, a));
                    let frame = &frames[n - left + filled];
                    mem.dma.borrow_mut()[(buf - DMA_BASE) as usize..][..frame.len()].copy_from_slice(frame);
                    wr(&mem, a + 4, 1 << 31 | 1 << 30 | (frame.len() as u32) << 16);
                    wr(&mem, a + 12, 1 << 24 | 1 << 19);
                    dma_idx = (dma_idx + 1) % size;
                    filled += 1;
                }
                let got = if zc {
                    rx_poll_zc(&mut eth, &mut lro, &mem, &mut sink_bytes)
                } else {
                    rx_poll(&mut eth, &mut lro, &mut sink_bytes)
                };
                left -= got;
            }
        }
        _ => panic!("mode tx or rx"),
    }
    println!("{mode} {len} x {n}: {} stats {:?} sink {sink_bytes}", soc.name, eth.stats().drops);
}
