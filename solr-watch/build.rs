//! With the `ebpf` feature: refuses a target the probes were not written for. The kernel side
//! of `watch --ebpf` (`src/ebpf/bpf/watch.bpf.c`) is compiled once, by
//! `scripts/bpf-object.sh build`, into the committed `src/ebpf/bpf/watch.bpf.o` that the crate
//! embeds, so building the crate needs no clang; CI's `scripts/bpf-object.sh check` proves the
//! object matches its source. The kernel types it reads are declared in
//! `src/ebpf/bpf/kernel.h` for CO-RE, so the object loads on any kernel with BTF.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var_os("CARGO_FEATURE_EBPF").is_none() {
        return;
    }
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    if arch != "x86_64" {
        panic!("solr-watch feature `ebpf`: the probes are written for x86_64 (its registers and syscall numbers), not {arch}");
    }
}
