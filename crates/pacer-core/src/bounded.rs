// SPDX-License-Identifier: GPL-3.0-or-later
//! Text from outside Pacer, kept bounded: what another process says (a profile hold's reason,
//! a writer's executable or cgroup) is its to choose, and what Pacer and its helper keep of
//! it must not grow with it.

/// The most bytes of one such text that are kept.
pub const TEXT_LIMIT: usize = 256;

/// `text` cut to [`TEXT_LIMIT`] bytes, at a character's boundary, with `…` where it was cut.
pub fn bounded_text(mut text: String) -> String {
    if text.len() > TEXT_LIMIT {
        let mut end = TEXT_LIMIT - '…'.len_utf8();
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push('…');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_is_cut_at_a_character_and_says_so() {
        assert_eq!(bounded_text("short".into()), "short");
        let cut = bounded_text("é".repeat(TEXT_LIMIT));
        assert!(cut.len() <= TEXT_LIMIT);
        assert!(cut.ends_with('…') && cut.starts_with("éé"));
        let exact = "x".repeat(TEXT_LIMIT);
        assert_eq!(bounded_text(exact.clone()), exact);
    }
}
