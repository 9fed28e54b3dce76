// SPDX-License-Identifier: GPL-3.0-or-later
//! What the window says in passing (a toast): a sentence in the user's language, and the
//! technical detail (a bus's or a library's own message) apart, behind "Details", never as
//! the words themselves.

use pacer_dbus::client::ClientError;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Said {
    pub text: String,
    pub detail: Option<String>,
}

impl Said {
    /// Words with nothing behind them.
    pub fn plain(text: String) -> Said {
        Said { text, detail: None }
    }
}

impl From<ClientError> for Said {
    fn from(error: ClientError) -> Said {
        Said {
            text: error.to_string(),
            detail: error.detail(),
        }
    }
}
