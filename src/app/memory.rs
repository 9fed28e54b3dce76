// SPDX-License-Identifier: GPL-3.0-or-later
//! Giving back to the system the memory that starting up used and freed.
//!
//! Building the window parses the theme, the interface and the first status, and frees most
//! of what that took; glibc's allocator keeps the freed pages, in the middle of its heap, as
//! the process's own. Trimming once startup is over returned 1.5 MB of a 50 MB window
//! (`cargo bench --bench window`), which the window would otherwise hold for its lifetime.

/// How long after the first frame startup's work is over: the first status and the first
/// samples have been shown by then.
pub const AFTER_FIRST_FRAME: std::time::Duration = std::time::Duration::from_secs(5);

/// Returns the allocator's free pages to the system.
#[cfg(target_env = "gnu")]
#[allow(unsafe_code)]
pub fn give_back_freed() {
    // SAFETY: malloc_trim takes no pointers and may be called from any thread at any time;
    // it only releases pages that hold no allocation (glibc malloc/malloc.c).
    let released = unsafe { libc::malloc_trim(0) };
    relm4::gtk::glib::g_debug!("pacer", "freed memory given back: {}", released != 0);
}

/// Other C libraries return freed memory on their own terms: nothing to do.
#[cfg(not(target_env = "gnu"))]
pub fn give_back_freed() {}
