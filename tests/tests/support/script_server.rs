//! What the fault servers ([`super::fault_server`], [`super::h2_fault`]) share: a listener
//! on `127.0.0.1:0` (never a fixed port) whose accept task serves each connection with the
//! server's own `serve`, a script of faults played one per request over all connections
//! (the last one repeating), a count of accepted connections and every request read.
//! Dropping the server stops the accept loop and every connection task (reqwest's
//! `tests/support/server.rs` pattern); a panic in a connection task is raised again.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};

/// The script a server plays and what it saw, shared with its connection tasks.
pub struct Script<F, S> {
    faults: Vec<F>,
    next: AtomicUsize,
    accepted: AtomicUsize,
    seen: Mutex<Vec<S>>,
}

impl<F: Clone, S> Script<F, S> {
    /// The fault for the next request (the last one repeats).
    pub fn next_fault(&self) -> F {
        let i = self.next.fetch_add(1, Ordering::SeqCst);
        let last = self.faults.len().saturating_sub(1);
        self.faults[i.min(last)].clone()
    }

    /// Records a request as read.
    pub fn saw(&self, s: S) {
        self.seen.lock().unwrap_or_else(|e| e.into_inner()).push(s);
    }
}

/// A running server playing faults `F` and recording requests `S`. Dropping it stops it.
pub struct ScriptServer<F, S> {
    addr: SocketAddr,
    script: Arc<Script<F, S>>,
    task: JoinHandle<()>,
}

impl<F, S> ScriptServer<F, S>
where
    F: Clone + Send + Sync + 'static,
    S: Clone + Send + 'static,
{
    /// Starts a server on `127.0.0.1:0` playing `faults` (must not be empty); each accepted
    /// connection is handed to `serve` with its number (from 0) and the script.
    pub async fn spawn<Fut>(
        faults: Vec<F>,
        serve: fn(TcpStream, usize, Arc<Script<F, S>>) -> Fut,
    ) -> Self
    where
        Fut: Future<Output = ()> + Send + 'static,
    {
        assert!(
            !faults.is_empty(),
            "a fault script needs at least one entry"
        );
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind port 0");
        let addr = listener.local_addr().expect("local addr");
        let script = Arc::new(Script {
            faults,
            next: AtomicUsize::new(0),
            accepted: AtomicUsize::new(0),
            seen: Mutex::new(Vec::new()),
        });
        let task = tokio::spawn(accept_loop(listener, script.clone(), serve));
        ScriptServer { addr, script, task }
    }

    /// The base URL to give a client: `http://127.0.0.1:PORT/solr`.
    pub fn url(&self) -> String {
        format!("http://{}/solr", self.addr)
    }

    /// `host:port` the server listens on.
    pub fn authority(&self) -> String {
        self.addr.to_string()
    }

    /// Connections accepted so far.
    pub fn accepted(&self) -> usize {
        self.script.accepted.load(Ordering::SeqCst)
    }

    /// Requests read so far.
    pub fn seen(&self) -> Vec<S> {
        self.script
            .seen
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// Accepts connections and serves each in a task it owns: aborting it aborts them all.
async fn accept_loop<F, S, Fut>(
    listener: TcpListener,
    script: Arc<Script<F, S>>,
    serve: fn(TcpStream, usize, Arc<Script<F, S>>) -> Fut,
) where
    Fut: Future<Output = ()> + Send + 'static,
{
    let mut conns = JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let Ok((sock, _)) = accepted else { continue };
                let id = script.accepted.fetch_add(1, Ordering::SeqCst);
                conns.spawn(serve(sock, id, script.clone()));
            }
            Some(done) = conns.join_next() => {
                if let Err(e) = done {
                    if e.is_panic() {
                        std::panic::resume_unwind(e.into_panic());
                    }
                }
            }
        }
    }
}

impl<F, S> Drop for ScriptServer<F, S> {
    fn drop(&mut self) {
        self.task.abort();
    }
}
