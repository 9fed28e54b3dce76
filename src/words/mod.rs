// SPDX-License-Identifier: GPL-3.0-or-later
//! Sentences in the user's language built from typed values, wherever they are shown: what
//! the window says in passing (`said`), a finding's cause (`why`), why the window is
//! read-only (`helper`), a profile's name and a change's time.

pub(crate) mod helper;
pub(crate) mod profile;
pub(crate) mod said;
pub(crate) mod time;
pub(crate) mod why;
