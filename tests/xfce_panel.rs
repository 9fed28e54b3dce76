// SPDX-License-Identifier: GPL-3.0-or-later
//! Pacer's tray item in Xfce's panel (Debian's 4.18, its default layout, on Xvfb): a real
//! StatusNotifier host besides GNOME Shell's AppIndicator extension (tests/gnome_shell.rs),
//! where tests/tray.rs has a bare watcher and no host. The panel's systray plugin owns the
//! watcher and is the host; Pacer runs with `--background` on the panel's session bus and
//! display, on one simulated laptop with the real power-profiles-daemon and pacer-helper on
//! a private system bus. The test reads Pacer's item as the host does (its properties, its
//! menu's layout), then checks in screenshots that the panel draws it: something unlike the
//! panel's background appears in the panel when Pacer's item registers, and goes when Pacer
//! quits.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::path::Path;
use std::time::Duration;

use common::{screenshot_dir, wait_until, Laptop};
use pacer_testrig::xfce_panel::{Screenshot, XfcePanel};

/// The top panel's height in the default layout (`panel-1`'s size in
/// `/etc/xdg/xfce4/panel/default.xml`); the systray is in it.
const TOP_PANEL: usize = 26;
/// About half the pixels of the gauge's outline at the panel's icon size (16 pixels, about
/// 170 of them unlike the background): more than a letter of the clock's date has, which the
/// panel draws clipped while its systray is empty.
const ICON_PIXELS: usize = 80;
/// How far (the sum over R, G and B) a colour is from another to be told apart from it:
/// the panel's background and its slightly darker pager are not, an icon on it is.
const UNLIKE: u32 = 96;

fn distance(a: [u8; 3], b: [u8; 3]) -> u32 {
    a.iter().zip(b).map(|(a, b)| u32::from(a.abs_diff(b))).sum()
}

/// The panel's background: the commonest colour of the top panel in `shot`.
fn background(shot: &Screenshot) -> [u8; 3] {
    let mut counts = std::collections::HashMap::new();
    for y in 0..TOP_PANEL {
        for x in 0..shot.width {
            *counts.entry(shot.pixel(x, y)).or_insert(0_usize) += 1;
        }
    }
    counts
        .into_iter()
        .max_by_key(|&(_, count)| count)
        .map(|(colour, _)| colour)
        .unwrap()
}

/// The places of the top panel where `later` shows something that `earlier` did not and
/// that is unlike the panel's background: a drawn icon, not the pager moved aside for it.
fn drawn(earlier: &Screenshot, later: &Screenshot) -> Vec<(usize, usize)> {
    let panel = background(earlier);
    (0..TOP_PANEL)
        .flat_map(|y| (0..earlier.width).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let now = later.pixel(x, y);
            distance(now, earlier.pixel(x, y)) > UNLIKE && distance(now, panel) > UNLIKE
        })
        .collect()
}

/// The columns, as wide as the top panel is high (room for one icon), holding most of
/// `pixels`: its left edge, and how many it holds.
fn densest_icon_square(pixels: &[(usize, usize)]) -> (usize, usize) {
    let mut columns: Vec<usize> = pixels.iter().map(|&(x, _)| x).collect();
    columns.sort_unstable();
    let mut densest = (0, 0);
    let mut end = 0;
    for (start, &left) in columns.iter().enumerate() {
        while end < columns.len() && columns[end] < left + TOP_PANEL {
            end += 1;
        }
        if end - start > densest.1 {
            densest = (left, end - start);
        }
    }
    densest
}

/// A screenshot saved as `name`.png in `dir`, once two in a row are the same: the panel
/// done drawing.
fn settled_screenshot(panel: &XfcePanel, dir: &Path, name: &str) -> Screenshot {
    common::settled_screenshot(panel, &dir.join(format!("{name}.png")))
}

#[test]
#[ignore = "needs a display and Xfce's panel: build-aux/test.sh --lane gui runs it"]
fn xfce_panel_shows_the_tray_item_until_pacer_quits() {
    let laptop = Laptop::start("intel-hybrid");
    let panel = XfcePanel::start(laptop.bus.address());
    let session = panel.session();
    assert_eq!(panel.items(), Ok(Vec::new()), "no item before Pacer's");
    let without = settled_screenshot(&panel, panel.dir(), "without-pacer");

    let (mut pacer, service, path) = common::pacer_in_tray(&panel, &laptop);
    assert_eq!(panel.host_registered(), Ok(true));

    // The item as the host reads it: all its properties at once, then its menu. Pacer
    // registers its item before its first reading of the machine fills it in (an empty icon
    // and tooltip, then NewIcon and NewToolTip), as the host sees it too.
    let id = format!("'Id': <'{}'>", pacer::app::config::APP_ID);
    let shown = [
        id.as_str(),
        "'IconName': <'io.github.pacerapp.Pacer-balanced-symbolic'>",
        // The tooltip's icon name, then its title.
        "'io.github.pacerapp.Pacer-balanced-symbolic', @a(iiay) [], 'Pacer: Balanced profile'",
    ];
    let mut properties = String::new();
    wait_until(
        Duration::from_secs(20),
        "Pacer's item shows its icon and the profile",
        || {
            properties = session.call(
                &service,
                &path,
                "org.freedesktop.DBus.Properties.GetAll",
                &["org.kde.StatusNotifierItem"],
            )?;
            match shown.iter().find(|text| !properties.contains(*text)) {
                Some(missing) => Err(format!("no {missing} in {properties}")),
                None => Ok(()),
            }
        },
    );
    let menu = properties
        .split_once("'Menu': <objectpath '")
        .and_then(|(_, rest)| rest.split_once('\''))
        .map(|(menu, _)| menu)
        .unwrap_or_else(|| panic!("a Menu in {properties}"));
    let layout = session
        .call(
            &service,
            menu,
            "com.canonical.dbusmenu.GetLayout",
            &["0", "@i -1", "@as []"],
        )
        .unwrap();
    for label in [
        "Power Saver",
        "Balanced",
        "Performance",
        "Open Pacer",
        "Quit",
    ] {
        assert!(
            layout.contains(&format!("'label': <'{label}'>")),
            "{label} in {layout}"
        );
    }

    // The panel draws the item. (The clock may change meanwhile too: what it drew is told
    // apart below, by what goes again when Pacer quits.)
    let mut with = without.clone();
    wait_until(
        Duration::from_secs(20),
        "the panel draws Pacer's item",
        || {
            with = settled_screenshot(&panel, &screenshot_dir(), "xfce-panel-tray");
            let (_, count) = densest_icon_square(&drawn(&without, &with));
            (count >= ICON_PIXELS)
                .then_some(())
                .ok_or_else(|| format!("{count} pixels drawn\n{}", panel.log()))
        },
    );

    // Pacer quits: the host drops its item, and what was drawn for it goes.
    pacer.stop();
    wait_until(
        Duration::from_secs(20),
        "the watcher drops Pacer's item",
        || {
            let items = panel.items()?;
            items.is_empty().then_some(()).ok_or(format!("{items:?}"))
        },
    );
    wait_until(
        Duration::from_secs(20),
        "the panel takes Pacer's icon away",
        || {
            let after = settled_screenshot(&panel, panel.dir(), "after-pacer");
            // What the item brought and took away again: not the clock's new time, which
            // stays. One icon's width of it: not the clock's date, drawn whole with the item
            // and clipped without (a letter's pixels).
            let gone: Vec<_> = drawn(&without, &with)
                .into_iter()
                .filter(|&(x, y)| after.pixel(x, y) == without.pixel(x, y))
                .collect();
            let (left, count) = densest_icon_square(&gone);
            (count >= ICON_PIXELS).then_some(()).ok_or_else(|| {
                format!(
                    "{count} of the pixels that came and went are in one icon's width (from \
                     x = {left}), {} in all\n{}",
                    gone.len(),
                    panel.log()
                )
            })
        },
    );
}
