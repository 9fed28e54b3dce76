// SPDX-License-Identifier: GPL-3.0-or-later
//! Pacer's tray item in KDE Plasma's panel (Debian's plasmashell 5.27, a panel with only its
//! system tray, on Xvfb): a real StatusNotifier host besides GNOME Shell's AppIndicator
//! extension (tests/gnome_shell.rs) and Xfce's panel (tests/xfce_panel.rs). Pacer runs with
//! `--background` on the panel's session bus and display, on one simulated laptop with the
//! real power-profiles-daemon and pacer-helper on a private system bus. The test reads what
//! the host shows, through its accessibility tree: a button with Pacer's title, described by
//! the tooltip Pacer's item has; in a screenshot, Pacer's icon drawn in that button; and,
//! clicked with the right button, Pacer's menu, which the host asks Pacer for (a
//! `dbus-monitor` sees it), and whose Performance entry switches the profile. When Pacer
//! quits, its button goes.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::Command;
use std::time::{Duration, Instant};

use common::{screenshot_dir, wait_until, Laptop};
use pacer_testrig::kde_panel::{Button, KdePanel, Screenshot};
use pacer_testrig::Service;

/// Pixels of the button unlike the panel's background: Pacer's gauge at the tray's icon
/// size (22 pixels) has well over a hundred; an empty button, none.
const ICON_PIXELS: usize = 60;
/// How far (the sum over R, G and B) a colour is from another to be told apart from it.
const UNLIKE: u32 = 96;

fn distance(a: [u8; 3], b: [u8; 3]) -> u32 {
    a.iter().zip(b).map(|(a, b)| u32::from(a.abs_diff(b))).sum()
}

/// The pixels of `button` in `shot` unlike the panel's background (the commonest colour
/// of the row of pixels just below the button's top edge, across the screen).
fn drawn_in(shot: &Screenshot, button: &Button) -> usize {
    let row = usize::try_from(button.y + 1).unwrap();
    let mut counts = std::collections::HashMap::new();
    for x in 0..shot.width {
        *counts.entry(shot.pixel(x, row)).or_insert(0_usize) += 1;
    }
    let panel = counts.into_iter().max_by_key(|&(_, n)| n).unwrap().0;
    // The part of the button on screen: Plasma may lay the panel's last row just past the
    // screen's edge.
    let span = |at: i64, length: i64, limit: usize| {
        let start = usize::try_from(at).unwrap_or(0).min(limit);
        start..(start + usize::try_from(length).unwrap_or(0)).min(limit)
    };
    span(button.y, button.height, shot.height)
        .flat_map(|y| span(button.x, button.width, shot.width).map(move |x| (x, y)))
        .filter(|&(x, y)| distance(shot.pixel(x, y), panel) > UNLIKE)
        .count()
}

/// `properties`' value of `name` as gdbus prints it, up to the next property.
fn property<'a>(properties: &'a str, name: &str) -> Option<&'a str> {
    let (_, rest) = properties.split_once(&format!("'{name}': <"))?;
    Some(rest.split_once(">, '").map_or(rest, |(value, _)| value))
}

#[test]
#[ignore = "needs a display and KDE Plasma: build-aux/test.sh --lane gui runs it"]
fn kde_panel_shows_the_tray_item_its_tooltip_and_menu_until_pacer_quits() {
    let started = Instant::now();
    let laptop = Laptop::start("intel-hybrid");
    let panel = KdePanel::start(laptop.bus.address());
    let session = panel.session();
    assert_eq!(panel.items(), Ok(Vec::new()), "no item before Pacer's");
    eprintln!("Plasma's tray is up after {:?}", started.elapsed());

    // What the host asks of items' menus, from the start.
    let mut monitor = Command::new("dbus-monitor");
    monitor
        .args(["--address", session.address()])
        .arg("type='method_call',interface='com.canonical.dbusmenu'");
    let monitor = Service::spawn_command("dbus-monitor", panel.dir(), &mut monitor);

    let (mut pacer, service, path) = common::pacer_in_tray(&panel, &laptop);

    // The host shows a button for Pacer's item: its title, and its tooltip's text as Pacer's
    // item has it (read back together, until the first reading of the machine has filled
    // both in).
    let mut button = None;
    wait_until(
        Duration::from_secs(30),
        "the tray shows Pacer's item with its tooltip",
        || {
            let properties = session.call(
                &service,
                &path,
                "org.freedesktop.DBus.Properties.GetAll",
                &["org.kde.StatusNotifierItem"],
            )?;
            let title = property(&properties, "Title")
                .and_then(|title| title.strip_prefix('\'')?.strip_suffix('\''))
                .ok_or_else(|| format!("no Title in {properties}"))?;
            if !title.starts_with("Pacer: ") {
                return Err(format!("no profile yet in the title {title:?}"));
            }
            let tooltip = property(&properties, "ToolTip")
                .ok_or_else(|| format!("no ToolTip in {properties}"))?;
            let buttons = panel.buttons()?;
            let shown = buttons
                .iter()
                .find(|b| b.name == title)
                .ok_or_else(|| format!("no button {title:?} in {buttons:?}"))?;
            // gdbus quotes the tooltip's text: a newline is `\n` there.
            let text = format!("'{}'", shown.description.replace('\n', "\\n"));
            if shown.description.is_empty() || !tooltip.ends_with(&format!("{text})")) {
                return Err(format!(
                    "the button says {:?}, the item's tooltip is {tooltip}",
                    shown.description
                ));
            }
            button = Some(shown.clone());
            Ok(())
        },
    );
    let button = button.unwrap();
    assert!(
        button.width > 0 && button.height > 0,
        "the button has a place: {button:?}"
    );

    // Its icon is drawn in the button.
    let shot = panel.dir().join("tray.png");
    wait_until(
        Duration::from_secs(20),
        "the tray draws Pacer's icon",
        || {
            let count = drawn_in(&panel.screenshot(&shot), &button);
            (count >= ICON_PIXELS)
                .then_some(())
                .ok_or_else(|| format!("{count} pixels drawn in {button:?}"))
        },
    );

    // A right click: the host asks Pacer for its menu and shows it.
    let (x, y) = button.centre();
    let (x, y) = (x.to_string(), y.to_string());
    panel.xdotool(&["mousemove", &x, &y, "click", "3"]);
    let pacer_name = session
        .call(
            "org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus.GetNameOwner",
            &[service.as_str()],
        )
        .unwrap();
    let pacer_name = pacer_name.split('\'').nth(1).unwrap().to_owned();
    wait_until(
        Duration::from_secs(20),
        "the host asks Pacer's menu to show",
        || {
            let calls = monitor.log();
            calls
                .lines()
                .any(|line| {
                    line.contains(&format!("destination={pacer_name} "))
                        && line.ends_with("member=AboutToShow")
                })
                .then_some(())
                .ok_or(calls)
        },
    );
    // The menu, drawn over the panel: what the README shows.
    let menu_shot = panel.dir().join("menu.png");
    // Drawn, and settled (Plasma fades the menu in, so a first picture may catch it half
    // drawn).
    wait_until(Duration::from_secs(20), "the menu is drawn", || {
        let now = common::settled_screenshot(&panel, &menu_shot);
        let drawn = drawn_above(&now, &button);
        (drawn > 5000)
            .then_some(())
            .ok_or(format!("{drawn} pixels drawn above the panel"))
    });
    crop_around(&menu_shot, &button, &screenshot_dir().join("kde-tray.png"));

    // Its third entry, Performance (after Power Saver and Balanced), from the keyboard.
    assert_eq!(laptop.bus.profile(), Ok("balanced".to_owned()));
    panel.xdotool(&["key", "Down", "Down", "Down", "Return"]);
    wait_until(
        Duration::from_secs(20),
        "the menu's Performance switches the profile",
        || {
            let profile = laptop.bus.profile()?;
            (profile == "performance")
                .then_some(())
                .ok_or_else(|| format!("{profile}\n{}", monitor.log()))
        },
    );

    // Pacer quits: the host drops its item.
    pacer.stop();
    wait_until(
        Duration::from_secs(20),
        "the tray drops Pacer's button",
        || {
            let items = panel.items()?;
            let buttons = panel.buttons()?;
            (items.is_empty() && !buttons.iter().any(|b| b.name == button.name))
                .then_some(())
                .ok_or(format!("{items:?} {buttons:?}"))
        },
    );
    eprintln!("done after {:?}", started.elapsed());
}

/// Pixels above `button` (its column, up to 300 pixels up) unlike the screen's commonest
/// colour there: the open menu.
fn drawn_above(shot: &Screenshot, button: &Button) -> usize {
    let bottom = usize::try_from(button.y).unwrap();
    let top = bottom.saturating_sub(300);
    let left = usize::try_from(button.x).unwrap().saturating_sub(150);
    let right = (left + 300).min(shot.width);
    let corner = shot.pixel(0, top);
    (top..bottom)
        .flat_map(|y| (left..right).map(move |x| (x, y)))
        .filter(|&(x, y)| distance(shot.pixel(x, y), corner) > UNLIKE)
        .count()
}

/// Saves the part of the screenshot at `from` around `button` and the menu above it to `to`.
fn crop_around(from: &std::path::Path, button: &Button, to: &std::path::Path) {
    let (width, height) = (280_i64, 224_i64);
    let left = (button.x - 24).max(0);
    let top = (button.y + button.height + 8 - height).max(0);
    let status = Command::new("convert")
        .arg(from)
        .args([
            "-crop",
            &format!("{width}x{height}+{left}+{top}"),
            "+repage",
        ])
        .arg(to)
        .status()
        .expect("convert runs (the test command installs imagemagick)");
    assert!(status.success(), "convert -crop {}", from.display());
}
