//! TUN devices (layer 3, no packet-information header): the two ends of the delay line.
//!
//! This is the one module of the workspace that allows `unsafe`: attaching an open
//! `/dev/net/tun` file to a named device takes the `TUNSETIFF` ioctl, which neither std nor
//! nix wraps safely. The unsafe block is one `ioctl` call on a file descriptor we own, with a
//! pointer to a properly sized, zero-initialised `struct ifreq` that lives across the call;
//! the kernel reads the name and flags and writes the final name back into it.
#![allow(unsafe_code)]

use std::fs::File;
use std::os::fd::AsRawFd;

use anyhow::{bail, Context, Result};

/// `_IOW('T', 202, int)` from `<linux/if_tun.h>`.
const TUNSETIFF: u64 = 0x4004_54ca;
/// Layer-3 device: packets are bare IP datagrams.
const IFF_TUN: libc::c_short = 0x0001;
/// No 4-byte packet-information prefix on each read and write.
const IFF_NO_PI: libc::c_short = 0x1000;
/// Kernel interface-name size, terminating NUL included.
const IFNAMSIZ: usize = 16;

/// `struct ifreq` as the TUN driver reads it: the name, then the flags (a union member of
/// 24 bytes; 40 bytes in all on 64-bit Linux).
#[repr(C)]
struct IfReq {
    name: [u8; IFNAMSIZ],
    flags: libc::c_short,
    pad: [u8; 22],
}

/// An open TUN device. Reading returns one IP packet; writing injects one. The device
/// exists as long as this file is open (it is not made persistent), so a crashed run
/// leaves no device behind.
#[derive(Debug)]
pub struct Tun {
    /// Interface name.
    pub name: String,
    /// The open `/dev/net/tun` file attached to the device.
    pub file: File,
}

/// Creates the TUN device `name` (at most 15 bytes) in the calling thread's network
/// namespace.
pub fn open(name: &str) -> Result<Tun> {
    if name.is_empty() || name.len() >= IFNAMSIZ || name.contains(['/', ' ', '\0']) {
        bail!("bad TUN device name {name:?} (1 to 15 bytes, no '/', space or NUL)");
    }
    let file = File::options()
        .read(true)
        .write(true)
        .open("/dev/net/tun")
        .context("cannot open /dev/net/tun (missing tun kernel module? try `modprobe tun`)")?;
    let mut req = IfReq {
        name: [0; IFNAMSIZ],
        flags: IFF_TUN | IFF_NO_PI,
        pad: [0; 22],
    };
    req.name[..name.len()].copy_from_slice(name.as_bytes());
    // SAFETY: `file` is an open descriptor we own for the whole call; `req` is a live,
    // initialised `struct ifreq` of the size the kernel expects; the kernel only reads and
    // writes inside it and keeps no pointer after returning.
    let rc = unsafe { libc::ioctl(file.as_raw_fd(), TUNSETIFF as _, &mut req as *mut IfReq) };
    if rc < 0 {
        let err = std::io::Error::last_os_error();
        bail!("TUNSETIFF {name}: {err} (needs CAP_NET_ADMIN, i.e. root)");
    }
    Ok(Tun {
        name: name.to_string(),
        file,
    })
}

/// Gives the calling thread real-time (SCHED_FIFO, priority 10) scheduling, so a busy machine
/// (Solr JVMs, compilers) cannot hold a packet in the delay line longer than the emulated
/// delay: under CFS a forwarder thread woken for a release can wait several milliseconds for
/// a CPU, on every hop, which inflates multi-round-trip exchanges (a fresh TLS connection)
/// far more than single ones. Returns false (and changes nothing) without CAP_SYS_NICE.
pub fn realtime_thread() -> bool {
    let param = libc::sched_param { sched_priority: 10 };
    // SAFETY: sched_setscheduler reads the sched_param we pass by reference for the duration
    // of the call; pid 0 is the calling thread. No memory is shared or retained.
    let rc = unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) };
    rc == 0
}
