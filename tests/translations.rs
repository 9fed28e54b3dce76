// SPDX-License-Identifier: GPL-3.0-or-later
//! The translations are complete and in step with the sources: `po/POTFILES.in` lists every
//! file with a translatable string, `po/pacer.pot` holds what `build-aux/update-po.sh` extracts
//! today, the extraction reads every Rust string as Rust means it, and each language of
//! `po/LINGUAS` passes `msgfmt -c`, translates everything (nothing fuzzy) and keeps every
//! `{placeholder}`.
//!
//! Needs GNU gettext (Debian package `gettext`), bash and perl; nothing is built.
//!
//! Longer than most files: it reads the PO files itself (entries, flags, placeholders) to
//! check them.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

const POT: &str = "po/pacer.pot";
const UPDATE: &str = "build-aux/update-po.sh";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &str) -> String {
    fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("cannot read {path}: {e}"))
}

/// Runs `program` in the workspace root; a missing program fails naming its Debian package.
fn run(program: &str, args: &[&str]) -> Output {
    match Command::new(program)
        .args(args)
        .current_dir(root())
        .output()
    {
        Ok(output) => output,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            let package = match program {
                "bash" | "perl" => program,
                _ => "gettext",
            };
            panic!("{program} is missing: install the Debian package {package}")
        }
        Err(error) => panic!("cannot run {program}: {error}"),
    }
}

fn output_text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The entries of a list file (`POTFILES.in`, `LINGUAS`): no comments, no blank lines.
fn list(path: &str) -> Vec<String> {
    read(path)
        .lines()
        .map(|line| line.split('#').next().unwrap_or("").trim().to_owned())
        .filter(|line| !line.is_empty())
        .collect()
}

fn potfiles() -> Vec<String> {
    list("po/POTFILES.in")
}

fn languages() -> Vec<String> {
    let languages = list("po/LINGUAS");
    assert!(!languages.is_empty(), "po/LINGUAS names no language");
    languages
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every `.rs` file under `src/` and `crates/*/src/`, relative to the root, sorted.
fn all_rust_sources() -> Vec<String> {
    let root = root();
    let mut dirs = vec![root.join("src")];
    for entry in fs::read_dir(root.join("crates")).unwrap() {
        dirs.push(entry.unwrap().path().join("src"));
    }
    let mut files = Vec::new();
    for dir in dirs {
        rust_files(&dir, &mut files);
    }
    let mut names: Vec<String> = files
        .iter()
        .map(|path| {
            path.strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

// ---------------------------------------------------------------------------------------------
// A small PO reader: enough for what gettext's own tools write.

#[derive(Debug, Default, Clone)]
struct Entry {
    context: Option<String>,
    id: String,
    plural: Option<String>,
    strs: Vec<String>,
    fuzzy: bool,
    references: Vec<String>,
}

impl Entry {
    fn key(&self) -> (Option<String>, String, Option<String>) {
        (self.context.clone(), self.id.clone(), self.plural.clone())
    }
}

fn unquote(text: &str, at: &str) -> String {
    let inner = text
        .trim()
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or_else(|| panic!("{at}: not a quoted string: {text}"));
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('"') => out.push('"'),
            Some('\\') => out.push('\\'),
            other => panic!("{at}: unexpected escape \\{other:?}"),
        }
    }
    out
}

/// The entries of a PO file or template, header included (its id is empty); obsolete `#~`
/// entries are left out.
fn parse_po(path: &str, text: &str) -> Vec<Entry> {
    enum Field {
        None,
        Context,
        Id,
        Plural,
        Str(usize),
    }
    let mut entries = Vec::new();
    let mut entry = Entry::default();
    let mut started = false;
    let mut field = Field::None;
    for (number, line) in text.lines().enumerate() {
        let at = format!("{path}:{}", number + 1);
        let line = line.trim_end();
        if line.is_empty() {
            if started {
                entries.push(std::mem::take(&mut entry));
                started = false;
            }
            field = Field::None;
            continue;
        }
        if let Some(rest) = line.strip_prefix("#,") {
            if started {
                entries.push(std::mem::take(&mut entry));
                started = false;
            }
            entry.fuzzy |= rest.split(',').any(|flag| flag.trim() == "fuzzy");
            continue;
        }
        if let Some(rest) = line.strip_prefix("#:") {
            if started {
                entries.push(std::mem::take(&mut entry));
                started = false;
            }
            entry
                .references
                .extend(rest.split_whitespace().map(str::to_owned));
            continue;
        }
        if line.starts_with('#') {
            if started {
                entries.push(std::mem::take(&mut entry));
                started = false;
            }
            continue;
        }
        let (keyword, rest) = match line.find(' ') {
            Some(space) if !line.starts_with('"') => (&line[..space], &line[space + 1..]),
            _ => ("", line),
        };
        match keyword {
            "" => {
                let value = unquote(rest, &at);
                match field {
                    Field::Context => entry.context.as_mut().unwrap().push_str(&value),
                    Field::Id => entry.id.push_str(&value),
                    Field::Plural => entry.plural.as_mut().unwrap().push_str(&value),
                    Field::Str(i) => entry.strs[i].push_str(&value),
                    Field::None => panic!("{at}: a string continues nothing"),
                }
            }
            "msgctxt" | "msgid" if started && !matches!(field, Field::Context) => {
                entries.push(std::mem::take(&mut entry));
                if keyword == "msgctxt" {
                    entry.context = Some(unquote(rest, &at));
                    field = Field::Context;
                } else {
                    entry.id = unquote(rest, &at);
                    field = Field::Id;
                }
            }
            "msgctxt" => {
                started = true;
                entry.context = Some(unquote(rest, &at));
                field = Field::Context;
            }
            "msgid" => {
                started = true;
                entry.id = unquote(rest, &at);
                field = Field::Id;
            }
            "msgid_plural" => {
                entry.plural = Some(unquote(rest, &at));
                field = Field::Plural;
            }
            _ if keyword.starts_with("msgstr") => {
                let index = match keyword.strip_prefix("msgstr[") {
                    Some(i) => i.trim_end_matches(']').parse::<usize>().unwrap(),
                    None => 0,
                };
                assert_eq!(index, entry.strs.len(), "{at}: msgstr out of order");
                entry.strs.push(unquote(rest, &at));
                field = Field::Str(index);
            }
            _ => panic!("{at}: cannot read: {line}"),
        }
    }
    if started {
        entries.push(entry);
    }
    entries
}

fn messages(path: &str, text: &str) -> Vec<Entry> {
    parse_po(path, text)
        .into_iter()
        .filter(|e| !(e.id.is_empty() && e.context.is_none()))
        .collect()
}

/// A fresh template from `build-aux/update-po.sh --pot`, made once per test run.
fn fresh_pot() -> &'static str {
    static FRESH: OnceLock<String> = OnceLock::new();
    FRESH.get_or_init(|| {
        let path = std::env::temp_dir().join(format!("pacer-{}.pot", std::process::id()));
        let output = run("bash", &[UPDATE, "--pot", path.to_str().unwrap()]);
        let text = fs::read_to_string(&path);
        let _ = fs::remove_file(&path);
        assert!(
            output.status.success(),
            "{UPDATE} --pot failed ({}):\n{}",
            output.status,
            output_text(&output)
        );
        text.unwrap()
    })
}

fn describe(key: &(Option<String>, String, Option<String>)) -> String {
    match key {
        (Some(context), id, _) => format!("  [{context}] {id:?}"),
        (None, id, _) => format!("  {id:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// A small Rust lexer: the string literals passed straight to gettext/ngettext, as Rust reads
// them, to check that the C-parser extraction read every one the same way.

fn unescape_rust(body: &str, at: &str) -> String {
    let mut out = String::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            if c == '\r' && chars.peek() == Some(&'\n') {
                continue;
            }
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('0') => out.push('\0'),
            Some('\\') => out.push('\\'),
            Some('"') => out.push('"'),
            Some('\'') => out.push('\''),
            Some('x') => {
                let hex: String = chars.by_ref().take(2).collect();
                out.push(char::from(u8::from_str_radix(&hex, 16).unwrap()));
            }
            Some('u') => {
                let hex: String = chars.by_ref().skip(1).take_while(|c| *c != '}').collect();
                out.push(char::from_u32(u32::from_str_radix(&hex, 16).unwrap()).unwrap());
            }
            Some('\n' | '\r') => {
                while chars.peek().is_some_and(|c| c.is_whitespace()) {
                    chars.next();
                }
            }
            other => panic!("{at}: unknown escape \\{other:?}"),
        }
    }
    out
}

#[derive(Debug, PartialEq)]
enum Token {
    Ident(String),
    Str(String),
    Punct(char),
}

fn lex_rust(path: &str, text: &str) -> Vec<Token> {
    let bytes: Vec<char> = text.chars().collect();
    let n = bytes.len();
    let mut tokens = Vec::new();
    let mut i = 0;
    let starts = |i: usize, s: &str| {
        s.chars()
            .enumerate()
            .all(|(k, c)| bytes.get(i + k) == Some(&c))
    };
    while i < n {
        let c = bytes[i];
        if starts(i, "//") {
            while i < n && bytes[i] != '\n' {
                i += 1;
            }
        } else if starts(i, "/*") {
            let mut depth = 0;
            while i < n {
                if starts(i, "/*") {
                    depth += 1;
                    i += 2;
                } else if starts(i, "*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == 'r' || c == 'b' {
            // A raw string (r"…", r#"…"#, br"…"), a byte string, or an identifier.
            let mut j = i + usize::from(c == 'b');
            if bytes.get(j) == Some(&'r') {
                j += 1;
                let hashes = bytes[j..].iter().take_while(|c| **c == '#').count();
                if bytes.get(j + hashes) == Some(&'"') {
                    let start = j + hashes + 1;
                    let close: String = std::iter::once('"')
                        .chain("#".repeat(hashes).chars())
                        .collect();
                    let mut k = start;
                    while !starts(k, &close) {
                        k += 1;
                        assert!(k < n, "{path}: unterminated raw string");
                    }
                    tokens.push(Token::Str(bytes[start..k].iter().collect()));
                    i = k + close.chars().count();
                    continue;
                }
            } else if c == 'b' && bytes.get(j) == Some(&'"') {
                i = j;
                continue;
            }
            let start = i;
            while i < n && (bytes[i].is_alphanumeric() || bytes[i] == '_') {
                i += 1;
            }
            tokens.push(Token::Ident(bytes[start..i].iter().collect()));
        } else if c == '"' {
            let start = i + 1;
            let mut k = start;
            while bytes[k] != '"' {
                k += if bytes[k] == '\\' { 2 } else { 1 };
                assert!(k < n, "{path}: unterminated string");
            }
            let line = bytes[..i].iter().filter(|c| **c == '\n').count() + 1;
            let body: String = bytes[start..k].iter().collect();
            tokens.push(Token::Str(unescape_rust(&body, &format!("{path}:{line}"))));
            i = k + 1;
        } else if c == '\'' {
            // A character literal, or a lifetime / label.
            if bytes.get(i + 1) == Some(&'\\') {
                let mut k = i + 3;
                while bytes[k] != '\'' {
                    k += 1;
                }
                i = k + 1;
            } else if bytes.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
            }
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < n && (bytes[i].is_alphanumeric() || bytes[i] == '_') {
                i += 1;
            }
            tokens.push(Token::Ident(bytes[start..i].iter().collect()));
        } else {
            if !c.is_whitespace() {
                tokens.push(Token::Punct(c));
            }
            i += 1;
        }
    }
    tokens
}

/// The msgids (and plural msgids) that the Rust source `text` passes to gettext/ngettext as
/// literals.
fn rust_msgids(path: &str, text: &str) -> Vec<(String, Option<String>)> {
    let tokens = lex_rust(path, text);
    let mut found = Vec::new();
    for (i, token) in tokens.iter().enumerate() {
        let Token::Ident(name) = token else { continue };
        if !matches!(name.as_str(), "gettext" | "gettext_noop" | "ngettext") {
            continue;
        }
        if tokens.get(i + 1) != Some(&Token::Punct('(')) {
            continue;
        }
        let Some(Token::Str(id)) = tokens.get(i + 2) else {
            continue;
        };
        let plural = match (name.as_str(), tokens.get(i + 3), tokens.get(i + 4)) {
            ("ngettext", Some(Token::Punct(',')), Some(Token::Str(plural))) => Some(plural.clone()),
            _ => None,
        };
        found.push((id.clone(), plural));
    }
    found
}

/// `{name}` placeholders in `text`.
fn placeholders(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close)
                if close > 0
                    && after[..close]
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                found.insert(after[..close].to_owned());
                rest = &after[close + 1..];
            }
            _ => rest = after,
        }
    }
    found
}

// ---------------------------------------------------------------------------------------------

#[test]
fn potfiles_lists_every_file_with_translatable_strings() {
    let listed: BTreeSet<String> = potfiles().into_iter().collect();
    let missing_files: Vec<&String> = listed
        .iter()
        .filter(|f| !root().join(f).is_file())
        .collect();
    assert!(
        missing_files.is_empty(),
        "po/POTFILES.in lists files that do not exist: {missing_files:?}"
    );

    let unlisted: Vec<String> = all_rust_sources()
        .into_iter()
        .filter(|file| {
            // Calls with a literal, not the functions' own definitions.
            !rust_msgids(file, &read(file)).is_empty() && !listed.contains(file)
        })
        .collect();
    assert!(
        unlisted.is_empty(),
        "these files call gettext/ngettext but po/POTFILES.in does not list them:\n  {}\n\
         Add them to po/POTFILES.in and run {UPDATE}.",
        unlisted.join("\n  ")
    );

    // Data files whose translatable text xgettext extracts (desktop entries, the settings
    // schema, metainfo, the polkit policy, GtkBuilder files).
    let translatable = [
        ".desktop",
        ".desktop.in",
        ".gschema.xml",
        ".metainfo.xml",
        ".metainfo.xml.in",
        ".policy",
        ".policy.in",
        ".ui",
    ];
    let mut unlisted_data = Vec::new();
    for dir in ["data", "resources"] {
        let Ok(entries) = fs::read_dir(root().join(dir)) else {
            continue;
        };
        for entry in entries {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            let file = format!("{dir}/{name}");
            if translatable.iter().any(|ext| name.ends_with(ext)) && !listed.contains(&file) {
                unlisted_data.push(file);
            }
        }
    }
    unlisted_data.sort();
    assert!(
        unlisted_data.is_empty(),
        "these data files have translatable text but po/POTFILES.in does not list them:\n  {}\n\
         Add them to po/POTFILES.in and run {UPDATE}.",
        unlisted_data.join("\n  ")
    );
}

#[test]
fn every_translation_passes_msgfmt_check() {
    for lang in languages() {
        let po = format!("po/{lang}.po");
        assert!(
            root().join(&po).is_file(),
            "po/LINGUAS names {lang}, but {po} is missing"
        );
        let output = run("msgfmt", &["-c", "--statistics", "-o", "/dev/null", &po]);
        assert!(
            output.status.success(),
            "msgfmt -c {po} failed:\n{}",
            output_text(&output)
        );
    }
}

#[test]
fn every_translation_is_complete() {
    for lang in languages() {
        let po = format!("po/{lang}.po");
        let entries = parse_po(&po, &read(&po));
        let header = entries
            .iter()
            .find(|e| e.id.is_empty() && e.context.is_none())
            .unwrap_or_else(|| panic!("{po} has no header"));
        let header = header.strs.first().cloned().unwrap_or_default();
        for field in [
            "Project-Id-Version: pacer".to_owned(),
            format!("Language: {lang}"),
            "Content-Type: text/plain; charset=UTF-8".to_owned(),
            "Plural-Forms: ".to_owned(),
        ] {
            assert!(header.contains(&field), "{po}: the header lacks {field:?}");
        }

        let mut untranslated = Vec::new();
        let mut fuzzy = Vec::new();
        for entry in messages(&po, &read(&po)) {
            if entry.fuzzy {
                fuzzy.push(describe(&entry.key()));
            } else if entry.strs.is_empty() || entry.strs.iter().any(String::is_empty) {
                untranslated.push(describe(&entry.key()));
            }
        }
        assert!(
            untranslated.is_empty() && fuzzy.is_empty(),
            "{po}: {} untranslated and {} fuzzy messages; translate them (after {UPDATE}):\n\
             untranslated:\n{}\nfuzzy:\n{}",
            untranslated.len(),
            fuzzy.len(),
            untranslated.join("\n"),
            fuzzy.join("\n"),
        );

        // msgfmt's own count agrees.
        let output = run("msgfmt", &["--statistics", "-o", "/dev/null", &po]);
        let stats = output_text(&output);
        assert!(
            !stats.contains("untranslated") && !stats.contains("fuzzy"),
            "{po}: msgfmt --statistics: {stats}"
        );
    }
}

#[test]
fn the_template_is_up_to_date() {
    let keys = |path: &str, text: &str| -> BTreeSet<_> {
        messages(path, text).iter().map(Entry::key).collect()
    };
    let committed = keys(POT, &read(POT));
    let fresh = keys("fresh template", fresh_pot());
    let added: Vec<String> = fresh.difference(&committed).map(describe).collect();
    let removed: Vec<String> = committed.difference(&fresh).map(describe).collect();
    assert!(
        added.is_empty() && removed.is_empty(),
        "{POT} is out of date: run {UPDATE}, then translate what it adds.\n\
         new in the sources:\n{}\ngone from the sources:\n{}",
        added.join("\n"),
        removed.join("\n"),
    );
}

/// xgettext reads the Rust sources with its C parser (after the script's rewrite): every
/// literal passed to gettext/ngettext must come out exactly as Rust reads it.
#[test]
fn the_extraction_reads_rust_strings_as_rust_does() {
    let mut expected: BTreeMap<String, Option<String>> = BTreeMap::new();
    for file in potfiles().iter().filter(|f| f.ends_with(".rs")) {
        expected.extend(rust_msgids(file, &read(file)));
    }
    let extracted: BTreeMap<String, Option<String>> = messages("fresh template", fresh_pot())
        .into_iter()
        .filter(|e| e.references.iter().any(|r| r.contains(".rs:")))
        .map(|e| (e.id, e.plural))
        .collect();
    let lost: Vec<String> = expected
        .iter()
        .filter(|(id, plural)| extracted.get(*id) != Some(plural))
        .map(|(id, _)| format!("  {id:?}"))
        .collect();
    let odd: Vec<String> = extracted
        .keys()
        .filter(|id| !expected.contains_key(*id))
        .map(|id| format!("  {id:?}"))
        .collect();
    assert!(
        lost.is_empty() && odd.is_empty(),
        "the template does not match the Rust sources ({UPDATE}'s Rust-to-C rewrite may \
         need a fix; plain \"…\" literals are safest).\nmissing or different:\n{}\n\
         extracted but not in the sources:\n{}",
        lost.join("\n"),
        odd.join("\n"),
    );
}

#[test]
fn translations_keep_every_placeholder() {
    let mut problems = Vec::new();
    for lang in languages() {
        let po = format!("po/{lang}.po");
        for entry in messages(&po, &read(&po)) {
            let mut wanted = placeholders(&entry.id);
            if let Some(plural) = &entry.plural {
                wanted.extend(placeholders(plural));
            }
            for (index, text) in entry.strs.iter().enumerate() {
                if text.is_empty() {
                    continue;
                }
                let have = placeholders(text);
                if have != wanted {
                    let lacking: Vec<_> = wanted.difference(&have).collect();
                    let extra: Vec<_> = have.difference(&wanted).collect();
                    problems.push(format!(
                        "  {po}: {:?} [msgstr {index}]: lacks {lacking:?}, adds {extra:?}",
                        entry.id
                    ));
                }
            }
        }
    }
    assert!(
        problems.is_empty(),
        "translations must keep each {{placeholder}} of their msgid, spelled the same:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_lexer_reads_rust_literals() {
    let source = r##"
        fn f<'a>(x: &'a str) -> char { let _ = '"'; let _ = '\''; gettext("it's \"q\"") }
        #[error("{}", gettext("one \
                  line"))]
        // gettext("comment")
        let _ = ngettext("{n} file", "{n} files", n);
        let _ = gettext(r#"raw "x""#);
        let _ = gettext("\u{2009}");
    "##;
    assert_eq!(
        rust_msgids("example.rs", source),
        vec![
            ("it's \"q\"".to_owned(), None),
            ("one line".to_owned(), None),
            ("{n} file".to_owned(), Some("{n} files".to_owned())),
            ("raw \"x\"".to_owned(), None),
            ("\u{2009}".to_owned(), None),
        ]
    );
    assert_eq!(
        placeholders("{a} {{b}} {c_d} {} {e f}"),
        ["a", "b", "c_d"].iter().map(|s| (*s).to_owned()).collect()
    );
}
