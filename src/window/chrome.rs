// SPDX-License-Identifier: GPL-3.0-or-later
//! The window's frame: its keyboard shortcuts, pages that scroll within a readable width,
//! when to show itself, whether anyone can see it, and the log line of its first frame.

use relm4::gtk::glib;
use relm4::{adw, gtk};

use adw::prelude::*;

use super::messages::WindowMsg;

/// A page as the stack shows it: scrolling, and no wider than reads well.
pub(super) fn scrolled(page: &gtk::Widget) -> gtk::ScrolledWindow {
    let clamp = adw::Clamp::builder()
        .maximum_size(1000)
        .tightening_threshold(600)
        .child(page)
        .build();
    gtk::ScrolledWindow::builder()
        .hscrollbar_policy(gtk::PolicyType::Never)
        .vexpand(true)
        .child(&clamp)
        .build()
}

/// Alt+1, 2, 3 go to the pages (as tabs do in GNOME applications); Ctrl+M measures the
/// ramp-up (`measure`, once the Measure page shows); Ctrl+W closes the window and Ctrl+Q quits.
pub(super) fn add_shortcuts(
    root: &adw::ApplicationWindow,
    stack: &adw::ViewStack,
    measure: impl Fn() + 'static,
) {
    let controller = gtk::ShortcutController::new();
    let add = |trigger: &str, action: gtk::CallbackAction| {
        if let Some(trigger) = gtk::ShortcutTrigger::parse_string(trigger) {
            controller.add_shortcut(gtk::Shortcut::new(Some(trigger), Some(action)));
        }
    };
    for (key, page) in [
        ("1", "overview"),
        ("2", "cpus"),
        ("3", "measure"),
        ("4", "history"),
    ] {
        let stack = stack.clone();
        add(
            &format!("<Alt>{key}"),
            gtk::CallbackAction::new(move |_, _| {
                stack.set_visible_child_name(page);
                glib::Propagation::Stop
            }),
        );
    }
    let pages = stack.clone();
    add(
        "<Control>m",
        gtk::CallbackAction::new(move |_, _| {
            pages.set_visible_child_name("measure");
            measure();
            glib::Propagation::Stop
        }),
    );
    let window = root.clone();
    add(
        "<Control>w",
        gtk::CallbackAction::new(move |_, _| {
            window.close();
            glib::Propagation::Stop
        }),
    );
    add(
        "<Control>q",
        gtk::CallbackAction::new(|_, _| {
            relm4::main_application().quit();
            glib::Propagation::Stop
        }),
    );
    root.add_controller(controller);
}

/// Tells the window when to show itself (Pacer started again while it runs) and whether
/// anyone can see it, and logs its first frame.
pub(super) fn follow_the_frame(root: &adw::ApplicationWindow, input: &relm4::Sender<WindowMsg>) {
    // The first activation is this start, shown (or not) already.
    let presenter = input.clone();
    let started = std::cell::Cell::new(false);
    relm4::main_application().connect_activate(move |_| {
        if started.replace(true) {
            presenter.emit(WindowMsg::Present);
        }
    });
    let input = input.clone();
    watch_visibility(root, move |seen| input.emit(WindowMsg::Watched(seen)));
    log_first_frame(root);
}

/// Tells `seen` whether anyone can see the window: mapped, and not minimised.
fn watch_visibility(root: &adw::ApplicationWindow, seen: impl Fn(bool) + Clone + 'static) {
    let unmapped = seen.clone();
    root.connect_unmap(move |_| unmapped(false));
    let mapped = seen.clone();
    root.connect_map(move |_| mapped(true));
    root.connect_realize(move |window| {
        let Some(toplevel) = window
            .surface()
            .and_then(|surface| surface.downcast::<gtk::gdk::Toplevel>().ok())
        else {
            return;
        };
        let seen = seen.clone();
        toplevel.connect_state_notify(move |toplevel| {
            let minimised = toplevel
                .state()
                .contains(gtk::gdk::ToplevelState::MINIMIZED);
            seen(!minimised);
        });
    });
}

/// Logs how long the first frame took from the start of the program, and gives back what
/// starting up freed once it is over.
fn log_first_frame(root: &adw::ApplicationWindow) {
    root.connect_realize(|window| {
        let Some(clock) = window.frame_clock() else {
            return;
        };
        let handler = std::rc::Rc::new(std::cell::Cell::new(None));
        let handled = std::rc::Rc::clone(&handler);
        let id = clock.connect_after_paint(move |clock| {
            let elapsed = crate::STARTED
                .get()
                .map(|t| t.elapsed().as_millis())
                .unwrap_or(0);
            glib::g_debug!("pacer", "first frame drawn after {elapsed} ms");
            if let Some(id) = handled.take() {
                clock.disconnect(id);
                glib::timeout_add_local_once(
                    crate::app::memory::AFTER_FIRST_FRAME,
                    crate::app::memory::give_back_freed,
                );
            }
        });
        handler.set(Some(id));
    });
}
