//! With the `ebpf` feature: compiles the kernel side of `watch --ebpf`
//! (`src/ebpf/bpf/watch.bpf.c`) with clang into `$OUT_DIR/watch.bpf.o`, which the crate
//! embeds. The kernel types it reads are declared in `src/ebpf/bpf/kernel.h` for CO-RE, so
//! the object loads on any kernel with BTF; the BPF helper headers come from Debian's
//! `libbpf-dev` (`scripts/setup.sh` installs clang and it).

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var_os("CARGO_FEATURE_EBPF").is_none() {
        return;
    }
    let src = PathBuf::from("src/ebpf/bpf");
    println!("cargo:rerun-if-changed=src/ebpf/bpf/watch.bpf.c");
    println!("cargo:rerun-if-changed=src/ebpf/bpf/kernel.h");
    let out =
        PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("watch.bpf.o");
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    if arch != "x86_64" {
        panic!("solr-watch feature `ebpf`: the probes are written for x86_64 (its registers and syscall numbers), not {arch}");
    }
    let clang = std::env::var("CLANG").unwrap_or_else(|_| "clang".into());
    let status = Command::new(&clang)
        .args([
            "-O2",
            "-g",
            "-target",
            "bpf",
            "-D__TARGET_ARCH_x86",
            "-Wall",
            "-Werror",
        ])
        .arg("-I/usr/include/x86_64-linux-gnu")
        .arg("-c")
        .arg(src.join("watch.bpf.c"))
        .arg("-o")
        .arg(&out)
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => panic!("solr-watch feature `ebpf`: {clang} failed on src/ebpf/bpf/watch.bpf.c ({s})"),
        Err(e) => panic!(
            "solr-watch feature `ebpf`: cannot run {clang} ({e}); install clang and libbpf-dev (scripts/setup.sh does)"
        ),
    }
}
