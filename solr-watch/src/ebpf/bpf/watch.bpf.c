/* The kernel side of `watch --ebpf`: connection events (open, close with RTT and
 * retransmits, retransmit) from BTF tracepoints, accepts on a watched port (a Solr on this
 * host) at the accept syscalls' exit, the payload of every read/write/send/recv
 * (and their vector and msg forms) on a TCP socket to a watched port from those syscalls'
 * own tracepoints (the raw sys_enter/sys_exit where they cannot be attached; the fd
 * resolved to its socket through the task's file table), and the
 * plaintext at OpenSSL's SSL_write/SSL_read (and _ex) boundary, tied to its socket by the
 * socket syscall that runs on the same thread inside the SSL call. fentry/kprobes are not
 * used: kernels built without kprobes, or whose BPF trampolines are refused, still run this. Everything goes to
 * user space through one ring buffer; its layout is `struct hdr` (read by `ebpf/event.rs`). */
#include <linux/types.h>
#include <linux/bpf.h>
#include "kernel.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

#define CHUNK 16384
#define MAX_CHUNKS 64
#define MAX_IOVECS 8
#define AF_INET6 10
#define IPPROTO_TCP 6
#define TCP_SYN_SENT 2
#define TCP_CLOSE 7
#define MSG_PEEK 2

enum kind { EV_OPEN = 1, EV_CLOSE = 2, EV_RETRANSMIT = 3, EV_DATA = 4, EV_GAP = 5, EV_ACCEPT = 6 };
enum source { SRC_SOCKET = 0, SRC_SSL = 1 };

struct hdr {
    __u8 kind;
    __u8 to_server;
    __u8 source;
    __u8 family;
    __u32 pid;
    __u32 tid;
    __u32 len;
    __u64 ts;
    __u64 sk;
    __u64 cgroup;
    __u64 extra;
    __u16 sport;
    __u16 dport;
    __u8 saddr[16];
    __u8 daddr[16];
    char comm[16];
    __u32 extra2;
};

_Static_assert(sizeof(struct hdr) == 104, "ebpf/event.rs reads a 104-byte header");

/* A data event is the header then its bytes: a chunk of at most SMALL bytes takes a
 * SMALL record, a larger one a CHUNK record (a ring-buffer record's size is fixed when it is
 * reserved). Most requests and TLS records are small: a 16 KiB record for each would fill
 * the ring 16 times faster and wake the reader 16 times as often. */
#define SMALL 1024

/* An in-flight socket read or write: where the user's bytes are. */
struct io {
    __u64 sk;
    __u64 base;
    __u64 iov;
    __u64 nr_segs;
    __u8 ubuf;
    __u8 to_server;
};

/* An in-flight SSL_write/SSL_read (or _ex). */
struct ssl_call {
    __u64 ssl;
    __u64 buf;
    __u64 done_ptr;
    __u64 ts; /* when the call began: a write's bytes are stamped with it */
    __u8 read;
};

struct ssl_key {
    __u32 tgid;
    __u32 pad;
    __u64 ssl;
};

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 16);
    __type(key, __u16);
    __type(value, __u8);
} ports SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_RINGBUF);
    __uint(max_entries, 16 << 20);
} events SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 16384);
    __type(key, __u64);
    __type(value, struct io);
} io_calls SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 16384);
    __type(key, __u64);
    __type(value, struct ssl_call);
} ssl_calls SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_LRU_HASH);
    __uint(max_entries, 65536);
    __type(key, struct ssl_key);
    __type(value, __u64);
} ssl_socks SEC(".maps");

/* The watched socket each thread last read or wrote: the SSL object's socket for libraries
 * that run OpenSSL over memory BIOs (Node), where the socket I/O is outside the SSL call. */
struct {
    __uint(type, BPF_MAP_TYPE_LRU_HASH);
    __uint(max_entries, 16384);
    __type(key, __u64);
    __type(value, __u64);
} last_sk SEC(".maps");

/* The processes whose first connection (or accept) has woken the reader, by pid and the
 * start time of its thread group leader (a pid reused by a new process is a new key). */
struct proc_key {
    __u32 tgid;
    __u32 pad;
    __u64 start;
};

struct {
    __uint(type, BPF_MAP_TYPE_LRU_HASH);
    __uint(max_entries, 16384);
    __type(key, struct proc_key);
    __type(value, __u8);
} woken SEC(".maps");

/* Events lost because the ring buffer was full (user space reports it). */
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, __u64);
} lost SEC(".maps");

/* Unread bytes in the ring buffer at which a submit wakes the reader. Below it an event
 * wakes no one: user space drains the buffer every 100 ms anyway, and a wake-up per event
 * would cost each watched call a cross-CPU wake-up of the reader (on two cores, the reader
 * then takes the client's CPU). Only a process's first connection or accept wakes it at
 * once (`wake`, see `first_of_process`), so it reads the process's /proc entry while the
 * process lives; its later connections wait for the drain like data. */
#define WAKE_AT (1 << 20)

static __always_inline void submit(void *e, int wake)
{
    __u64 flags = wake || bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= WAKE_AT
                      ? BPF_RB_FORCE_WAKEUP
                      : BPF_RB_NO_WAKEUP;
    bpf_ringbuf_submit(e, flags);
}

static __always_inline void count_lost(void)
{
    __u32 zero = 0;
    __u64 *n = bpf_map_lookup_elem(&lost, &zero);
    if (n)
        __sync_fetch_and_add(n, 1);
}

/* Is this a TCP socket whose remote port is watched (the client side of a Solr connection)? */
static __always_inline int watched(const struct sock *sk)
{
    if (!sk)
        return 0;
    __u16 dport = __builtin_bswap16(BPF_CORE_READ(sk, __sk_common.skc_dport));
    return bpf_map_lookup_elem(&ports, &dport) != 0;
}

static __always_inline void fill(struct hdr *h, const struct sock *sk, __u8 kind)
{
    __u64 id = bpf_get_current_pid_tgid();
    h->kind = kind;
    h->to_server = 0;
    h->source = SRC_SOCKET;
    h->pid = id >> 32;
    h->tid = (__u32)id;
    h->len = 0;
    h->ts = bpf_ktime_get_ns();
    h->sk = (__u64)sk;
    h->cgroup = bpf_get_current_cgroup_id();
    h->extra = 0;
    h->extra2 = 0;
    h->family = BPF_CORE_READ(sk, __sk_common.skc_family);
    h->sport = BPF_CORE_READ(sk, __sk_common.skc_num);
    h->dport = __builtin_bswap16(BPF_CORE_READ(sk, __sk_common.skc_dport));
    __builtin_memset(h->saddr, 0, 16);
    __builtin_memset(h->daddr, 0, 16);
    if (h->family == AF_INET6) {
        BPF_CORE_READ_INTO(&h->saddr, sk, __sk_common.skc_v6_rcv_saddr.in6_u.u6_addr8);
        BPF_CORE_READ_INTO(&h->daddr, sk, __sk_common.skc_v6_daddr.in6_u.u6_addr8);
    } else {
        __u32 s = BPF_CORE_READ(sk, __sk_common.skc_rcv_saddr);
        __u32 d = BPF_CORE_READ(sk, __sk_common.skc_daddr);
        __builtin_memcpy(h->saddr, &s, 4);
        __builtin_memcpy(h->daddr, &d, 4);
    }
    bpf_get_current_comm(h->comm, sizeof(h->comm));
}

/* Is this the current process's first wake-up request? Records it if so. */
static __always_inline int first_of_process(void)
{
    struct task_struct *task = (struct task_struct *)bpf_get_current_task();
    struct proc_key k = {.tgid = bpf_get_current_pid_tgid() >> 32, .pad = 0,
                         .start = BPF_CORE_READ(task, group_leader, start_time)};
    __u8 one = 1;
    return bpf_map_update_elem(&woken, &k, &one, BPF_NOEXIST) == 0;
}

/* A connection event; `state` is the TCP state left (close events). */
static __always_inline void conn_event(const struct sock *sk, __u8 kind, __u64 extra, __u32 extra2,
                                       __u8 state)
{
    struct hdr *h = bpf_ringbuf_reserve(&events, sizeof(struct hdr), 0);
    if (!h) {
        count_lost();
        return;
    }
    fill(h, sk, kind);
    h->extra = extra;
    h->extra2 = extra2;
    h->to_server = state;
    submit(h, (kind == EV_OPEN || kind == EV_ACCEPT) && first_of_process());
}

SEC("tp_btf/inet_sock_set_state")
int BPF_PROG(on_state, const struct sock *sk, int oldstate, int newstate)
{
    if (BPF_CORE_READ(sk, sk_protocol) != IPPROTO_TCP || !watched(sk))
        return 0;
    if (newstate == TCP_SYN_SENT) {
        conn_event(sk, EV_OPEN, 0, 0, 0);
    } else if (newstate == TCP_CLOSE) {
        const struct tcp_sock *tp = (const struct tcp_sock *)sk;
        conn_event(sk, EV_CLOSE, BPF_CORE_READ(tp, srtt_us) >> 3, BPF_CORE_READ(tp, total_retrans),
                   oldstate);
    }
    return 0;
}

SEC("tp_btf/tcp_retransmit_skb")
int BPF_PROG(on_retransmit, const struct sock *sk)
{
    if (watched(sk))
        conn_event(sk, EV_RETRANSMIT, 0, 0, 0);
    return 0;
}

struct iovec_ {
    __u64 base;
    __u64 len;
};

/* A walk over the user bytes of one call, one chunk per bpf_loop step: a plain buffer
 * (`vec` 0: base, left) or an iovec array (`vec` 1: iov, nr_segs). */
struct walk {
    __u64 sk;
    __u64 iov;
    __u64 nr_segs;
    __u64 seg;
    __u64 base;
    __u64 seg_left;
    __u64 left;
    __u64 ts; /* the events' time stamp; 0: now */
    __u8 to_server;
    __u8 source;
    __u8 vec;
};

/* One data event of `len` bytes (at most `cap`, a power of two) in a record of `cap`. */
static __always_inline int emit_chunk(const struct walk *w, __u64 len, const __u32 cap)
{
    struct hdr *h = bpf_ringbuf_reserve(&events, sizeof(struct hdr) + cap, 0);
    if (!h) {
        count_lost();
        return 1;
    }
    fill(h, (const struct sock *)w->sk, EV_DATA);
    if (w->ts)
        h->ts = w->ts;
    h->to_server = w->to_server;
    h->source = w->source;
    h->len = len;
    if (bpf_probe_read_user(h + 1, len & (2 * cap - 1), (void *)w->base) != 0) {
        h->kind = EV_GAP;
        h->extra = len;
        h->len = 0;
    }
    submit(h, 0);
    return 0;
}

static long walk_step(__u32 i, void *ctx)
{
    struct walk *w = ctx;
    if (w->left == 0)
        return 1;
    if (w->seg_left == 0) {
        if (!w->vec || w->seg >= w->nr_segs)
            return 1;
        struct iovec_ v;
        if (bpf_probe_read_user(&v, sizeof(v), (void *)(w->iov + w->seg * sizeof(struct iovec_))) != 0)
            return 1;
        w->seg++;
        w->base = v.base;
        w->seg_left = v.len < w->left ? v.len : w->left;
        return 0;
    }
    __u64 len = w->seg_left < CHUNK ? w->seg_left : CHUNK;
    if (len <= SMALL ? emit_chunk(w, len, SMALL) : emit_chunk(w, len, CHUNK))
        return 1;
    w->base += len;
    w->seg_left -= len;
    w->left -= len;
    return 0;
}

static __always_inline void emit_gap(const struct sock *sk, __u64 n, __u8 to_server, __u8 source);

/* Sends the `n` bytes of one call to user space, what does not fit as a gap. */
static __always_inline void emit_walk(struct walk *w)
{
    bpf_loop(MAX_CHUNKS + MAX_IOVECS, walk_step, w, 0);
    emit_gap((const struct sock *)w->sk, w->left, w->to_server, w->source);
}

static __always_inline void emit_gap(const struct sock *sk, __u64 n, __u8 to_server, __u8 source)
{
    if (n == 0)
        return;
    struct hdr *h = bpf_ringbuf_reserve(&events, sizeof(struct hdr), 0);
    if (!h) {
        count_lost();
        return;
    }
    fill(h, sk, EV_GAP);
    h->to_server = to_server;
    h->source = source;
    h->extra = n;
    submit(h, 0);
}

/* Within an SSL call on this thread: remember which socket that SSL object uses. */
static __always_inline void note_ssl_socket(__u64 id, const struct sock *sk)
{
    struct ssl_call *c = bpf_map_lookup_elem(&ssl_calls, &id);
    if (!c)
        return;
    struct ssl_key k = {.tgid = id >> 32, .pad = 0, .ssl = c->ssl};
    __u64 v = (__u64)sk;
    bpf_map_update_elem(&ssl_socks, &k, &v, BPF_ANY);
}

/* The TCP socket behind file descriptor `fd` of the current task, if it is one. */
static __always_inline const struct sock *fd_sock(__u64 fd)
{
    struct task_struct *task = (struct task_struct *)bpf_get_current_task();
    struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
    if (!fdt || fd >= BPF_CORE_READ(fdt, max_fds))
        return 0;
    struct file **fds = BPF_CORE_READ(fdt, fd);
    struct file *f = 0;
    if (bpf_probe_read_kernel(&f, sizeof(f), fds + fd) != 0 || !f)
        return 0;
    struct socket *sock = BPF_CORE_READ(f, private_data);
    if (!sock || BPF_CORE_READ(sock, file) != f)
        return 0;
    struct sock *sk = BPF_CORE_READ(sock, sk);
    if (!sk || BPF_CORE_READ(sk, sk_socket) != sock || BPF_CORE_READ(sk, sk_protocol) != IPPROTO_TCP)
        return 0;
    return sk;
}

#define NR_ACCEPT 43
#define NR_ACCEPT4 288
#define NR_READ 0
#define NR_WRITE 1
#define NR_READV 19
#define NR_WRITEV 20
#define NR_SENDTO 44
#define NR_RECVFROM 45
#define NR_SENDMSG 46
#define NR_RECVMSG 47

struct user_msghdr_ {
    __u64 name;
    __u32 namelen;
    __u32 pad;
    __u64 iov;
    __u64 iovlen;
};

/* How a call hands over its bytes: one buffer, an iovec array, or a msghdr. */
enum how { HOW_BUF = 0, HOW_IOVEC = 1, HOW_MSG = 2 };

/* A read/write/send/recv entering on `fd`: when it is a TCP socket to a watched port (the
 * socket resolved and its port looked up before anything is copied), remember where its
 * bytes are for the exit. `flags` are a receive's flags (MSG_PEEK is not a read). */
static __always_inline int io_enter(__u64 fd, __u64 arg, __u64 nr_segs, __u8 to_server, __u8 how,
                                    __u64 flags)
{
    const struct sock *sk = fd_sock(fd);
    if (!watched(sk))
        return 0;
    if (flags & MSG_PEEK)
        return 0;
    __u64 id = bpf_get_current_pid_tgid();
    note_ssl_socket(id, sk);
    __u64 skv = (__u64)sk;
    bpf_map_update_elem(&last_sk, &id, &skv, BPF_ANY);
    struct io io = {};
    io.sk = (__u64)sk;
    io.to_server = to_server;
    if (how == HOW_BUF) {
        io.ubuf = 1;
        io.base = arg;
    } else if (how == HOW_MSG) {
        struct user_msghdr_ m;
        if (bpf_probe_read_user(&m, sizeof(m), (void *)arg) != 0)
            return 0;
        io.iov = m.iov;
        io.nr_segs = m.iovlen;
    } else {
        io.iov = arg;
        io.nr_segs = nr_segs;
    }
    bpf_map_update_elem(&io_calls, &id, &io, BPF_ANY);
    return 0;
}

/* The exit of a call `io_enter` kept: its `ret` bytes go to user space. */
static __always_inline int io_exit(long ret)
{
    __u64 id = bpf_get_current_pid_tgid();
    struct io *io = bpf_map_lookup_elem(&io_calls, &id);
    if (!io)
        return 0;
    struct io c = *io;
    bpf_map_delete_elem(&io_calls, &id);
    if (ret <= 0)
        return 0;
    struct walk w = {.sk = c.sk, .iov = c.iov, .nr_segs = c.nr_segs, .base = c.base,
                     .seg_left = c.ubuf ? ret : 0, .left = ret, .to_server = c.to_server,
                     .source = SRC_SOCKET, .vec = !c.ubuf};
    emit_walk(&w);
    return 0;
}

/* A connection a server on this host accepted on a watched port: the accepting process
 * (Solr) owns it; its remote end is the client. */
static __always_inline void on_accept(long fd)
{
    const struct sock *sk = fd_sock(fd);
    if (!sk)
        return;
    __u16 lport = BPF_CORE_READ(sk, __sk_common.skc_num);
    if (bpf_map_lookup_elem(&ports, &lport))
        conn_event(sk, EV_ACCEPT, 0, 0, 0);
}

/* The per-syscall tracepoints (syscalls/sys_enter_NAME, sys_exit_NAME): the kernel runs a
 * program only for the syscalls it is attached to, so every other syscall of every process
 * (poll, futex, file reads through other calls...) runs none. Their records, as tracefs's
 * `format` files give them: 8 bytes of common fields, the syscall number, then the six
 * arguments (enter) or the return value (exit), 8 bytes each. */
struct sys_enter_rec {
    __u64 common;
    __s32 nr;
    __u32 pad;
    __u64 args[6];
};

struct sys_exit_rec {
    __u64 common;
    __s32 nr;
    __u32 pad;
    __s64 ret;
};

#define ENTER(name, to_server, how, nr_segs, flags)                                          \
    SEC("tracepoint/syscalls/sys_enter_" #name)                                              \
    int enter_##name(struct sys_enter_rec *r)                                                \
    {                                                                                        \
        return io_enter(r->args[0], r->args[1], nr_segs, to_server, how, flags);             \
    }                                                                                        \
    SEC("tracepoint/syscalls/sys_exit_" #name)                                               \
    int exit_##name(struct sys_exit_rec *r)                                                  \
    {                                                                                        \
        return io_exit(r->ret);                                                              \
    }

ENTER(read, 0, HOW_BUF, 0, 0)
ENTER(write, 1, HOW_BUF, 0, 0)
ENTER(readv, 0, HOW_IOVEC, r->args[2], 0)
ENTER(writev, 1, HOW_IOVEC, r->args[2], 0)
ENTER(sendto, 1, HOW_BUF, 0, 0)
ENTER(recvfrom, 0, HOW_BUF, 0, r->args[3])
ENTER(sendmsg, 1, HOW_MSG, 0, 0)
ENTER(recvmsg, 0, HOW_MSG, 0, r->args[2])

SEC("tracepoint/syscalls/sys_exit_accept")
int exit_accept(struct sys_exit_rec *r)
{
    if (r->ret >= 0)
        on_accept(r->ret);
    return 0;
}

SEC("tracepoint/syscalls/sys_exit_accept4")
int exit_accept4(struct sys_exit_rec *r)
{
    if (r->ret >= 0)
        on_accept(r->ret);
    return 0;
}

/* The fallback where the per-syscall tracepoints cannot be attached (tracefs not mounted,
 * or not readable by a user with only CAP_BPF and CAP_PERFMON): the raw tracepoints, which
 * run for every syscall of every process and leave the others at once. */
SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter, struct pt_regs *regs, long nr)
{
    if (nr == NR_WRITE || nr == NR_SENDTO)
        return io_enter(BPF_CORE_READ(regs, di), BPF_CORE_READ(regs, si), 0, 1, HOW_BUF, 0);
    if (nr == NR_READ)
        return io_enter(BPF_CORE_READ(regs, di), BPF_CORE_READ(regs, si), 0, 0, HOW_BUF, 0);
    if (nr == NR_RECVFROM)
        return io_enter(BPF_CORE_READ(regs, di), BPF_CORE_READ(regs, si), 0, 0, HOW_BUF,
                        BPF_CORE_READ(regs, r10));
    if (nr == NR_WRITEV || nr == NR_READV)
        return io_enter(BPF_CORE_READ(regs, di), BPF_CORE_READ(regs, si), BPF_CORE_READ(regs, dx),
                        nr == NR_WRITEV, HOW_IOVEC, 0);
    if (nr == NR_SENDMSG)
        return io_enter(BPF_CORE_READ(regs, di), BPF_CORE_READ(regs, si), 0, 1, HOW_MSG, 0);
    if (nr == NR_RECVMSG)
        return io_enter(BPF_CORE_READ(regs, di), BPF_CORE_READ(regs, si), 0, 0, HOW_MSG,
                        BPF_CORE_READ(regs, dx));
    return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit, struct pt_regs *regs, long ret)
{
    /* Every syscall of every process comes here: leave the others before any map look-up. */
    long nr = regs->orig_ax;
    if ((nr == NR_ACCEPT || nr == NR_ACCEPT4) && ret >= 0) {
        on_accept(ret);
        return 0;
    }
    if (nr != NR_READ && nr != NR_WRITE && nr != NR_READV && nr != NR_WRITEV && nr != NR_SENDTO &&
        nr != NR_RECVFROM && nr != NR_SENDMSG && nr != NR_RECVMSG)
        return 0;
    return io_exit(ret);
}

/* ---- OpenSSL: plaintext at SSL_write / SSL_read (and the _ex forms) ---- */

static __always_inline int ssl_enter(__u64 ssl, __u64 buf, __u64 done_ptr, __u8 read)
{
    __u64 id = bpf_get_current_pid_tgid();
    struct ssl_call c = {.ssl = ssl, .buf = buf, .done_ptr = done_ptr, .ts = bpf_ktime_get_ns(),
                         .read = read};
    bpf_map_update_elem(&ssl_calls, &id, &c, BPF_ANY);
    return 0;
}

static __always_inline int ssl_exit(long ret, __u8 ex)
{
    __u64 id = bpf_get_current_pid_tgid();
    struct ssl_call *p = bpf_map_lookup_elem(&ssl_calls, &id);
    if (!p)
        return 0;
    struct ssl_call c = *p;
    bpf_map_delete_elem(&ssl_calls, &id);
    __u64 n = 0;
    if (ex) {
        if (ret != 1 || !c.done_ptr)
            return 0;
        bpf_probe_read_user(&n, sizeof(n), (void *)c.done_ptr);
    } else {
        if (ret <= 0)
            return 0;
        n = ret;
    }
    struct ssl_key k = {.tgid = id >> 32, .pad = 0, .ssl = c.ssl};
    __u64 *skp = bpf_map_lookup_elem(&ssl_socks, &k);
    if (!skp) {
        /* No socket call inside any SSL call on this object (memory BIOs): the watched
         * socket this thread last used, if any; else not a watched connection. */
        skp = bpf_map_lookup_elem(&last_sk, &id);
        if (!skp)
            return 0;
        __u64 v = *skp;
        bpf_map_update_elem(&ssl_socks, &k, &v, BPF_ANY);
    }
    /* A write is stamped when the application handed it over (a thread preempted after the
     * call would otherwise start its request late); a read when its bytes were there. */
    struct walk w = {.sk = *skp, .base = c.buf, .seg_left = n, .left = n,
                     .ts = c.read ? 0 : c.ts, .to_server = !c.read, .source = SRC_SSL,
                     .vec = 0};
    emit_walk(&w);
    return 0;
}

SEC("uprobe")
int BPF_KPROBE(ssl_write_enter, void *ssl, const void *buf, int num)
{
    return ssl_enter((__u64)ssl, (__u64)buf, 0, 0);
}

SEC("uretprobe")
int BPF_KRETPROBE(ssl_write_exit, int ret)
{
    return ssl_exit(ret, 0);
}

SEC("uprobe")
int BPF_KPROBE(ssl_read_enter, void *ssl, void *buf, int num)
{
    return ssl_enter((__u64)ssl, (__u64)buf, 0, 1);
}

SEC("uretprobe")
int BPF_KRETPROBE(ssl_read_exit, int ret)
{
    return ssl_exit(ret, 0);
}

SEC("uprobe")
int BPF_KPROBE(ssl_write_ex_enter, void *ssl, const void *buf, __kernel_size_t num, __kernel_size_t *written)
{
    return ssl_enter((__u64)ssl, (__u64)buf, (__u64)written, 0);
}

SEC("uretprobe")
int BPF_KRETPROBE(ssl_write_ex_exit, int ret)
{
    return ssl_exit(ret, 1);
}

SEC("uprobe")
int BPF_KPROBE(ssl_read_ex_enter, void *ssl, void *buf, __kernel_size_t num, __kernel_size_t *readbytes)
{
    return ssl_enter((__u64)ssl, (__u64)buf, (__u64)readbytes, 1);
}

SEC("uretprobe")
int BPF_KRETPROBE(ssl_read_ex_exit, int ret)
{
    return ssl_exit(ret, 1);
}
