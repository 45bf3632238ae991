//! What the scenarios share: [`load`] drives closed and open loops; [`workload`] generates
//! seeded documents and queries; [`witness`] counts the client's connections independently of
//! it; [`run_dir`] picks each run's folder; [`procstat`] samples a process's CPU and memory
//! from `/proc`; [`local`] holds the local Solr a run started and stops it when the run ends;
//! [`cpu`] reads this process's CPU time; [`wan`] builds the WAN topology's
//! pieces (the proxy's upstream, TLS termination, the report header, interruption). Nothing here imports a scenario or the
//! command line.

pub mod cpu;
pub mod load;
pub mod local;
pub mod procstat;
pub mod run_dir;
pub mod wan;
pub mod witness;
pub mod workload;
