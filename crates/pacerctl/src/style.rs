// SPDX-License-Identifier: GPL-3.0-or-later
//! Terminal colour: only on a terminal, and never when NO_COLOR is set.

use std::io::IsTerminal;

#[derive(Debug, Clone, Copy)]
pub struct Style {
    colour: bool,
}

impl Style {
    pub fn for_stdout() -> Self {
        let colour = std::io::stdout().is_terminal()
            && std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty());
        Self { colour }
    }

    #[cfg(test)]
    pub fn plain() -> Self {
        Self { colour: false }
    }

    pub fn heading(&self, text: &str) -> String {
        self.paint("1", text)
    }

    pub fn dim(&self, text: &str) -> String {
        self.paint("2", text)
    }

    pub fn warning(&self, text: &str) -> String {
        self.paint("33", text)
    }

    pub fn good(&self, text: &str) -> String {
        self.paint("32", text)
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.colour {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }
}
