// SPDX-License-Identifier: GPL-3.0-or-later
//! Pacer as a program: the application, its build constants and settings, the machine it
//! shows, how it was installed, and the memory it gives back after starting.

pub mod application;
pub mod config;
pub(crate) mod install;
pub mod machine;
pub(crate) mod memory;
pub mod settings;
