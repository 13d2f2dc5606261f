//! The C ABI of `include/fe_model.h`: the only `unsafe` of this crate (pointers from QEMU, guest
//! RAM lent as the model's DMA memory). Every function checks its pointers for NULL, catches
//! panics (a panic must not unwind into C) and forwards to [`Device`].

use crate::device::{Device, Host};
use crate::options::Options;
use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// `FE_MODEL_ABI` of the header.
const ABI: u32 = 1;

/// The callbacks of `FeModelHost`.
#[repr(C)]
pub struct FeModelHost {
    opaque: *mut c_void,
    set_irq: Option<unsafe extern "C" fn(*mut c_void, u32, c_int)>,
    transmit: Option<unsafe extern "C" fn(*mut c_void, u32, *const u8, usize)>,
    log: Option<unsafe extern "C" fn(*mut c_void, *const c_char)>,
}

/// What `fe_model_new` returns: the device, the host's callbacks and the window names as C
/// strings (valid while the model lives).
pub struct FeModel {
    dev: Device,
    host: CHost,
    names: Vec<CString>,
}

/// The host's callbacks, called only while QEMU holds its big lock (the header's contract).
struct CHost {
    opaque: *mut c_void,
    set_irq: Option<unsafe extern "C" fn(*mut c_void, u32, c_int)>,
    transmit: Option<unsafe extern "C" fn(*mut c_void, u32, *const u8, usize)>,
    log: Option<unsafe extern "C" fn(*mut c_void, *const c_char)>,
}

impl Host for CHost {
    fn set_irq(&mut self, line: u32, level: bool) {
        if let Some(f) = self.set_irq {
            // SAFETY: `f` and `opaque` came from the host in fe_model_new and stay valid until
            // fe_model_free (the header's contract).
            unsafe { f(self.opaque, line, c_int::from(level)) }
        }
    }
    fn transmit(&mut self, mac: u32, frame: &[u8]) {
        if let Some(f) = self.transmit {
            // SAFETY: as above; `frame` outlives the call, which copies it.
            unsafe { f(self.opaque, mac, frame.as_ptr(), frame.len()) }
        }
    }
    fn log(&mut self, line: &str) {
        if let (Some(f), Ok(c)) = (self.log, CString::new(line.replace('\0', " "))) {
            // SAFETY: as above; `c` is NUL-terminated and outlives the call.
            unsafe { f(self.opaque, c.as_ptr()) }
        }
    }
}

/// Copies `msg` into the caller's `err` buffer of `len` bytes, NUL-terminated and truncated.
fn put_err(err: *mut c_char, len: usize, msg: &str) {
    if err.is_null() || len == 0 {
        return;
    }
    let n = msg.len().min(len - 1);
    // SAFETY: the caller gave `err` as a writable buffer of `len` bytes; n + 1 <= len.
    unsafe {
        std::ptr::copy_nonoverlapping(msg.as_ptr(), err.cast::<u8>(), n);
        *err.add(n) = 0;
    }
}

/// A C string argument as UTF-8 (`None` for NULL, an error for invalid UTF-8).
fn str_arg<'a>(p: *const c_char, what: &str) -> Result<Option<&'a str>, String> {
    if p.is_null() {
        return Ok(None);
    }
    // SAFETY: a non-NULL argument is a NUL-terminated string the caller keeps for the call.
    let s = unsafe { CStr::from_ptr(p) };
    s.to_str().map(Some).map_err(|_| format!("{what} is not UTF-8"))
}

/// The model's reference behind a handle (`None` for NULL).
fn model<'a>(m: *mut FeModel) -> Option<&'a mut FeModel> {
    // SAFETY: a non-NULL handle came from fe_model_new and is not yet freed; QEMU's big lock
    // serialises every call, so this is the only reference.
    unsafe { m.as_mut() }
}

/// Returns `FE_MODEL_ABI`.
#[unsafe(no_mangle)]
pub extern "C" fn fe_model_abi() -> u32 {
    ABI
}

/// See `fe_model.h`.
///
/// # Safety
/// `dtb_path` is a NUL-terminated path; `options` NULL or NUL-terminated; `ram` points to
/// `ram_size` bytes of guest RAM that stay mapped while the model lives and that nothing else
/// in this process writes through a Rust reference; `host` points to valid callbacks; `err`
/// is NULL or writable for `err_len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fe_model_new(
    dtb_path: *const c_char,
    options: *const c_char,
    ram: *mut u8,
    ram_base: u64,
    ram_size: u64,
    host: *const FeModelHost,
    err: *mut c_char,
    err_len: usize,
) -> *mut FeModel {
    let made = catch_unwind(AssertUnwindSafe(|| -> Result<Box<FeModel>, String> {
        let path = str_arg(dtb_path, "dtb path")?.ok_or("no dtb path given (the device's `dtb` property)")?;
        let opts = Options::parse(str_arg(options, "options")?.unwrap_or(""))?;
        if ram.is_null() || ram_size == 0 {
            return Err("no guest RAM given".into());
        }
        // SAFETY: the caller passes valid callbacks or NULL (checked).
        let host = unsafe { host.as_ref() }.ok_or("no host callbacks given")?;
        let dtb = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
        let len = usize::try_from(ram_size).map_err(|_| "guest RAM larger than the address space")?;
        // SAFETY: the caller lends `ram_size` bytes of guest RAM for the model's lifetime (QEMU
        // keeps RAM mapped until exit); the model's DMA is the only Rust access to it, as a
        // device's DMA is on a board (the guest CPU writes it too, outside Rust's view, as it does
        // on hardware; the model reads descriptors after the guest's barriers, never caching).
        let ram: &'static mut [u8] = unsafe { std::slice::from_raw_parts_mut(ram, len) };
        let dev = Device::new(&dtb, &opts, ram, ram_base).map_err(|e| format!("{path}: {e}"))?;
        let names = dev.windows().iter().map(|w| CString::new(w.space.name()).unwrap_or_default()).collect();
        let host = CHost { opaque: host.opaque, set_irq: host.set_irq, transmit: host.transmit, log: host.log };
        Ok(Box::new(FeModel { dev, host, names }))
    }));
    match made {
        Ok(Ok(m)) => Box::into_raw(m),
        Ok(Err(e)) => {
            put_err(err, err_len, &e);
            std::ptr::null_mut()
        }
        Err(_) => {
            put_err(err, err_len, "the model panicked while starting (a bug: please report it)");
            std::ptr::null_mut()
        }
    }
}

/// Number of register windows.
#[unsafe(no_mangle)]
pub extern "C" fn fe_model_window_count(m: *const FeModel) -> u32 {
    model(m.cast_mut()).map_or(0, |m| m.dev.windows().len() as u32)
}

/// Window `i`: base, size and name; -1 when out of range.
///
/// # Safety
/// `base`, `size` and `name` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fe_model_window(
    m: *const FeModel,
    i: u32,
    base: *mut u64,
    size: *mut u64,
    name: *mut *const c_char,
) -> c_int {
    let Some(m) = model(m.cast_mut()) else { return -1 };
    let (Some(w), Some(n)) = (m.dev.windows().get(i as usize), m.names.get(i as usize)) else { return -1 };
    // SAFETY: the caller gives NULL or writable pointers (checked for NULL).
    unsafe {
        if let Some(b) = base.as_mut() {
            *b = w.base;
        }
        if let Some(s) = size.as_mut() {
            *s = w.size;
        }
        if let Some(p) = name.as_mut() {
            *p = n.as_ptr();
        }
    }
    0
}

/// Number of interrupt lines.
#[unsafe(no_mangle)]
pub extern "C" fn fe_model_irq_count(m: *const FeModel) -> u32 {
    model(m.cast_mut()).map_or(0, |m| m.dev.spis().len() as u32)
}

/// The GIC SPI of line `i` (`u32::MAX` out of range).
#[unsafe(no_mangle)]
pub extern "C" fn fe_model_irq_spi(m: *const FeModel, i: u32) -> u32 {
    model(m.cast_mut()).and_then(|m| m.dev.spis().get(i as usize).copied()).unwrap_or(u32::MAX)
}

/// Number of MACs.
#[unsafe(no_mangle)]
pub extern "C" fn fe_model_mac_count(m: *const FeModel) -> u32 {
    model(m.cast_mut()).map_or(0, |m| m.dev.mac_count())
}

/// An MMIO read.
#[unsafe(no_mangle)]
pub extern "C" fn fe_model_read(m: *mut FeModel, window: u32, offset: u64, size: u32) -> u64 {
    let Some(m) = model(m) else { return 0 };
    catch_unwind(AssertUnwindSafe(|| m.dev.read(window, offset, size, &mut m.host))).unwrap_or(0)
}

/// An MMIO write.
#[unsafe(no_mangle)]
pub extern "C" fn fe_model_write(m: *mut FeModel, window: u32, offset: u64, value: u64, size: u32) {
    let Some(m) = model(m) else { return };
    let _ = catch_unwind(AssertUnwindSafe(|| m.dev.write(window, offset, value, size, &mut m.host)));
}

/// A frame from MAC `mac`'s link partner.
///
/// # Safety
/// `frame` points to `len` readable bytes (or is NULL with `len` 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fe_model_receive(m: *mut FeModel, mac: u32, frame: *const u8, len: usize) {
    let Some(m) = model(m) else { return };
    if frame.is_null() {
        return;
    }
    // SAFETY: the caller gives `len` readable bytes at `frame` for the call.
    let frame = unsafe { std::slice::from_raw_parts(frame, len) };
    let _ = catch_unwind(AssertUnwindSafe(|| m.dev.receive(mac, frame, &mut m.host)));
}

/// Whether MAC `mac` takes a frame now.
#[unsafe(no_mangle)]
pub extern "C" fn fe_model_can_receive(m: *const FeModel, mac: u32) -> c_int {
    model(m.cast_mut()).map_or(0, |m| c_int::from(m.dev.can_receive(mac)))
}

/// Runs the model to `now_ns`; gives its next deadline.
#[unsafe(no_mangle)]
pub extern "C" fn fe_model_run(m: *mut FeModel, now_ns: u64) -> u64 {
    let Some(m) = model(m) else { return u64::MAX };
    catch_unwind(AssertUnwindSafe(|| m.dev.run(now_ns, &mut m.host))).unwrap_or(u64::MAX)
}

/// Frees the model.
///
/// # Safety
/// `m` came from fe_model_new and is not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn fe_model_free(m: *mut FeModel) {
    if !m.is_null() {
        // SAFETY: `m` came from Box::into_raw in fe_model_new and is freed once (the contract).
        drop(unsafe { Box::from_raw(m) });
    }
}
