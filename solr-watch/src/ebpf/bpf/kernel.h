/* The few kernel types the probes read, declared by hand for CO-RE: libbpf relocates every
 * field access against the running kernel's BTF (/sys/kernel/btf/vmlinux) when it loads the
 * object, so no vmlinux.h is generated or kept. Only the fields used are named. */
#pragma once

/* Tells bpf_tracing.h that pt_regs has the kernel's field names (di, si, ...), as with vmlinux.h. */
#define __VMLINUX_H__ 1

#pragma clang attribute push(__attribute__((preserve_access_index)), apply_to = record)

/* x86-64 register frame, for the uprobes' arguments (full layout: the context is read directly). */
struct pt_regs {
    unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
    unsigned long ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
};

struct in6_addr {
    union {
        __u8 u6_addr8[16];
    } in6_u;
};

struct sock_common {
    __be32 skc_daddr;
    __be32 skc_rcv_saddr;
    __be16 skc_dport;
    __u16 skc_num;
    unsigned short skc_family;
    struct in6_addr skc_v6_daddr;
    struct in6_addr skc_v6_rcv_saddr;
};

struct socket;

struct sock {
    struct sock_common __sk_common;
    __u16 sk_protocol;
    struct socket *sk_socket;
};

struct file {
    void *private_data;
};

struct socket {
    struct file *file;
    struct sock *sk;
};

struct fdtable {
    unsigned int max_fds;
    struct file **fd;
};

struct files_struct {
    struct fdtable *fdt;
};

struct task_struct {
    struct files_struct *files;
    struct task_struct *group_leader;
    __u64 start_time;
};

struct tcp_sock {
    __u32 srtt_us;
    __u32 total_retrans;
};

#pragma clang attribute pop
