// SPDX-License-Identifier: GPL-3.0-or-later
//! The view switcher in the header bar, which moves to the bottom bar on narrow windows.
//! libadwaita 1.2 does it with AdwViewSwitcherTitle, which gives way to the window's title
//! when the switcher does not fit; the gnome_48 build (libadwaita 1.4 on, where that widget
//! is deprecated) with an AdwViewSwitcher and a breakpoint, as GNOME applications do there.

use relm4::adw;
#[cfg(feature = "gnome_48")]
use relm4::gtk;

use adw::prelude::*;

/// Puts the switcher of `stack` in `header`, and has narrow windows reveal `bar` instead.
#[cfg(not(feature = "gnome_48"))]
pub(super) fn add_switchers(
    _window: &adw::ApplicationWindow,
    header: &adw::HeaderBar,
    bar: &adw::ViewSwitcherBar,
    stack: &adw::ViewStack,
) {
    let title = adw::ViewSwitcherTitle::new();
    title.set_stack(Some(stack));
    title.set_title(&pacer_core::i18n::gettext("Pacer"));
    header.set_title_widget(Some(&title));
    title
        .bind_property("title-visible", bar, "reveal")
        .sync_create()
        .build();
}

/// Below this width the switcher's four pages no longer fit beside the header's buttons.
#[cfg(feature = "gnome_48")]
const NARROW_SP: f64 = 550.0;

/// Puts the switcher of `stack` in `header`, and has narrow windows reveal `bar` instead.
#[cfg(feature = "gnome_48")]
pub(super) fn add_switchers(
    window: &adw::ApplicationWindow,
    header: &adw::HeaderBar,
    bar: &adw::ViewSwitcherBar,
    stack: &adw::ViewStack,
) {
    let switcher = adw::ViewSwitcher::builder()
        .stack(stack)
        .policy(adw::ViewSwitcherPolicy::Wide)
        .build();
    header.set_title_widget(Some(&switcher));
    // Narrow: the header shows the window's title, as AdwViewSwitcherTitle did.
    let narrow = adw::Breakpoint::new(adw::BreakpointCondition::new_length(
        adw::BreakpointConditionLengthType::MaxWidth,
        NARROW_SP,
        adw::LengthUnit::Sp,
    ));
    narrow.add_setter(
        header,
        "title-widget",
        Some(&None::<gtk::Widget>.to_value()),
    );
    narrow.add_setter(bar, "reveal", Some(&true.to_value()));
    window.add_breakpoint(narrow);
}
