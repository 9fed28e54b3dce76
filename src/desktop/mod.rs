// SPDX-License-Identifier: GPL-3.0-or-later
//! What Pacer shows outside its window: the tray item, notifications of new warnings, its
//! state on the session bus for the GNOME Shell extension (`state_bus`, showing a
//! `session_state`), and what keeps them going while the window is closed (`background`).

pub(crate) mod background;
pub(crate) mod notify;
pub(crate) mod session_state;
pub(crate) mod state_bus;
pub(crate) mod tray;
