//! Loading the kernel side, attaching it (BTF tracepoints for connections, each read/write
//! syscall's own tracepoints or the raw syscall tracepoints as a fallback,
//! uprobes on OpenSSL) and draining its ring buffer into a [`Session`].

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context, Result};
use libbpf_rs::{Link, MapCore, MapFlags, Object, ObjectBuilder, UprobeOpts};

use super::session::Session;
use super::ssl_sites;

/// The compiled kernel side, built from `bpf/watch.bpf.c` by `scripts/bpf-object.sh build`
/// and committed (CI checks that it matches its source).
const OBJECT: &[u8] = include_bytes!("bpf/watch.bpf.o");

/// Where the system's OpenSSL may be.
const LIBSSL_PATHS: [&str; 3] = [
    "/usr/lib/x86_64-linux-gnu/libssl.so.3",
    "/lib/x86_64-linux-gnu/libssl.so.3",
    "/usr/lib64/libssl.so.3",
];

/// The loaded probes, attached.
#[derive(Debug)]
pub struct Probes {
    obj: Object,
    _links: Vec<Link>,
    /// The files whose OpenSSL functions are probed.
    pub tls_libraries: Vec<PathBuf>,
    /// The files tried but not probed, and why (no OpenSSL in it, or the kernel's refusal).
    pub tls_refused: Vec<(PathBuf, String)>,
    /// `None`: the bytes are read from each syscall's own tracepoints; `Some(why)`: those
    /// could not be attached (why), and the raw `sys_enter`/`sys_exit` tracepoints, which
    /// run for every syscall of every process, read them instead.
    pub raw_syscalls: Option<String>,
}

/// The fallback programs: the raw syscall tracepoints, run for every syscall.
const RAW_SYSCALL_PROGRAMS: [&str; 2] = ["sys_enter", "sys_exit"];

/// Is `name` one of the per-syscall tracepoint programs (`enter_read`, `exit_accept4`...)?
fn per_syscall(name: &str) -> bool {
    name.starts_with("enter_") || name.starts_with("exit_")
}

/// Where libbpf looks up tracepoint ids: tracefs, or its older place under debugfs.
const TRACEFS: [&str; 2] = ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"];

/// Can the per-syscall tracepoints' ids be read (the first one stands for all)?
fn syscall_events_readable() -> bool {
    TRACEFS
        .iter()
        .any(|t| std::fs::read_to_string(format!("{t}/events/syscalls/sys_enter_read/id")).is_ok())
}

/// Attaches the syscall programs: each syscall's own tracepoints (the kernel then runs no
/// program for any other syscall), or, when one of those cannot be attached (they need
/// tracefs, mounted and readable), the raw `sys_enter`/`sys_exit` pair. Returns why the
/// fallback was taken, if it was.
fn attach_syscalls(obj: &Object, links: &mut Vec<Link>) -> Result<Option<String>> {
    let mut own = Vec::new();
    // Without the events' ids (tracefs not mounted, or not readable) libbpf would fail on
    // the first one, printing its error: take the fallback without trying.
    let mut refused = (!syscall_events_readable()).then(|| {
        format!(
            "no syscall tracepoints in tracefs ({}: not mounted or not readable)",
            TRACEFS[0]
        )
    });
    for prog in obj.progs_mut().filter(|_| refused.is_none()) {
        let name = prog.name().to_string_lossy().into_owned();
        if per_syscall(&name) {
            match prog.attach() {
                Ok(l) => own.push(l),
                Err(e) => {
                    refused = Some(format!("attaching {name}: {e:#}"));
                    break;
                }
            }
        }
    }
    if refused.is_none() {
        links.append(&mut own);
        return Ok(None);
    }
    drop(own);
    for prog in obj.progs_mut() {
        let name = prog.name().to_string_lossy().into_owned();
        if RAW_SYSCALL_PROGRAMS.contains(&name.as_str()) {
            links.push(prog.attach().with_context(|| format!("attaching {name}"))?);
        }
    }
    Ok(refused)
}

/// Does `path` (an ELF file) define `SSL_write` as a symbol? A cheap byte search that the
/// uprobe attach then confirms.
fn defines_ssl_write(path: &Path) -> bool {
    std::fs::read(path).is_ok_and(|b| b.windows(10).any(|w| w == b"SSL_write\0"))
}

/// The system libssl plus `node` from PATH (which links OpenSSL statically, symbols
/// exported) plus the files the user named.
pub fn tls_targets(extra: &[PathBuf]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut add = |p: PathBuf| {
        if let Ok(c) = std::fs::canonicalize(&p) {
            if seen.insert(c.clone()) {
                out.push(c);
            }
        }
    };
    for p in LIBSSL_PATHS {
        add(PathBuf::from(p));
    }
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            let node = dir.join("node");
            if node.exists() && defines_ssl_write(&node) {
                add(node);
                break;
            }
        }
    }
    for p in extra {
        add(p.clone());
    }
    out
}

/// Attaches the OpenSSL probes to `lib` at the sites [`ssl_sites`] chooses. `Err` says why
/// none attached: the file is not an ELF file defining OpenSSL's functions, or the kernel
/// refused the uprobes (its error, e.g. a missing privilege).
fn attach_tls(obj: &Object, lib: &Path, links: &mut Vec<Link>) -> Result<(), String> {
    let sites = std::fs::read(lib)
        .map_err(anyhow::Error::from)
        .and_then(|d| ssl_sites::sites(&d))
        .map_err(|e| format!("no OpenSSL functions found in it ({e:#})"))?;
    let mut refused = None;
    let attached = links.len();
    for placed in sites {
        let site = &placed.site;
        for (prog_name, retprobe) in [(site.enter, false), (site.exit, true)] {
            let Some(prog) = obj.progs_mut().find(|p| p.name() == prog_name) else {
                continue;
            };
            let opts = UprobeOpts {
                retprobe,
                ..Default::default()
            };
            let Ok(offset) = usize::try_from(placed.offset) else {
                continue;
            };
            match prog.attach_uprobe_with_opts(-1, lib, offset, opts) {
                Ok(l) => links.push(l),
                Err(e) => refused = Some(e),
            }
        }
    }
    if links.len() > attached {
        return Ok(());
    }
    Err(refused.map_or_else(
        || "no OpenSSL functions found in it".to_string(),
        |e| format!("the kernel refused its uprobes: {e:#}"),
    ))
}

impl Probes {
    /// Loads the object, watches `ports`, attaches everything.
    pub fn attach(ports: &[u16], tls: &[PathBuf]) -> Result<Self> {
        let open = ObjectBuilder::default()
            .open_memory(OBJECT)
            .context("opening the BPF object")?;
        let obj = open
            .load()
            .context("loading the BPF programs into the kernel")?;
        let map = obj
            .maps()
            .find(|m| m.name() == "ports")
            .ok_or_else(|| anyhow!("the BPF object has no ports map"))?;
        for p in ports {
            map.update(&p.to_ne_bytes(), &[1u8], MapFlags::ANY)?;
        }
        let mut links = Vec::new();
        for prog in obj.progs_mut() {
            let name = prog.name().to_string_lossy().into_owned();
            if name.starts_with("ssl_")
                || per_syscall(&name)
                || RAW_SYSCALL_PROGRAMS.contains(&name.as_str())
            {
                continue;
            }
            links.push(prog.attach().with_context(|| format!("attaching {name}"))?);
        }
        let raw_syscalls = attach_syscalls(&obj, &mut links)?;
        let (mut tls_libraries, mut tls_refused) = (Vec::new(), Vec::new());
        for lib in tls {
            match attach_tls(&obj, lib, &mut links) {
                Ok(()) => tls_libraries.push(lib.clone()),
                Err(why) => tls_refused.push((lib.clone(), why)),
            }
        }
        Ok(Probes {
            obj,
            _links: links,
            tls_libraries,
            tls_refused,
            raw_syscalls,
        })
    }

    /// Drains events into `session` until `duration` passes or `stop` is set.
    pub fn run(
        &self,
        session: Rc<RefCell<Session>>,
        duration: Option<Duration>,
        stop: &AtomicBool,
    ) -> Result<()> {
        self.run_with(session, duration, stop, || {})
    }

    /// [`Probes::run`], calling `each_pass` after every drain of the ring buffer (about
    /// every 100 ms, and at the end).
    pub fn run_with(
        &self,
        session: Rc<RefCell<Session>>,
        duration: Option<Duration>,
        stop: &AtomicBool,
        mut each_pass: impl FnMut(),
    ) -> Result<()> {
        let events = self
            .obj
            .maps()
            .find(|m| m.name() == "events")
            .ok_or_else(|| anyhow!("the BPF object has no events map"))?;
        let mut b = libbpf_rs::RingBufferBuilder::new();
        let s = session.clone();
        b.add(&events, move |data: &[u8]| {
            s.borrow_mut().record(data);
            0
        })?;
        let rb = b.build()?;
        let start = Instant::now();
        while !stop.load(Ordering::Relaxed) && duration.is_none_or(|d| start.elapsed() < d) {
            // The kernel side wakes this poll only for a large batch: every pass also
            // drains what arrived without a wake-up.
            rb.poll(Duration::from_millis(100))?;
            rb.consume()?;
            each_pass();
        }
        rb.consume()?;
        each_pass();
        Ok(())
    }

    /// Events the kernel side could not queue (ring buffer full).
    pub fn lost_events(&self) -> u64 {
        let Some(map) = self.obj.maps().find(|m| m.name() == "lost") else {
            return 0;
        };
        map.lookup(&0u32.to_ne_bytes(), MapFlags::ANY)
            .ok()
            .flatten()
            .map_or(0, |v| {
                v.get(..8)
                    .map_or(0, |b| u64::from_ne_bytes(b.try_into().unwrap_or([0; 8])))
            })
    }
}
