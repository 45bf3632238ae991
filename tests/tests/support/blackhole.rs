//! A blackholed node on the project's own loopback: a listener whose accept queue is full,
//! so the kernel drops further SYNs and a connect to it hangs (SYN-SENT) until the client's
//! connect timeout, the one fault a connect timeout exists for.

use std::time::Duration;

use tokio::net::{TcpListener, TcpSocket, TcpStream};

/// The blackholed node: keep it alive while it is used (the listener and the connections
/// that fill its queue).
pub struct Blackhole {
    _listener: TcpListener,
    _fill: Vec<TcpStream>,
    /// Its base URL, `http://127.0.0.1:PORT/solr`.
    pub url: String,
}

/// Binds port 0 with a queue of one and fills it; panics if the queue never fills.
pub async fn start() -> Blackhole {
    let sock = TcpSocket::new_v4().expect("socket");
    sock.bind("127.0.0.1:0".parse().expect("addr"))
        .expect("bind");
    let listener = sock.listen(0).expect("listen");
    let addr = listener.local_addr().expect("addr");
    let mut fill = Vec::new();
    for _ in 0..16 {
        match tokio::time::timeout(Duration::from_millis(300), TcpStream::connect(addr)).await {
            Ok(Ok(s)) => fill.push(s),
            Ok(Err(e)) => panic!("connect to the full listener failed: {e}"),
            Err(_) => {
                return Blackhole {
                    _listener: listener,
                    _fill: fill,
                    url: format!("http://{addr}/solr"),
                }
            }
        }
    }
    panic!(
        "the listen queue never filled ({} connections accepted)",
        fill.len()
    );
}
