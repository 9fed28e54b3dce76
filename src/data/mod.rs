// SPDX-License-Identifier: GPL-3.0-or-later
//! The window's models, with no widgets: the machine's readings as they arrive (`feed`), a
//! change the user asks for and carrying it out (`change`), what views outside the window
//! ask of it (`request`), the pacer-helper it talks to (`helper`), and the helper's
//! recording of who changed what (`history`). Pages, widgets and the
//! desktop's views read them; they read none of those.

pub(crate) mod change;
pub(crate) mod feed;
pub(crate) mod helper;
pub(crate) mod history;
pub(crate) mod request;
