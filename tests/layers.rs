//! The crate's layers, checked from its source: no import circle between the files of `src/`,
//! nor between the space's files in `policy/` (compiled into mmtk), and nothing in the allocator
//! core refers to the malloc front end (`src/malloc/`) above it.
//!
//! A file's references are the module paths it names (`crate::a::b`, `super::x`, and `use`
//! groups of them); a reference to a module is an edge to that module's file. A child module
//! declared with `mod x;` is not a reference: a file split in two (`heap.rs` with `heap/lazy.rs`
//! holding more of `Heap`'s methods) is one concept in two files.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, by module path (`heap`, `malloc::arena`, `lib` for the root).
fn modules(root: &Path) -> BTreeMap<String, PathBuf> {
    fn walk(dir: &Path, prefix: &str, out: &mut BTreeMap<String, PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_stem().unwrap().to_str().unwrap().to_string();
            if p.is_dir() {
                walk(&p, &format!("{prefix}{name}::"), out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let module = match name.as_str() {
                    "mod" => prefix.trim_end_matches("::").to_string(),
                    _ => format!("{prefix}{name}"),
                };
                out.insert(module, p);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, "", &mut out);
    out
}

/// The source without comments (line comments, doc comments, block comments) and strings.
fn code_of(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let b = src.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            while i < b.len() && !b[i..].starts_with(b"*/") {
                i += 1;
            }
            i += 2;
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

/// The modules `module`'s code names, resolved against the known modules: for each path
/// `crate::a::b::c` (or `super::…`, or the items of a `use crate::a::{b, c::d}` group), the
/// longest prefix that is a module.
fn references(module: &str, code: &str, known: &BTreeMap<String, PathBuf>) -> BTreeSet<String> {
    references_in(module, code, known, &[])
}

/// As [`references`], for files compiled as the module `crate::<root>` of another crate (the
/// space's files in `policy/` are `crate::policy::marksweepspace::shardsweep` inside mmtk): a
/// `crate::` path is one of ours only under `root`, and names nothing of ours elsewhere.
fn references_in(
    module: &str,
    code: &str,
    known: &BTreeMap<String, PathBuf>,
    root: &[&str],
) -> BTreeSet<String> {
    let parent: Vec<&str> = if module == "lib" {
        vec![]
    } else {
        let mut v: Vec<&str> = module.split("::").collect();
        v.pop();
        v
    };
    let mut paths: Vec<Vec<String>> = Vec::new();
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let toks: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < toks.len() {
        let rest: String = toks[i..toks.len().min(i + 7)].iter().collect();
        let at_word = i == 0 || !ident(toks[i - 1]);
        let base = if at_word && rest.starts_with("crate::") {
            i += 7;
            // `crate::<root>::x` is our `x`; another `crate::` path is the host crate's.
            let mut under_root = true;
            for seg in root {
                let want: Vec<char> = format!("{seg}::").chars().collect();
                if toks[i..].starts_with(&want) {
                    i += want.len();
                } else {
                    under_root = false;
                    break;
                }
            }
            if under_root {
                Some(Vec::<String>::new())
            } else {
                None
            }
        } else if at_word && rest.starts_with("super::") {
            i += 7;
            // `super::super::x` climbs once more per `super::`.
            let mut up: Vec<String> = parent.iter().map(|s| s.to_string()).collect();
            while toks[i..].starts_with(&['s', 'u', 'p', 'e', 'r', ':', ':']) {
                i += 7;
                up.pop();
            }
            Some(up)
        } else {
            None
        };
        let Some(base) = base else {
            i += 1;
            continue;
        };
        // Read `a::b::{c, d::e}` (one level of braces is all the crate uses).
        let mut segs = base;
        loop {
            let start = i;
            while i < toks.len() && ident(toks[i]) {
                i += 1;
            }
            segs.push(toks[start..i].iter().collect());
            if toks[i..].starts_with(&[':', ':']) {
                i += 2;
                if i < toks.len() && toks[i] == '{' {
                    let end = i + toks[i..].iter().position(|&c| c == '}').unwrap();
                    let group: String = toks[i + 1..end].iter().collect();
                    for item in group.split(',') {
                        let mut p = segs.clone();
                        p.extend(
                            item.split("::")
                                .map(|s| {
                                    s.trim().split_whitespace().next().unwrap_or("").to_string()
                                })
                                .filter(|s| !s.is_empty()),
                        );
                        paths.push(p);
                    }
                    i = end + 1;
                    break;
                }
                continue;
            }
            paths.push(segs.clone());
            break;
        }
    }
    let mut out = BTreeSet::new();
    for p in paths {
        for n in (1..=p.len()).rev() {
            let m = p[..n].join("::");
            if known.contains_key(&m) {
                if m != module {
                    out.insert(m);
                }
                break;
            }
        }
    }
    out
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    graph_of("src", &[])
}

/// The space's files (`policy/`, compiled into mmtk as `crate::policy::marksweepspace::shardsweep`;
/// their `mod.rs` is the root, `lib` here).
fn policy_graph() -> BTreeMap<String, BTreeSet<String>> {
    graph_of("policy", &["policy", "marksweepspace", "shardsweep"])
}

/// The graph of the `.rs` files under `dir` (relative to the crate), compiled as `crate::<root>`.
fn graph_of(dir: &str, root: &[&str]) -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut known = modules(&src);
    // A directory's `mod.rs` at the top is the root module, as `lib.rs` is a crate's.
    if let Some(p) = known.remove("") {
        known.insert("lib".to_string(), p);
    }
    known
        .iter()
        .filter(|(m, _)| m.as_str() != "lib")
        .map(|(m, p)| {
            let mut code = code_of(&std::fs::read_to_string(p).unwrap());
            // An inline test module (at the end of a file) is not part of the layering, and its
            // `super` is the file itself.
            if let Some(at) = code.find("#[cfg(test)]\nmod ") {
                code.truncate(at);
            }
            (m.clone(), references_in(m, &code, &known, root))
        })
        .collect()
}

/// A cycle in `g`, as the list of modules along it, if there is one.
fn find_cycle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn dfs(
        n: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        for m in g.get(n).into_iter().flatten() {
            match state.get(m.as_str()).copied().unwrap_or(0) {
                1 => {
                    let at = stack.iter().position(|s| s == m).unwrap();
                    let mut c = stack[at..].to_vec();
                    c.push(m.clone());
                    return Some(c);
                }
                0 => {
                    if let Some(c) = dfs(m, g, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in g.keys() {
        if state.get(n.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(c) = dfs(n, g, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn no_import_circle_in_src() {
    let g = graph();
    assert!(
        g.len() > 15,
        "the source walk found the crate's files: {:?}",
        g.keys()
    );
    if let Some(c) = find_cycle(&g) {
        panic!("import circle in src/: {}", c.join(" -> "));
    }
}

#[test]
fn no_import_circle_in_policy() {
    let g = policy_graph();
    assert!(
        g.len() > 10 && g.contains_key("space") && g.contains_key("space::budget"),
        "the policy walk found the space's files: {:?}",
        g.keys()
    );
    // The space's files name each other through `super::` and `crate::policy::…::shardsweep::`.
    assert!(g["space"].contains("settings"), "space -> settings seen: {:?}", g["space"]);
    assert!(g["space::budget"].contains("space"), "space::budget -> space seen: {:?}", g["space::budget"]);
    if let Some(c) = find_cycle(&g) {
        panic!("import circle in policy/: {}", c.join(" -> "));
    }
}

#[test]
fn the_core_does_not_refer_to_the_malloc_front_end() {
    for (m, refs) in graph() {
        if m == "malloc" || m.starts_with("malloc::") {
            continue;
        }
        let up: Vec<&String> = refs.iter().filter(|r| r.starts_with("malloc")).collect();
        assert!(
            up.is_empty(),
            "core module {m} refers to the front end: {up:?}"
        );
    }
}

#[test]
fn the_floor_refers_to_nothing_above_it() {
    // The leaves every layer may read: configuration, size classes, work bounds, the step
    // counter, cells, page masks, and the atomics shim.
    let floor = [
        "config",
        "size_class",
        "bounds",
        "steps",
        "cell",
        "page_mask",
        "sync",
    ];
    let g = graph();
    for m in floor {
        let above: Vec<&String> = g[m]
            .iter()
            .filter(|r| !floor.contains(&r.as_str()))
            .collect();
        assert!(above.is_empty(), "{m} refers above the floor: {above:?}");
    }
}

#[test]
fn the_checker_sees_a_circle() {
    // The check itself can fail: a two-file circle planted in a copy of the graph.
    let mut g = graph();
    g.get_mut("config").unwrap().insert("heap".to_string());
    assert!(find_cycle(&g).is_some());
    let code =
        code_of("use crate::heap::{Heap, SweepStats};\n// crate::block\nfn f() { super::x::y(); }");
    let known: BTreeMap<String, PathBuf> = ["heap", "block", "malloc::x", "malloc::y"]
        .iter()
        .map(|m| (m.to_string(), PathBuf::new()))
        .collect();
    let refs = references("malloc::y", &code, &known);
    assert_eq!(
        refs,
        BTreeSet::from(["heap".to_string(), "malloc::x".to_string()])
    );
    // Inside a host crate: `crate::<root>::` paths are ours, other `crate::` paths are not, and
    // `super::super::` climbs twice.
    let code = code_of(
        "use crate::policy::ss::work;\nuse crate::util::heap::Block;\nfn f() { super::super::report::x(); }",
    );
    let known: BTreeMap<String, PathBuf> = ["work", "heap", "report", "space::budget"]
        .iter()
        .map(|m| (m.to_string(), PathBuf::new()))
        .collect();
    let refs = references_in("space::budget", &code, &known, &["policy", "ss"]);
    assert_eq!(
        refs,
        BTreeSet::from(["work".to_string(), "report".to_string()])
    );
}

/// The graphs, for a reader: `cargo test --test layers -- --ignored --nocapture`.
#[test]
#[ignore]
fn print_graph() {
    for (m, r) in graph() {
        println!("{m} -> {r:?}");
    }
    for (m, r) in policy_graph() {
        println!("policy {m} -> {r:?}");
    }
}
