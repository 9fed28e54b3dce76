// SPDX-License-Identifier: GPL-3.0-or-later
//! The house's plan, checked: no two modules of a crate use each other, directly or around a
//! loop; the GUI's folders use only what lies below them (`docs/architecture.md`), beside
//! few loose files; a Rust file over 500 lines says at its top why it is long; comments cite what the
//! repository holds (`docs/`), not files beside the checkout; and no file of the project
//! reads anything beside the checkout, so that a plain clone builds and passes its tests.
//!
//! A module's uses are its `crate::` and `super::` paths, and its own submodules named in its
//! code. A parent's `pub use` of its children (a facade, as `plot/mod.rs` has) is no use: the
//! parent only names what the child offers.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

const TOP: &str = env!("CARGO_MANIFEST_DIR");

/// Every crate's source directory: the GUI's and each of `crates/`.
fn source_dirs() -> Vec<PathBuf> {
    let top = Path::new(TOP);
    let mut dirs = vec![top.join("src")];
    for entry in fs::read_dir(top.join("crates")).unwrap() {
        let src = entry.unwrap().path().join("src");
        if src.is_dir() {
            dirs.push(src);
        }
    }
    dirs.sort();
    dirs
}

fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            found.push(path);
        }
    }
}

/// `plot/mod.rs` → `plot`, `plot/ramp.rs` → `plot::ramp`, `lib.rs` → `` (the crate's root).
fn module_path(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = relative
        .iter()
        .map(|part| part.to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts.join("::")
}

/// The code a module runs with: comments, its unit tests and its facade re-exports left out.
fn code_of(text: &str) -> String {
    // The unit tests, at the end of a file: `#[cfg(test)]`, perhaps more attributes, `mod tests`.
    let lines: Vec<&str> = text.lines().collect();
    let tests_start = (0..lines.len())
        .find(|&at| {
            lines[at].trim() == "#[cfg(test)]"
                && lines[at + 1..]
                    .iter()
                    .find(|line| !line.trim_start().starts_with("#["))
                    .is_some_and(|line| line.trim_start().starts_with("mod tests"))
        })
        .unwrap_or(lines.len());
    let text = lines[..tests_start].join("\n");
    let mut code = String::new();
    let mut in_reexport = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("//") {
            continue;
        }
        let reexport = ["pub use ", "pub(crate) use "]
            .iter()
            .find_map(|head| trimmed.strip_prefix(head));
        if reexport.is_some_and(|path| !path.starts_with("crate::") && !path.starts_with("super::"))
        {
            in_reexport = !trimmed.contains(';');
            continue;
        }
        if in_reexport {
            in_reexport = !trimmed.contains(';');
            continue;
        }
        code.push_str(line);
        code.push('\n');
    }
    code
}

/// The identifier paths in `code` that start with `head` (`crate`, `super`, a module name),
/// each as its segments after `head`.
fn paths_after<'a>(code: &'a str, head: &str) -> Vec<Vec<&'a str>> {
    let mut found = Vec::new();
    let pattern = format!("{head}::");
    let mut rest = code;
    while let Some(at) = rest.find(&pattern) {
        let before = rest[..at].chars().next_back();
        let tail = &rest[at + pattern.len()..];
        rest = tail;
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let end = tail
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
            .unwrap_or(tail.len());
        let segments: Vec<&str> = tail[..end]
            .split("::")
            .filter(|segment| !segment.is_empty())
            .collect();
        found.push(segments);
    }
    found
}

fn join(parent: &str, child: &str) -> String {
    if parent.is_empty() {
        child.to_owned()
    } else {
        format!("{parent}::{child}")
    }
}

fn parent_of(module: &str) -> &str {
    module.rsplit_once("::").map_or("", |(parent, _)| parent)
}

/// The longest module named by `base` followed by `segments`.
fn deepest_module(modules: &BTreeSet<String>, base: &str, segments: &[&str]) -> Option<String> {
    (0..=segments.len()).rev().find_map(|count| {
        let candidate = segments[..count]
            .iter()
            .fold(base.to_owned(), |path, segment| join(&path, segment));
        modules.contains(&candidate).then_some(candidate)
    })
}

/// Each module of the crate under `src` and the modules it uses.
fn uses_in(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    // A program beside a library is a crate of its own, which uses the library by name.
    if src.join("lib.rs").is_file() {
        files.retain(|file| file != &src.join("main.rs"));
    }
    let texts: BTreeMap<String, String> = files
        .iter()
        .map(|file| (module_path(src, file), fs::read_to_string(file).unwrap()))
        .collect();
    let modules: BTreeSet<String> = texts.keys().cloned().collect();
    let mut graph = BTreeMap::new();
    for (module, text) in &texts {
        let code = code_of(text);
        let mut used = BTreeSet::new();
        for segments in paths_after(&code, "crate") {
            used.extend(deepest_module(&modules, "", &segments));
        }
        for segments in paths_after(&code, "super") {
            // `super::super::x` climbs twice.
            let climbs = segments.iter().take_while(|s| **s == "super").count();
            let mut base = parent_of(module);
            for _ in 0..climbs {
                base = parent_of(base);
            }
            used.extend(deepest_module(&modules, base, &segments[climbs..]));
        }
        for child in modules
            .iter()
            .filter(|m| parent_of(m) == module && *m != module)
        {
            let name = child.rsplit("::").next().unwrap();
            if !paths_after(&code, name).is_empty() {
                used.insert(child.clone());
            }
        }
        used.remove(module);
        graph.insert(module.clone(), used);
    }
    graph
}

/// The loops of `graph` (Tarjan's strongly connected components of more than one module).
fn loops(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Search<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        found: Vec<Vec<String>>,
    }
    impl<'a> Search<'a> {
        fn visit(&mut self, module: &'a str) {
            let number = self.index.len();
            self.index.insert(module, number);
            self.low.insert(module, number);
            self.stack.push(module);
            for used in &self.graph[module] {
                if !self.index.contains_key(used.as_str()) {
                    self.visit(used);
                    let low = self.low[module].min(self.low[used.as_str()]);
                    self.low.insert(module, low);
                } else if self.stack.contains(&used.as_str()) {
                    let low = self.low[module].min(self.index[used.as_str()]);
                    self.low.insert(module, low);
                }
            }
            if self.low[module] == self.index[module] {
                let at = self.stack.iter().rposition(|m| *m == module).unwrap();
                let component: Vec<String> = self.stack.drain(at..).map(str::to_owned).collect();
                if component.len() > 1 {
                    self.found.push(component);
                }
            }
        }
    }
    let mut search = Search {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for module in graph.keys() {
        if !search.index.contains_key(module.as_str()) {
            search.visit(module);
        }
    }
    search.found
}

#[test]
fn no_two_modules_use_each_other() {
    let mut found = Vec::new();
    let mut modules = 0;
    for src in source_dirs() {
        let graph = uses_in(&src);
        modules += graph.len();
        for component in loops(&graph) {
            found.push(format!("{}: {}", src.display(), component.join(" → ")));
        }
    }
    assert!(
        modules > 50,
        "only {modules} modules found: the walk missed the sources"
    );
    assert!(
        found.is_empty(),
        "modules that use each other:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_loop_finder_finds_a_loop_and_a_facade_is_no_use() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    fs::create_dir(src.join("plot")).unwrap();
    fs::write(src.join("lib.rs"), "mod a;\nmod b;\nmod plot;\n").unwrap();
    fs::write(src.join("a.rs"), "use crate::b::Thing;\n").unwrap();
    fs::write(src.join("b.rs"), "fn f() { super::a::g() }\n").unwrap();
    fs::write(
        src.join("plot/mod.rs"),
        "mod ramp;\npub use self::{\n    ramp::Ramp,\n};\npub struct Palette;\n",
    )
    .unwrap();
    fs::write(
        src.join("plot/ramp.rs"),
        "use super::Palette;\n#[cfg(test)]\nmod tests {\n    use crate::a::x;\n}\n",
    )
    .unwrap();
    let graph = uses_in(src);
    assert_eq!(graph["plot::ramp"], BTreeSet::from(["plot".to_owned()]));
    assert!(graph["plot"].is_empty(), "{graph:?}");
    let mut found = loops(&graph);
    found.iter_mut().for_each(|component| component.sort());
    assert_eq!(found, [vec!["a".to_owned(), "b".to_owned()]]);
}

/// The GUI's folders (`docs/architecture.md`) and, for each, the folders its modules never
/// use: the models know nothing of the views, the pages nothing of the frame that holds them.
const GUI_FOLDERS: [(&str, &[&str]); 7] = [
    ("words", &["pages", "widgets", "desktop", "window"]),
    ("data", &["pages", "widgets", "desktop", "window"]),
    ("widgets", &["pages", "desktop", "window"]),
    ("pages", &["desktop", "window"]),
    ("desktop", &["pages", "window"]),
    ("app", &[]),
    ("window", &[]),
];

#[test]
fn the_gui_s_folders_use_only_what_lies_below_them() {
    let src = Path::new(TOP).join("src");
    let graph = uses_in(&src);
    let folder = |module: &str| module.split("::").next().unwrap_or("").to_owned();
    let mut wrong = Vec::new();
    for (module, used) in &graph {
        let Some((_, never)) = GUI_FOLDERS.iter().find(|(name, _)| *name == folder(module)) else {
            continue;
        };
        for target in used {
            if never.contains(&folder(target).as_str()) {
                wrong.push(format!("{module} uses {target}"));
            }
        }
    }
    assert!(
        graph
            .keys()
            .filter(|m| GUI_FOLDERS.iter().any(|(f, _)| *f == folder(m)))
            .count()
            > 40,
        "the GUI's folders hold too few modules: {graph:?}"
    );
    assert!(
        wrong.is_empty(),
        "uses against the GUI's plan:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_gui_s_loose_files_are_few() {
    let loose: Vec<String> = fs::read_dir(Path::new(TOP).join("src"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .map(|path| path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(
        loose.len() <= 4,
        "src/ holds {} Rust files beside its folders (at most 4): {loose:?}",
        loose.len()
    );
    for (name, _) in GUI_FOLDERS {
        assert!(
            Path::new(TOP).join("src").join(name).is_dir(),
            "no src/{name}/"
        );
    }
}

#[test]
fn long_files_say_why_at_their_top() {
    let top = Path::new(TOP);
    let mut files = Vec::new();
    for dir in ["src", "crates", "tests", "benches", "fuzz", "build.rs"] {
        let path = top.join(dir);
        if path.is_dir() {
            rust_files(&path, &mut files);
        } else if path.is_file() {
            files.push(path);
        }
    }
    assert!(files.len() > 100, "only {} Rust files found", files.len());
    let unexplained: Vec<String> = files
        .iter()
        .filter(|file| !file.components().any(|c| c.as_os_str() == "target"))
        .filter_map(|file| {
            let text = fs::read_to_string(file).unwrap();
            let lines = text.lines().count();
            let head: String = text
                .lines()
                .skip_while(|line| line.contains("SPDX-License-Identifier"))
                .take_while(|line| line.starts_with("//!"))
                .collect::<Vec<_>>()
                .join(" ");
            let explained = head.contains("Longer than most files") || head.contains("500 lines");
            (lines > 500 && !explained).then(|| format!("{} ({lines} lines)", file.display()))
        })
        .collect();
    assert!(
        unexplained.is_empty(),
        "files over 500 lines whose first comment does not say why (\"Longer than most files: …\"):\n{}",
        unexplained.join("\n")
    );
}

#[test]
fn comments_cite_what_the_repository_holds() {
    let top = Path::new(TOP);
    let mut files = Vec::new();
    for dir in ["src", "crates", "tests", "benches", "fuzz"] {
        rust_files(&top.join(dir), &mut files);
    }
    // Names of the material beside the checkout (the shared reference, design and style
    // notes), and design notes named without the `docs/` they live in.
    let outside = ["DESIGN.md", "STYLE.md", "reference/"];
    let bare_docs = [
        "kernel.md",
        "measurement.md",
        "contracts.md",
        "power-profiles.md",
    ];
    let mut cited = Vec::new();
    for file in files
        .iter()
        .filter(|f| !f.components().any(|c| c.as_os_str() == "target"))
    {
        let text = fs::read_to_string(file).unwrap();
        for (number, line) in text.lines().enumerate() {
            let Some(at) = line.find("//") else { continue };
            let comment = &line[at..];
            let outside_named = outside.iter().any(|name| comment.contains(name));
            let bare = bare_docs.iter().any(|name| {
                comment
                    .match_indices(name)
                    .any(|(i, _)| !comment[..i].ends_with("docs/"))
            });
            if outside_named || bare {
                cited.push(format!(
                    "{}:{}: {}",
                    file.display(),
                    number + 1,
                    line.trim()
                ));
            }
        }
    }
    assert!(
        cited.is_empty(),
        "comments that cite files outside the repository (cite docs/ instead):\n{}",
        cited.join("\n")
    );
}

/// The files git knows of, tracked or new and not ignored, that exist.
fn project_files() -> Vec<PathBuf> {
    let output = std::process::Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(TOP)
        .output()
        .expect("git runs");
    assert!(output.status.success(), "git ls-files failed");
    output
        .stdout
        .split(|byte| *byte == 0)
        .filter(|name| !name.is_empty())
        .map(|name| Path::new(TOP).join(String::from_utf8_lossy(name).as_ref()))
        .filter(|path| path.is_file())
        .collect()
}

#[test]
fn nothing_reads_beside_the_checkout() {
    // The reference material that sat beside the checkout while Pacer was begun, in the
    // forms a script or a test would name it.
    // (Spelt in two halves, so that this file does not name them itself.)
    let beside = [
        concat!("..", "/shared"),
        concat!("shared", "/fixtures"),
        concat!("shared", "/reference"),
    ];
    let mut found = Vec::new();
    let files = project_files();
    assert!(files.len() > 100, "git lists {} files", files.len());
    for file in files {
        let Ok(text) = fs::read_to_string(&file) else {
            continue;
        };
        for (number, line) in text.lines().enumerate() {
            if beside.iter().any(|name| line.contains(name)) {
                found.push(format!(
                    "{}:{}: {}",
                    file.display(),
                    number + 1,
                    line.trim()
                ));
            }
        }
    }
    assert!(
        found.is_empty(),
        "read from beside the checkout:\n{}",
        found.join("\n")
    );
}

/// Whether `path` is source code that carries the project's licence line: Rust, JavaScript,
/// shell, Python and meson files, but the vendored crate's (under its own licence).
fn carries_a_licence_line(path: &Path) -> bool {
    let relative = path.strip_prefix(TOP).unwrap_or(path);
    let name = relative.to_string_lossy();
    !name.starts_with("vendor/")
        && (["rs", "js", "sh", "py"]
            .iter()
            .any(|ext| path.extension().is_some_and(|e| e == *ext))
            || name.ends_with("meson.build")
            || name == ".ci/run")
}

#[test]
fn every_source_file_names_its_licence() {
    let line = "SPDX-License-Identifier: GPL-3.0-or-later";
    let mut missing = Vec::new();
    let files: Vec<PathBuf> = project_files()
        .into_iter()
        .filter(|f| carries_a_licence_line(f))
        .collect();
    assert!(files.len() > 200, "{} source files", files.len());
    for file in files {
        let text = fs::read_to_string(&file).unwrap();
        // The first line, or the second after a `#!` line.
        if !text.lines().take(2).any(|l| l.ends_with(line)) {
            missing.push(file.display().to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "without `{line}` at the top:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_licence_is_the_same_everywhere() {
    let top = Path::new(TOP);
    let read = |name: &str| fs::read_to_string(top.join(name)).unwrap();
    let copying = read("COPYING");
    assert!(copying
        .contains("GNU GENERAL PUBLIC LICENSE\n                       Version 3, 29 June 2007"));
    assert!(read("Cargo.toml").contains("license = \"GPL-3.0-or-later\""));
    assert!(read("meson.build").contains("license: 'GPL-3.0-or-later'"));
    assert!(read("data/io.github.pacerapp.Pacer.metainfo.xml.in.in")
        .contains("<project_license>GPL-3.0-or-later</project_license>"));
}
