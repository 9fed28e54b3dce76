// SPDX-License-Identifier: GPL-3.0-or-later
//! Sentences in the user's language built from typed values, wherever they are shown: what
//! the window says in passing (`said`), the banner's notices (`banner`), a finding in one
//! line (`finding`), a finding's cause (`why`), a setting's value in words (`setting`), why
//! the window is read-only (`helper`), why there is no history to show (`history`), what
//! holds a core type back (`limits`), a profile's name and a change's time.

pub(crate) mod banner;
pub(crate) mod finding;
pub(crate) mod helper;
pub(crate) mod history;
pub(crate) mod limits;
pub(crate) mod profile;
pub(crate) mod said;
pub(crate) mod setting;
pub(crate) mod time;
pub(crate) mod why;
