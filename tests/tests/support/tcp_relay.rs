//! A byte-for-byte TCP relay: listens on `bind_ip:0` and pipes every connection to
//! `target`. TLS passes through untouched, so a client talking to the relay sees the real
//! server's certificate under whatever address the relay listens on (used to reach the TLS
//! Solr node under an IP its certificate does not name). Dropping it stops it.

use std::net::{IpAddr, SocketAddr};

use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};

/// The running relay.
pub struct TcpRelay {
    addr: SocketAddr,
    task: JoinHandle<()>,
}

impl TcpRelay {
    /// Listens on `bind_ip` (port 0) and forwards to `target`.
    pub async fn start(bind_ip: IpAddr, target: SocketAddr) -> TcpRelay {
        let listener = TcpListener::bind(SocketAddr::new(bind_ip, 0))
            .await
            .expect("bind relay");
        let addr = listener.local_addr().expect("relay addr");
        let task = tokio::spawn(async move {
            let mut pipes = JoinSet::new();
            while let Ok((mut inbound, _)) = listener.accept().await {
                pipes.spawn(async move {
                    if let Ok(mut outbound) = TcpStream::connect(target).await {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
            }
        });
        TcpRelay { addr, task }
    }

    /// Where the relay listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

impl Drop for TcpRelay {
    fn drop(&mut self) {
        self.task.abort();
    }
}
