//! Where in a file the OpenSSL probes attach.
//!
//! A uprobe costs the probed thread a trap. When the kernel cannot emulate the instruction
//! the probe replaces, it also single-steps that instruction out of line: a second trap.
//! On this project's machines (a VM) the second trap made a probe hit about ten times dearer
//! (13 µs against 1.4 µs). In OpenSSL 1.1 and 3.x, `SSL_write_ex` and `SSL_read_ex` are thin
//! wrappers: `sub $8,%rsp` (not emulated) then a call to the library's internal write or read
//! function, which `SSL_write`/`SSL_read` call too and which takes the `_ex` arguments
//! (`ssl, buf, num, size_t *done`, returning 1 on success). Where a file has that shape,
//! both families are probed once, at that inner function, with the `_ex` programs. That also
//! reads callers that bypass the exported functions (OpenSSL's own SSL BIO). Where it has not
//! (another architecture, another layout), the four exported functions are probed.

use anyhow::{Context, Result};
use object::{Architecture, Object, ObjectSegment, ObjectSymbol, SymbolKind};

/// One place to attach an entry and a return probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    /// What is probed, for messages: an exported name, or the function it calls.
    pub what: String,
    /// Its address in the file's memory image.
    pub vaddr: u64,
    /// The entry program.
    pub enter: &'static str,
    /// The return program.
    pub exit: &'static str,
}

/// A function as [`plan`] sees it.
#[derive(Debug, Clone, Copy)]
pub struct Func<'a> {
    /// Its address in memory.
    pub vaddr: u64,
    /// Its code.
    pub code: &'a [u8],
}

/// One direction: the exported call, its `_ex` form, and the programs for each.
struct Family {
    plain: &'static str,
    ex: &'static str,
    plain_programs: [&'static str; 2],
    ex_programs: [&'static str; 2],
}

const FAMILIES: [Family; 2] = [
    Family {
        plain: "SSL_write",
        ex: "SSL_write_ex",
        plain_programs: ["ssl_write_enter", "ssl_write_exit"],
        ex_programs: ["ssl_write_ex_enter", "ssl_write_ex_exit"],
    },
    Family {
        plain: "SSL_read",
        ex: "SSL_read_ex",
        plain_programs: ["ssl_read_enter", "ssl_read_exit"],
        ex_programs: ["ssl_read_ex_enter", "ssl_read_ex_exit"],
    },
];

const ENDBR64: [u8; 4] = [0xf3, 0x0f, 0x1e, 0xfa];
const SUB_RSP_IMM8: [u8; 3] = [0x48, 0x83, 0xec];
const CALL_REL32: u8 = 0xe8;

/// The target of a `call rel32` whose first byte is at `vaddr`.
fn call_target(bytes: &[u8], vaddr: u64) -> Option<u64> {
    let (&op, rest) = bytes.split_first()?;
    let rel = i32::from_le_bytes(rest.get(..4)?.try_into().ok()?);
    (op == CALL_REL32).then(|| vaddr.wrapping_add(5).wrapping_add_signed(i64::from(rel)))
}

/// The function `f` hands its arguments to, if `f` is x86-64 code that does nothing with
/// them first: an optional `endbr64`, an optional `sub $imm8,%rsp`, then `call`.
pub fn thin_call(f: Func) -> Option<u64> {
    let mut at = 0;
    if f.code.starts_with(&ENDBR64) {
        at += ENDBR64.len();
    }
    if f.code.get(at..)?.starts_with(&SUB_RSP_IMM8) {
        at += SUB_RSP_IMM8.len() + 1;
    }
    call_target(f.code.get(at..)?, f.vaddr.wrapping_add(at as u64))
}

/// Does `f` contain a `call` to `target`? (A byte scan: five bytes that decode as that
/// exact call and are not one are not a practical risk.)
pub fn calls(f: Func, target: u64) -> bool {
    (0..f.code.len())
        .any(|i| call_target(&f.code[i..], f.vaddr.wrapping_add(i as u64)) == Some(target))
}

/// The sites of one family, given the exported functions the file defines.
fn plan_family<'a>(family: &Family, lookup: &dyn Fn(&str) -> Option<Func<'a>>) -> Vec<Site> {
    let plain = lookup(family.plain);
    let ex = lookup(family.ex);
    let inner = ex.and_then(thin_call);
    if let Some(inner) = inner.filter(|&i| plain.is_none_or(|p| calls(p, i))) {
        let [enter, exit] = family.ex_programs;
        return vec![Site {
            what: format!("the function {} calls", family.ex),
            vaddr: inner,
            enter,
            exit,
        }];
    }
    let exported = [
        (plain, family.plain, family.plain_programs),
        (ex, family.ex, family.ex_programs),
    ];
    exported
        .into_iter()
        .filter_map(|(f, name, [enter, exit])| {
            f.map(|f| Site {
                what: name.to_string(),
                vaddr: f.vaddr,
                enter,
                exit,
            })
        })
        .collect()
}

/// The sites for a file that defines the functions `lookup` finds; `x86_64` says whether
/// its code may be read as x86-64 (else only exported functions are probed).
pub fn plan<'a>(lookup: &dyn Fn(&str) -> Option<Func<'a>>, x86_64: bool) -> Vec<Site> {
    let no_code = |name: &str| lookup(name).map(|f| Func { code: &[], ..f });
    let lookup: &dyn Fn(&str) -> Option<Func<'a>> = if x86_64 { lookup } else { &no_code };
    FAMILIES
        .iter()
        .flat_map(|f| plan_family(f, lookup))
        .collect()
}

/// A site with the file offset a uprobe takes.
#[derive(Debug, Clone)]
pub struct Placed {
    /// The site.
    pub site: Site,
    /// Its offset in the file.
    pub offset: u64,
}

/// The sites in the ELF file `data`, placed at their file offsets.
pub fn sites(data: &[u8]) -> Result<Vec<Placed>> {
    let file = object::File::parse(data).context("reading the file as ELF")?;
    let segments: Vec<(u64, u64, &[u8])> = file
        .segments()
        .filter_map(|s| Some((s.address(), s.file_range().0, s.data().ok()?)))
        .collect();
    let locate = |vaddr: u64| {
        segments.iter().find_map(|&(at, offset, bytes)| {
            let i = usize::try_from(vaddr.checked_sub(at)?).ok()?;
            bytes
                .get(i..)
                .map(|code| (offset.saturating_add(i as u64), code))
        })
    };
    let symbols: Vec<_> = file.dynamic_symbols().chain(file.symbols()).collect();
    let lookup = |name: &str| {
        let s = symbols
            .iter()
            .find(|s| s.is_definition() && s.kind() == SymbolKind::Text && s.name() == Ok(name))?;
        let (_, code) = locate(s.address())?;
        let len = usize::try_from(s.size()).ok()?.min(code.len());
        Some(Func {
            vaddr: s.address(),
            code: &code[..len],
        })
    };
    let plan = plan(&lookup, file.architecture() == Architecture::X86_64);
    Ok(plan
        .into_iter()
        .filter_map(|site| {
            let (offset, _) = locate(site.vaddr)?;
            Some(Placed { site, offset })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `call` from `at` to `to`, as bytes.
    fn call(at: u64, to: u64) -> Vec<u8> {
        let rel = i32::try_from(to as i64 - (at as i64 + 5)).unwrap();
        let mut v = vec![CALL_REL32];
        v.extend_from_slice(&rel.to_le_bytes());
        v
    }

    /// A wrapper at `at` shaped like OpenSSL's `_ex` functions, calling `to`.
    fn wrapper(at: u64, to: u64, endbr: bool) -> Vec<u8> {
        let mut v = if endbr { ENDBR64.to_vec() } else { Vec::new() };
        v.extend_from_slice(&[0x48, 0x83, 0xec, 0x08]);
        v.extend(call(at + v.len() as u64, to));
        v.extend_from_slice(&[0x31, 0xd2, 0x85, 0xc0, 0x48, 0x83, 0xc4, 0x08, 0xc3]);
        v
    }

    #[test]
    fn a_thin_wrapper_names_the_function_it_calls_backwards_or_forwards() {
        for (at, to) in [(0x35a10, 0x355a0), (0x1000, 0x9_0000)] {
            for endbr in [false, true] {
                let code = wrapper(at, to, endbr);
                assert_eq!(
                    thin_call(Func {
                        vaddr: at,
                        code: &code
                    }),
                    Some(to)
                );
            }
        }
    }

    #[test]
    fn a_function_that_works_before_calling_is_not_thin() {
        // mov %rdx,%rbx before the call: the arguments are not the callee's any more.
        let mut code = vec![0x48, 0x89, 0xd3];
        code.extend(call(0x1003, 0x2000));
        assert_eq!(
            thin_call(Func {
                vaddr: 0x1000,
                code: &code
            }),
            None
        );
        assert_eq!(
            thin_call(Func {
                vaddr: 0x1000,
                code: &[0x48, 0x83, 0xec]
            }),
            None
        );
        assert_eq!(
            thin_call(Func {
                vaddr: 0x1000,
                code: &[]
            }),
            None
        );
    }

    #[test]
    fn code_at_the_top_of_the_address_space_is_read_without_overflow() {
        let code = [0x48, 0x83, 0xec, 0x08, CALL_REL32, 0, 0, 0, 0];
        let f = Func {
            vaddr: u64::MAX - 2,
            code: &code,
        };
        assert_eq!(thin_call(f), Some(6));
        assert!(calls(f, 6));
    }

    #[test]
    fn a_call_is_found_anywhere_in_a_function_and_only_to_its_target() {
        let mut code = vec![0x90; 17];
        code.extend(call(0x4011, 0x2000));
        code.extend_from_slice(&[0xc3]);
        let f = Func {
            vaddr: 0x4000,
            code: &code,
        };
        assert!(calls(f, 0x2000));
        assert!(!calls(f, 0x2001));
        assert!(!calls(
            Func {
                vaddr: 0x4000,
                code: &code[..20]
            },
            0x2000
        ));
    }

    /// A file with `SSL_read`/`SSL_read_ex` at 0x3000/0x3100 around an inner read at
    /// 0x3400, and `SSL_write`/`SSL_write_ex` at 0x5000/0x5100; `write_plain` is the code
    /// of `SSL_write`.
    fn lookup_with(write_plain: Vec<u8>) -> impl Fn(&str) -> Option<Func<'static>> {
        let leak = |v: Vec<u8>| -> &'static [u8] { Box::leak(v.into_boxed_slice()) };
        let mut read_plain = vec![0x41, 0x54, 0x48, 0x83, 0xec, 0x10];
        read_plain.extend(call(0x3006, 0x3400));
        let funcs = [
            ("SSL_read", 0x3000, leak(read_plain)),
            ("SSL_read_ex", 0x3100, leak(wrapper(0x3100, 0x3400, false))),
            ("SSL_write", 0x5000, leak(write_plain)),
            ("SSL_write_ex", 0x5100, leak(wrapper(0x5100, 0x5400, true))),
        ];
        move |name| {
            funcs
                .iter()
                .find(|(n, ..)| *n == name)
                .map(|&(_, vaddr, code)| Func { vaddr, code })
        }
    }

    #[test]
    fn both_families_go_to_the_inner_functions_when_both_exported_forms_call_them() {
        let mut write_plain = vec![0x55];
        write_plain.extend(call(0x5001, 0x5400));
        let sites = plan(&lookup_with(write_plain), true);
        let at: Vec<_> = sites.iter().map(|s| (s.vaddr, s.enter, s.exit)).collect();
        assert_eq!(
            at,
            [
                (0x5400, "ssl_write_ex_enter", "ssl_write_ex_exit"),
                (0x3400, "ssl_read_ex_enter", "ssl_read_ex_exit"),
            ]
        );
    }

    #[test]
    fn a_family_whose_plain_form_calls_elsewhere_keeps_its_exported_sites() {
        // SSL_write calls SSL_write_ex (0x5100), not the inner function: probing the inner
        // one would miss nothing, but probing it and SSL_write would count twice, so both
        // exported functions are probed as they are.
        let mut write_plain = vec![0x55];
        write_plain.extend(call(0x5001, 0x5100));
        let sites = plan(&lookup_with(write_plain), true);
        let names: Vec<_> = sites.iter().map(|s| (s.what.as_str(), s.vaddr)).collect();
        assert_eq!(
            names,
            [
                ("SSL_write", 0x5000),
                ("SSL_write_ex", 0x5100),
                ("the function SSL_read_ex calls", 0x3400),
            ]
        );
    }

    #[test]
    fn code_not_read_as_x86_64_keeps_the_four_exported_sites() {
        let mut write_plain = vec![0x55];
        write_plain.extend(call(0x5001, 0x5400));
        let sites = plan(&lookup_with(write_plain), false);
        let at: Vec<_> = sites.iter().map(|s| (s.vaddr, s.enter)).collect();
        assert_eq!(
            at,
            [
                (0x5000, "ssl_write_enter"),
                (0x5100, "ssl_write_ex_enter"),
                (0x3000, "ssl_read_enter"),
                (0x3100, "ssl_read_ex_enter"),
            ]
        );
    }

    #[test]
    fn a_file_that_is_not_elf_is_an_error() {
        let e = sites(b"<html>not a library</html>").unwrap_err();
        assert!(format!("{e:#}").contains("ELF"), "{e:#}");
    }
}

/// The system's OpenSSL (the set-up installs it) has the shape [`plan`] looks for.
#[cfg(test)]
mod system_libssl {
    use super::*;

    #[test]
    fn debians_libssl_is_probed_at_two_inner_functions_that_begin_with_a_push() {
        let path = "/usr/lib/x86_64-linux-gnu/libssl.so.3";
        let data = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let placed = sites(&data).unwrap();
        let what: Vec<_> = placed
            .iter()
            .map(|p| (p.site.what.as_str(), p.site.enter))
            .collect();
        assert_eq!(
            what,
            [
                ("the function SSL_write_ex calls", "ssl_write_ex_enter"),
                ("the function SSL_read_ex calls", "ssl_read_ex_enter"),
            ]
        );
        for p in placed {
            // `push %r8`..`push %r15` or `push %rax`..`push %rdi`: one the kernel emulates.
            let at = usize::try_from(p.offset).unwrap();
            let first = match data[at] {
                0x41 => data[at + 1],
                b => b,
            };
            assert!(
                (0x50..=0x57).contains(&first),
                "{}: {:02x?}",
                p.site.what,
                &data[at..at + 4]
            );
        }
    }
}
