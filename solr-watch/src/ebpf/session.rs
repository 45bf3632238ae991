//! Kernel events into connections, each owned by the process that opened it (or, for a
//! connection open before the watch began, the first process seen using it).

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;

use super::event::{Event, Kind};
use super::process::ProcessInfo;
use crate::wire::conn::{Close, Conn, Tracker};

/// One connection and its kernel-side figures.
#[derive(Debug)]
pub struct KernelConn {
    /// Owner.
    pub pid: u32,
    /// The client's port (0 until known: the connect event precedes its choice).
    pub local_port: u16,
    /// Parsed like a captured connection.
    pub conn: Conn,
    /// Smoothed RTT at close (µs), from the socket.
    pub srtt_us: Option<u64>,
    /// Retransmitted segments (at close, from the socket; else counted per event).
    pub retransmits: u64,
}

/// A connection a server on this host accepted on a watched port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Accepted {
    /// The client's address and port (the accepted socket's remote end).
    pub peer: (IpAddr, u16),
}

/// Everything seen so far.
#[derive(Debug, Default)]
pub struct Session {
    live: HashMap<u64, KernelConn>,
    done: Vec<KernelConn>,
    /// Accepted connections, by the accepting pid.
    accepted: BTreeMap<u32, Vec<Accepted>>,
    /// Processes, by pid.
    pub processes: BTreeMap<u32, ProcessInfo>,
    next_id: usize,
    /// First and last event time (µs).
    pub span: Option<(u64, u64)>,
    /// Events that were not understood.
    pub bad_events: u64,
}

/// How a socket that reached TCP_CLOSE ended, from the state it left.
fn close_from_state(old: u8) -> Option<Close> {
    match old {
        // FIN_WAIT1, FIN_WAIT2, TIME_WAIT, CLOSING: this side sent the first FIN.
        4 | 5 | 6 | 11 => Some(Close::ClientFin),
        // CLOSE_WAIT, LAST_ACK: the server's FIN came first.
        8 | 9 => Some(Close::ServerFin),
        // ESTABLISHED or SYN_SENT straight to CLOSE: a reset or an abort.
        1 => Some(Close::ClientRst),
        2 => Some(Close::ServerRst),
        _ => None,
    }
}

impl Session {
    /// Takes one raw ring-buffer record.
    pub fn record(&mut self, bytes: &[u8]) {
        match super::event::parse(bytes) {
            Some(e) => self.event(e),
            None => self.bad_events += 1,
        }
    }

    /// Takes one event.
    pub fn event(&mut self, e: Event) {
        self.span = Some(match self.span {
            None => (e.ts_us, e.ts_us),
            Some((a, b)) => (a.min(e.ts_us), b.max(e.ts_us)),
        });
        if e.kind == Kind::Accept {
            self.processes
                .entry(e.pid)
                .or_insert_with(|| ProcessInfo::read(e.pid, &e.comm, e.cgroup));
            let a = Accepted { peer: e.remote };
            self.accepted.entry(e.pid).or_default().push(a);
            return;
        }
        if e.kind == Kind::Open {
            if let Some(old) = self.live.remove(&e.sk) {
                self.finish_conn(old);
            }
        }
        if matches!(e.kind, Kind::Close | Kind::Retransmit) && !self.live.contains_key(&e.sk) {
            // Not opened nor used while watched; and these run in softirq context, where
            // the current task is whichever process the CPU was running: no owner to take.
            return;
        }
        let k = self.conn_for(&e);
        if k.local_port == 0 && e.local.1 != 0 {
            // The connect event comes before the kernel picks the source port: the
            // connection's first later event names it.
            k.local_port = e.local.1;
            k.conn.client = format!("{}:{}", e.local.0, e.local.1);
        }
        match e.kind {
            Kind::Open | Kind::Close | Kind::Accept => {}
            Kind::Retransmit => k.retransmits += 1,
            Kind::Data if e.tls_plaintext => k.conn.tls_plaintext(e.to_server, e.ts_us, &e.data),
            Kind::Data => k.conn.socket_bytes(e.to_server, e.ts_us, &e.data),
            Kind::Gap if !e.tls_plaintext => k.conn.socket_gap(e.to_server, e.extra),
            Kind::Gap => {}
        }
        if e.kind == Kind::Close {
            k.srtt_us = Some(e.extra);
            k.retransmits = k.retransmits.max(u64::from(e.retransmits));
            k.conn.closed(close_from_state(e.old_state), e.ts_us);
            if let Some(k) = self.live.remove(&e.sk) {
                self.finish_conn(k);
            }
        }
    }

    fn conn_for(&mut self, e: &Event) -> &mut KernelConn {
        if !self.live.contains_key(&e.sk) {
            self.next_id += 1;
            let client = format!("{}:{}", e.local.0, e.local.1);
            let syn = (e.kind == Kind::Open).then_some(e.ts_us);
            let conn = Conn::from_kernel(self.next_id, client, e.ts_us, syn);
            self.processes
                .entry(e.pid)
                .or_insert_with(|| ProcessInfo::read(e.pid, &e.comm, e.cgroup));
            let k = KernelConn {
                local_port: e.local.1,
                pid: e.pid,
                conn,
                srtt_us: None,
                retransmits: 0,
            };
            self.live.insert(e.sk, k);
        }
        self.live.get_mut(&e.sk).expect("inserted above")
    }

    fn finish_conn(&mut self, mut k: KernelConn) {
        k.conn.finish();
        self.done.push(k);
    }

    /// Ends every connection still open; then the connections, by owning pid, and the
    /// accepted connections, by accepting pid.
    pub fn finish(mut self, port: u16) -> Finished {
        let live: Vec<_> = self.live.drain().map(|(_, k)| k).collect();
        for k in live {
            self.finish_conn(k);
        }
        let mut by_pid: BTreeMap<u32, Vec<KernelConn>> = BTreeMap::new();
        for k in self.done {
            by_pid.entry(k.pid).or_default().push(k);
        }
        let (t0, t1) = self.span.unwrap_or((0, 0));
        let mut out = Vec::new();
        for (pid, mut conns) in by_pid {
            conns.sort_by_key(|k| k.conn.id);
            let mut p = ProcessConns {
                process: self
                    .processes
                    .get(&pid)
                    .cloned()
                    .unwrap_or_else(|| ProcessInfo::read(pid, "?", 0)),
                tracker: Tracker::new(port),
                srtt_us: Vec::new(),
                retransmits: 0,
            };
            p.tracker.first_ts = Some(t0);
            p.tracker.last_ts = t1;
            for k in conns {
                p.srtt_us.extend(k.srtt_us);
                p.retransmits += k.retransmits;
                p.tracker.conns.push(k.conn);
            }
            out.push(p);
        }
        let servers = std::mem::take(&mut self.accepted)
            .into_iter()
            .map(|(pid, accepted)| ServerConns {
                process: self
                    .processes
                    .get(&pid)
                    .cloned()
                    .unwrap_or_else(|| ProcessInfo::read(pid, "?", 0)),
                accepted,
            })
            .collect();
        Finished {
            clients: out,
            servers,
        }
    }
}

/// What a long-running watch (`watch --ebpf --serve`) takes out of the session as it
/// goes, so it holds only the connections still open and the processes still known.
impl Session {
    /// The connections still open, and the processes known.
    pub fn live_mut(
        &mut self,
    ) -> (
        impl Iterator<Item = &mut KernelConn>,
        &BTreeMap<u32, ProcessInfo>,
    ) {
        (self.live.values_mut(), &self.processes)
    }

    /// Takes the connections that have ended (flushed).
    pub fn take_done(&mut self) -> Vec<KernelConn> {
        std::mem::take(&mut self.done)
    }

    /// Forgets the accepted connections (the server side, not exported).
    pub fn clear_accepted(&mut self) {
        self.accepted.clear();
    }

    /// Forgets process `pid` (exited): read again from /proc if it is seen again.
    pub fn forget_process(&mut self, pid: u32) {
        self.processes.remove(&pid);
    }
}

/// What a watch saw, at its end.
#[derive(Debug)]
pub struct Finished {
    /// Client processes and their connections, by pid.
    pub clients: Vec<ProcessConns>,
    /// Server processes on this host (Solr) and the connections they accepted, by pid.
    pub servers: Vec<ServerConns>,
}

/// A server process on this host and the connections it accepted on a watched port.
#[derive(Debug)]
pub struct ServerConns {
    /// The accepting process.
    pub process: ProcessInfo,
    /// Its accepted connections, in order.
    pub accepted: Vec<Accepted>,
}

/// One process's connections at the end of the watch.
#[derive(Debug)]
pub struct ProcessConns {
    /// The process.
    pub process: ProcessInfo,
    /// Its connections, ready for the report.
    pub tracker: Tracker,
    /// Smoothed RTT (µs) of each connection that closed.
    pub srtt_us: Vec<u64>,
    /// Retransmitted segments over all its connections.
    pub retransmits: u64,
}
