// SPDX-License-Identifier: GPL-3.0-or-later
//! Translation: every user-facing string goes through gettext in the `pacer` domain, with
//! placeholders filled after translation so translators can move them.

use std::fmt::Display;

pub use gettextrs::{gettext, ngettext};

/// The gettext domain of every Pacer binary.
pub const DOMAIN: &str = "pacer";

/// Where the translations are installed: meson sets it at build time (`option_env!`, so a
/// plain `cargo build` gets the usual place).
pub const LOCALEDIR: &str = match option_env!("PACER_LOCALEDIR") {
    Some(dir) => dir,
    None => "/usr/share/locale",
};

/// Binds the `pacer` domain to [`LOCALEDIR`] and picks up the user's locale. A failure only
/// means untranslated text, so it is not an error.
///
/// Call it first thing in `main`, before any other thread starts: `setlocale` changes
/// process-wide state without synchronisation.
#[allow(unsafe_code)]
pub fn init() {
    // SAFETY: called at the top of `main`, before any thread exists or any signal handler is
    // installed, which is the condition `setlocale` documents.
    unsafe {
        gettextrs::setlocale(gettextrs::LocaleCategory::LcAll, "");
    }
    let _ = gettextrs::bindtextdomain(DOMAIN, LOCALEDIR);
    let _ = gettextrs::bind_textdomain_codeset(DOMAIN, "UTF-8");
    let _ = gettextrs::textdomain(DOMAIN);
}

/// Marks `text` for translation where it cannot be translated yet (a constant, translated
/// with `gettext` where it is shown).
pub const fn gettext_noop(text: &'static str) -> &'static str {
    text
}

/// Replaces each `{name}` in a translated template with its value, in one pass over the
/// template: a value is never searched for placeholders itself (a governor or file name
/// that reads `{error}` stays as it is). A placeholder with no value is left as written.
pub fn fill(template: String, args: &[(&str, &dyn Display)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template.as_str();
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let value = after.find('}').and_then(|close| {
            let name = &after[..close];
            let (_, value) = args.iter().find(|(arg, _)| *arg == name)?;
            Some((value, close))
        });
        match value {
            Some((value, close)) => {
                out.push_str(&value.to_string());
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_named_placeholders() {
        let text = fill(
            "{file}: {error} ({file})".to_owned(),
            &[("file", &"/sys/x"), ("error", &13)],
        );
        assert_eq!(text, "/sys/x: 13 (/sys/x)");
    }

    #[test]
    fn a_value_is_never_filled_itself() {
        let text = fill(
            "{file}: {error}".to_owned(),
            &[("file", &"{error}"), ("error", &"denied")],
        );
        assert_eq!(text, "{error}: denied");
        let text = fill("{a}{b}".to_owned(), &[("a", &"{b"), ("b", &"}")]);
        assert_eq!(text, "{b}");
    }

    #[test]
    fn unknown_and_unclosed_braces_stay() {
        let args: &[(&str, &dyn Display)] = &[("n", &1)];
        assert_eq!(fill("{x} {n} {".to_owned(), args), "{x} 1 {");
        assert_eq!(fill("{{n}}".to_owned(), args), "{1}");
        assert_eq!(fill("ünï {n}ç".to_owned(), args), "ünï 1ç");
        assert_eq!(fill(String::new(), args), "");
    }
}
