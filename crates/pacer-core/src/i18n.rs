//! Translation: every user-facing string goes through gettext in the `pacer` domain, with
//! placeholders filled after translation so translators can move them.

use std::fmt::Display;

pub use gettextrs::{gettext, ngettext};

/// The gettext domain of every Pacer binary.
pub const DOMAIN: &str = "pacer";

/// Binds the `pacer` domain to `localedir` and picks up the user's locale. A failure only
/// means untranslated text, so it is not an error.
///
/// Call it first thing in `main`, before any other thread starts: `setlocale` changes
/// process-wide state without synchronisation.
#[allow(unsafe_code)]
pub fn init(localedir: &str) {
    // SAFETY: called at the top of `main`, before any thread exists or any signal handler is
    // installed, which is the condition `setlocale` documents.
    unsafe {
        gettextrs::setlocale(gettextrs::LocaleCategory::LcAll, "");
    }
    let _ = gettextrs::bindtextdomain(DOMAIN, localedir);
    let _ = gettextrs::bind_textdomain_codeset(DOMAIN, "UTF-8");
    let _ = gettextrs::textdomain(DOMAIN);
}

/// Marks `text` for translation where it cannot be translated yet (a constant, translated
/// with `gettext` where it is shown).
pub const fn gettext_noop(text: &'static str) -> &'static str {
    text
}

/// Replaces each `{name}` in a translated template with its value.
pub fn fill(template: String, args: &[(&str, &dyn Display)]) -> String {
    args.iter().fold(template, |text, (name, value)| {
        text.replace(&format!("{{{name}}}"), &value.to_string())
    })
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
}
