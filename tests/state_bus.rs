// SPDX-License-Identifier: GPL-3.0-or-later
//! Pacer's state on the session bus (`io.github.pacerapp.Pacer.State1`) against real parts:
//! the real power-profiles-daemon and pacer-helper on a private system bus over a simulated
//! laptop, Pacer started with `--background` on a private session bus, called with `gdbus`
//! as any client would.
//!
//! Longer than most files: one test follows every property and call through a running Pacer.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::{Command, Stdio};
use std::thread::sleep;
use std::time::Duration;

use common::{wait_until, Gui, Laptop};
use pacer_testrig::SystemBus;

const PATH: &str = "/io/github/pacerapp/Pacer";
const INTERFACE: &str = "io.github.pacerapp.Pacer.State1";

/// The State1 interface in `xml`, without comments and spaces, every element written with
/// an end tag: GDBus writes `<arg …></arg>` where `data/` has `<arg …/>`.
fn interface_of(xml: &str) -> String {
    let start = xml
        .find(&format!("<interface name=\"{INTERFACE}\">"))
        .expect("the State1 interface");
    let end = start + xml[start..].find("</interface>").unwrap();
    let mut text = xml[start..end].to_owned();
    while let (Some(open), Some(close)) = (text.find("<!--"), text.find("-->")) {
        text.replace_range(open..close + 3, "");
    }
    text.split('<')
        .filter(|tag| !tag.trim().is_empty())
        .map(|tag| {
            let tag = tag.split_whitespace().collect::<Vec<_>>().join(" ");
            match tag.strip_suffix("/>") {
                Some(open) => {
                    let name = open.split(' ').next().unwrap_or_default();
                    format!("<{}></{name}>", open.trim_end())
                }
                None => format!("<{tag}"),
            }
        })
        .collect()
}

/// Pacer in the background on `laptop`'s simulated machine and system bus, with a session
/// bus of its own, once it has exported its state there.
fn in_the_background(laptop: &Laptop) -> (SystemBus, Gui) {
    let session = SystemBus::start();
    let gui = Gui::start_on(
        &[
            "--background",
            "--simulate",
            "intel-hybrid",
            "--sysfs-root",
            laptop.root(),
        ],
        Some(laptop.bus.address()),
        Some(session.address()),
    );
    gui.wait_for_log("state exported on the session bus", Duration::from_secs(20));
    (session, gui)
}

/// State1's property `name` as `gdbus` prints it; empty when it cannot be read.
fn state_property(session: &SystemBus, name: &str) -> String {
    let get = "org.freedesktop.DBus.Properties.Get";
    session
        .call(pacer::app::config::APP_ID, PATH, get, &[INTERFACE, name])
        .unwrap_or_default()
}

#[test]
#[ignore = "needs a display: build-aux/test.sh --lane gui runs it"]
fn the_state_follows_the_machine_and_takes_calls() {
    let laptop = Laptop::start("intel-hybrid");
    let system = &laptop.bus;
    let (session, gui) = in_the_background(&laptop);
    let name = pacer::app::config::APP_ID;
    let call = |method: &str, args: &[&str]| session.call(name, PATH, method, args);
    let property = |name: &str| state_property(&session, name);

    // What `data/` installs is what Pacer serves.
    let live = session
        .command("gdbus")
        .args([
            "introspect",
            "--system",
            "--dest",
            name,
            "--object-path",
            PATH,
            "--xml",
        ])
        .output()
        .unwrap();
    let data = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/io.github.pacerapp.Pacer.State1.xml"
    ))
    .unwrap();
    assert_eq!(
        interface_of(&String::from_utf8_lossy(&live.stdout)),
        interface_of(&data)
    );

    // The daemon's state, and the machine's per core type.
    wait_until(Duration::from_secs(15), "the daemon's profile", || {
        let profile = property("Profile");
        profile.contains("'balanced'").then_some(()).ok_or(profile)
    });
    assert!(property("Profiles").contains("'performance'"));
    assert!(property("ProfileDaemon").contains("'power-profiles-daemon'"));
    let core_types = property("CoreTypes");
    assert!(
        core_types.contains("('performance', 'balance_performance', 'powersave')")
            && core_types.contains("('efficiency', 'balance_performance', 'powersave')"),
        "{core_types}"
    );
    let labels = property("CoreTypeLabels");
    assert!(
        labels.contains("('performance', 'Balanced performance', 'Power saving governor')")
            && labels.contains("('efficiency', 'Balanced performance', 'Power saving governor')"),
        "{labels}"
    );
    assert!(property("Measuring").contains("false"));

    // The frequencies are sampled for the bus only while a caller watches them, and until
    // it leaves the bus (this one without saying so).
    assert!(
        property("Frequencies").contains("@a(su) []"),
        "{}",
        property("Frequencies")
    );
    let watcher = format!(
        "const {{Gio, GLib}} = imports.gi; const bus = Gio.DBus.session; \
         bus.call_sync('{name}', '{PATH}', '{INTERFACE}', 'WatchFrequencies', \
           new GLib.Variant('(b)', [true]), null, 0, -1, null); \
         const loop = new GLib.MainLoop(null, false); let seen = ''; \
         GLib.timeout_add(0, 2500, () => {{ seen = bus.call_sync('{name}', '{PATH}', \
           'org.freedesktop.DBus.Properties', 'Get', \
           new GLib.Variant('(ss)', ['{INTERFACE}', 'Frequencies']), null, 0, -1, null) \
           .print(true); loop.quit(); return false; }}); loop.run(); print(seen);"
    );
    let watched = Command::new("gjs")
        .args(["-c", &watcher])
        .env("DBUS_SESSION_BUS_ADDRESS", session.address())
        .output()
        .unwrap();
    let seen = String::from_utf8_lossy(&watched.stdout).into_owned();
    assert!(
        seen.contains("('performance', uint32 ") && seen.contains("('efficiency', "),
        "{seen}{}",
        String::from_utf8_lossy(&watched.stderr)
    );
    gui.wait_for_log(
        "frequencies no longer followed on the session bus",
        Duration::from_secs(10),
    );

    // Every change is announced.
    let mut monitor = session
        .command("gdbus")
        .args(["monitor", "--system", "--dest", name, "--object-path", PATH])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    sleep(Duration::from_millis(500));

    // A profile the daemon does not offer is refused, named, and changes nothing.
    let refused = call(&format!("{INTERFACE}.SetProfile"), &["turbo"]).unwrap_err();
    assert!(
        refused.contains("State1.Error.UnknownProfile") && refused.contains("\"turbo\""),
        "{refused}"
    );
    assert_eq!(system.profile().unwrap(), "balanced");
    // Performance switches the real daemon.
    call(&format!("{INTERFACE}.SetProfile"), &["performance"]).unwrap();
    wait_until(
        Duration::from_secs(10),
        "the daemon switches",
        || match system.profile() {
            Ok(profile) if profile == "performance" => Ok(()),
            other => Err(format!("{other:?}")),
        },
    );
    wait_until(Duration::from_secs(10), "the property follows", || {
        let profile = property("Profile");
        profile
            .contains("'performance'")
            .then_some(())
            .ok_or(profile)
    });

    // The EPP drifts behind the daemon's back: a warning that Pacer can fix.
    let epp = laptop.file("sys/devices/system/cpu/cpufreq/policy4/energy_performance_preference");
    std::fs::write(&epp, "power\n").unwrap();
    let key = fixable_finding(&property);
    let findings = property("Findings");
    assert!(
        findings.contains("'EPP is not what Performance sets'"),
        "one line of words: {findings}"
    );
    let unknown = call(&format!("{INTERFACE}.Fix"), &["no-such-finding"]).unwrap_err();
    assert!(unknown.contains("State1.Error.UnknownFinding"), "{unknown}");
    call(&format!("{INTERFACE}.Fix"), &[&key]).unwrap();
    wait_until(Duration::from_secs(15), "the fix", || {
        let now = std::fs::read_to_string(&epp).unwrap();
        (now.trim_end() == "performance").then_some(()).ok_or(now)
    });
    wait_until(Duration::from_secs(10), "no finding left", || {
        let findings = property("Findings");
        findings
            .contains("@a(ssssb) []")
            .then_some(())
            .ok_or(findings)
    });

    // Nothing holds the cores back, until turbo boost is switched off behind Pacer's back:
    // the firmware holds each core type at its base frequency, in words.
    let limits = property("Limits");
    assert!(
        limits.contains("('performance', 'none', 'Performance cores: nothing holds them back')")
            && limits.contains("('efficiency', 'none', "),
        "{limits}"
    );
    std::fs::write(
        laptop.file("sys/devices/system/cpu/intel_pstate/no_turbo"),
        "1\n",
    )
    .unwrap();
    wait_until(Duration::from_secs(15), "the firmware holds", || {
        let limits = property("Limits");
        (limits.contains("('performance', 'firmware', 'Performance cores held at 2.1 GHz: turbo boost is off since ")
            && limits.contains("('efficiency', 'firmware', 'Efficiency cores held at 1.5 GHz: "))
            .then_some(())
            .ok_or(limits)
    });

    // A page that does not exist is refused; one that does opens the window there.
    let page = call(&format!("{INTERFACE}.ShowWindow"), &["settings"]).unwrap_err();
    assert!(page.contains("State1.Error.UnknownPage"), "{page}");
    assert!(gui.on_window(&[]).output().unwrap().stdout.is_empty());
    call(&format!("{INTERFACE}.ShowWindow"), &["cpus"]).unwrap();
    wait_until(Duration::from_secs(10), "the window opens", || {
        let windows = gui.on_window(&[]).output().unwrap().stdout;
        (!windows.is_empty()).then_some(()).ok_or_else(|| gui.log())
    });

    monitor.kill().unwrap();
    let announced =
        String::from_utf8_lossy(&monitor.wait_with_output().unwrap().stdout).into_owned();
    assert!(
        announced.contains("PropertiesChanged") && announced.contains("'Profile': <'performance'>"),
        "{announced}"
    );
    assert!(announced.contains("'Findings'"), "{announced}");
    assert!(announced.contains("'Limits'"), "{announced}");
    // The signal's own signature, (sa{sv}as): a dictionary boxed in a variant is dropped
    // by GDBusProxy (the GNOME Shell extension never saw a change while it was).
    assert!(
        announced.contains("('io.github.pacerapp.Pacer.State1', {'")
            && !announced.contains("State1', <{"),
        "{announced}"
    );
}

/// The key of the warning that Pacer can fix, once `property` shows one: the EPP drift.
fn fixable_finding(property: &dyn Fn(&str) -> String) -> String {
    let mut key = String::new();
    wait_until(Duration::from_secs(15), "the finding", || {
        let findings = property("Findings");
        match findings.split("('").nth(1) {
            Some(rest) if findings.contains("'warning'") && findings.contains("true)") => {
                key = rest.split('\'').next().unwrap_or_default().to_owned();
                Ok(())
            }
            _ => Err(findings),
        }
    });
    assert!(key.starts_with("epp-mismatch@"), "{key}");
    key
}

/// State1 asks polkit about its caller, never leaving it to the window, which acts under its
/// own name: refused the change, the caller is told so and nothing changes; allowed, the
/// change goes through. polkit's questions, read off the system bus, name the calling process
/// and let polkit ask for a password only when the call allowed that.
#[test]
#[ignore = "needs a display: build-aux/test.sh --lane gui runs it"]
fn a_change_is_carried_out_only_when_polkit_allows_the_caller() {
    let laptop = Laptop::start("intel-hybrid");
    let system = &laptop.bus;
    let (session, _gui) = in_the_background(&laptop);
    let name = pacer::app::config::APP_ID;
    let property = |name: &str| state_property(&session, name);
    wait_until(Duration::from_secs(15), "the daemon's profile", || {
        let profile = property("Profile");
        profile.contains("'balanced'").then_some(()).ok_or(profile)
    });
    let epp = laptop.file("sys/devices/system/cpu/cpufreq/policy4/energy_performance_preference");
    std::fs::write(&epp, "power\n").unwrap();
    let key = fixable_finding(&property);
    let epp_now = || std::fs::read_to_string(&epp).unwrap().trim_end().to_owned();

    let mut rule = Command::new("dbus-monitor");
    rule.args(["--address", system.address()]).arg(
        "type='method_call',interface='org.freedesktop.PolicyKit1.Authority',member='CheckAuthorization'",
    );
    let monitor =
        pacer_testrig::Service::spawn_command("polkit-questions", system.dir(), &mut rule);
    sleep(Duration::from_millis(500));
    // Another process of the session calls, as gdbus: its pid, and the answer.
    let call = |method: &str, arg: &str, interactive: bool| {
        let mut gdbus = session.command("gdbus");
        gdbus.args(["call", "--system", "--dest", name, "--object-path", PATH]);
        gdbus.args(["--method", &format!("{INTERFACE}.{method}"), arg]);
        if interactive {
            gdbus.arg("--interactive");
        }
        let child = gdbus
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let pid = child.id();
        let output = child.wait_with_output().unwrap();
        let said = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
        let answer = match output.status.success() {
            true => Ok(said(&output.stdout)),
            false => Err(said(&output.stderr)),
        };
        (pid, answer)
    };

    // polkit refuses everyone. The window is not asked: nothing reaches it.
    system.set_allowed(&[]);
    let (profile_caller, refused) = call("SetProfile", "performance", false);
    let refused = refused.unwrap_err();
    assert!(
        refused.contains("State1.Error.NotAuthorized")
            && refused.contains(&format!("process {profile_caller})"))
            && refused.contains("PowerProfiles.switch-profile"),
        "{refused}"
    );
    // The drift's fix cycles the profile: the daemon's action again.
    let (fix_caller, unfixed) = call("Fix", &key, false);
    let unfixed = unfixed.unwrap_err();
    assert!(
        unfixed.contains("State1.Error.NotAuthorized")
            && unfixed.contains(&format!("process {fix_caller})"))
            && unfixed.contains("PowerProfiles.switch-profile"),
        "{unfixed}"
    );
    sleep(Duration::from_secs(2));
    assert_eq!(system.profile().unwrap(), "balanced");
    assert_eq!(epp_now(), "power");

    // Allowed, the same calls go through.
    let mut allowed = pacer_dbus::actions::ALL.to_vec();
    allowed.extend(pacer_testrig::PPD_ACTIONS);
    system.set_allowed(&allowed);
    let (fixer, fixed) = call("Fix", &key, true);
    fixed.unwrap();
    wait_until(Duration::from_secs(15), "the fix", || {
        let now = epp_now();
        (now == "balance_performance").then_some(()).ok_or(now)
    });
    call("SetProfile", "performance", false).1.unwrap();
    wait_until(
        Duration::from_secs(10),
        "the daemon switches",
        || match system.profile() {
            Ok(profile) if profile == "performance" => Ok(()),
            other => Err(format!("{other:?}")),
        },
    );

    // Each question is about the calling process (not a bus name: the caller is on another
    // bus than polkit), with polkit's flags: 1 lets it ask for a password.
    let questions = monitor.log();
    let flags_for = |pid: u32| {
        let question = questions
            .split("method call ")
            .find(|call| {
                let pid = format!(" uint32 {pid}");
                call.lines()
                    .any(|l| l.trim().starts_with("variant") && l.ends_with(&pid))
            })
            .unwrap_or_else(|| panic!("no question about process {pid}:\n{questions}"));
        assert!(question.contains("string \"unix-process\""), "{question}");
        // The flags come last but for the (empty) cancellation id.
        let mut numbers = question
            .lines()
            .map(str::trim)
            .filter(|l| l.starts_with("uint32 "));
        numbers.next_back().unwrap_or_default().to_owned()
    };
    assert_eq!(flags_for(profile_caller), "uint32 0");
    assert_eq!(flags_for(fix_caller), "uint32 0");
    assert_eq!(flags_for(fixer), "uint32 1");
}

/// An X server of its own on a free display; its number.
fn x_server(dir: &std::path::Path) -> (pacer_testrig::Service, String) {
    let xvfb = pacer_testrig::Service::spawn_command(
        "Xvfb",
        dir,
        Command::new("Xvfb").args([
            "-displayfd",
            "1",
            "-screen",
            "0",
            "900x760x24",
            "-nolisten",
            "tcp",
        ]),
    );
    let mut display = String::new();
    wait_until(Duration::from_secs(10), "Xvfb picks a display", || {
        display = xvfb
            .log()
            .lines()
            .next()
            .unwrap_or_default()
            .trim()
            .to_owned();
        (!display.is_empty() && display.chars().all(|c| c.is_ascii_digit()))
            .then_some(())
            .ok_or_else(|| xvfb.log())
    });
    (xvfb, format!(":{display}"))
}

/// A caller of State1 starts Pacer in the background through the session service file that
/// meson installs (its template in `data/`, pointed at the built binary), and Pacer answers
/// that very call.
#[test]
#[ignore = "needs a display: build-aux/test.sh --lane gui runs it"]
fn a_call_starts_pacer_in_the_background() {
    let laptop = Laptop::start("intel-hybrid");
    let x = tempfile::tempdir().unwrap();
    let (_xvfb, display) = x_server(x.path());
    let name = pacer::app::config::APP_ID;
    let bindir = std::path::Path::new(env!("CARGO_BIN_EXE_pacer"))
        .parent()
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    let template = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/io.github.pacerapp.Pacer.service.in"
    ))
    .unwrap();
    let service = template
        .replace("@APP_ID@", name)
        .replace("@BINDIR@", &bindir);
    let session = SystemBus::start_session_with(
        |dir| {
            std::fs::write(dir.join(format!("{name}.service")), &service).unwrap();
            vec![name.to_owned()]
        },
        &[
            ("DISPLAY", &display),
            ("DBUS_SYSTEM_BUS_ADDRESS", laptop.bus.address()),
            ("PACER_SYSFS_ROOT", laptop.root()),
            ("GSETTINGS_BACKEND", "memory"),
            ("GSK_RENDERER", "cairo"),
        ],
    );
    assert!(!session.has_owner(name), "Pacer runs before it is called");
    let all = session
        .call(
            name,
            PATH,
            "org.freedesktop.DBus.Properties.GetAll",
            &[INTERFACE],
        )
        .unwrap();
    assert!(all.contains("'Measuring': <false>"), "{all}");
    assert!(session.has_owner(name));
    wait_until(Duration::from_secs(15), "the daemon's profile", || {
        let profile = session
            .call(
                name,
                PATH,
                "org.freedesktop.DBus.Properties.Get",
                &[INTERFACE, "Profile"],
            )
            .unwrap_or_default();
        let log = std::fs::read_to_string(session.dir().join("dbus-daemon.log"));
        profile
            .contains("'balanced'")
            .then_some(())
            .ok_or(format!("{profile}\n{log:?}"))
    });
    // In the background: no window until one is asked for.
    let windows = || {
        let output = Command::new("xdotool")
            .args(["search", "--onlyvisible", "--name", "^Pacer$"])
            .env("DISPLAY", &display)
            .output()
            .unwrap();
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    assert!(windows().is_empty(), "{}", windows());
    session
        .call(name, PATH, &format!("{INTERFACE}.ShowWindow"), &["measure"])
        .unwrap();
    wait_until(Duration::from_secs(10), "the window opens", || {
        (!windows().is_empty())
            .then_some(())
            .ok_or_else(String::new)
    });
}
