// SPDX-License-Identifier: GPL-3.0-or-later
//! What the pages and the window share: the plots, the banner, the messages that wait for
//! an answer, accessible names and the theme icons Pacer shows.

pub(crate) mod a11y;
pub(crate) mod alert;
pub(crate) mod banner;
pub(crate) mod icons;
pub mod plot;
