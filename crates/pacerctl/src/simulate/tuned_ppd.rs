// SPDX-License-Identifier: GPL-3.0-or-later
//! `pacerctl simulate daemon tuned-ppd`: TuneD's power-profiles-daemon API on the bus, as
//! `tuned-ppd.py` and `tuned/ppd/controller.py` (TuneD 2.28.0-rc.1) serve it
//! (`docs/power-profiles.md` 4.1), over a simulated machine instead of TuneD.
//!
//! tuned-ppd answers `org.freedesktop.DBus.Properties` itself
//! (`tuned/exports/dbus_exporter_with_properties.py`), with its own errors for an unknown
//! profile or property; zbus's object server would answer those with its own names, so the
//! calls are dispatched here, one at a time, on a plain zbus connection.

mod state;
mod tuned;

use std::collections::HashMap;
use std::time::Duration;

use anyhow::Context;
use futures_util::StreamExt;
use pacer_core::i18n::{fill, gettext};
use pacer_core::sim::SimDir;
use zbus::fdo::RequestNameFlags;
use zbus::message::{Header, Type};
use zbus::names::BusName;
use zbus::zvariant::{OwnedValue, Value};
use zbus::{Connection, MatchRule, Message, MessageStream};

use state::{Controller, Event, Refusal, DBUS_EXCEPTION};
use tuned::PpdProfile;

/// `PPD_DBUS_NAMES` (`tuned/consts.py`): each bus name's object path and interface.
const OBJECTS: [(&str, &str); 2] = [
    (
        "org.freedesktop.UPower.PowerProfiles",
        "/org/freedesktop/UPower/PowerProfiles",
    ),
    ("net.hadess.PowerProfiles", "/net/hadess/PowerProfiles"),
];

/// `PPD_API_COMPATIBILITY`: the ppd API version it speaks, not TuneD's.
const VERSION: &str = "0.23";

const PROPERTIES: &str = "org.freedesktop.DBus.Properties";
const INTROSPECTABLE: &str = "org.freedesktop.DBus.Introspectable";
const PROPERTY_NAMES: [&str; 6] = [
    "ActiveProfile",
    "Profiles",
    "Actions",
    "PerformanceDegraded",
    "ActiveProfileHolds",
    "Version",
];

/// tuned-ppd re-reads `no_turbo` and the lap mode when inotify says they changed; the
/// simulation looks this often instead.
const DEGRADED_POLL: Duration = Duration::from_secs(1);

/// Serves until interrupted.
pub async fn serve(dir: SimDir, session: bool) -> anyhow::Result<()> {
    let root = dir.root().to_owned();
    let mut controller = Controller::new(dir);
    if let Err(error) = controller.apply_base() {
        eprintln!("tuned-ppd: {error}");
    }
    let connection = if session {
        Connection::session().await
    } else {
        Connection::system().await
    }
    .with_context(|| gettext("cannot connect to the bus"))?;
    // Every message from here on, before any name is ours: no call is missed.
    let mut messages = MessageStream::from(&connection);
    // A holder that leaves the bus loses its holds (`watch_name_owner()`).
    zbus::fdo::DBusProxy::new(&connection)
        .await?
        .add_match_rule(
            MatchRule::builder()
                .msg_type(Type::Signal)
                .sender("org.freedesktop.DBus")?
                .interface("org.freedesktop.DBus")?
                .member("NameOwnerChanged")?
                .build(),
        )
        .await?;
    for (name, _) in OBJECTS {
        connection
            .request_name_with_flags(name, RequestNameFlags::DoNotQueue.into())
            .await
            .with_context(|| fill(gettext("cannot own {name} on the bus"), &[("name", &name)]))?;
    }
    eprintln!(
        "{}",
        fill(
            gettext("simulated tuned-ppd serving the machine in {dir}; Ctrl+C stops"),
            &[("dir", &root.display())],
        )
    );
    let mut poll = tokio::time::interval(DEGRADED_POLL);
    loop {
        let mut events = Vec::new();
        tokio::select! {
            _ = tokio::signal::ctrl_c() => return Ok(()),
            _ = poll.tick() => controller.check_performance_degraded(&mut events),
            message = messages.next() => {
                let Some(message) = message else { return Ok(()) };
                handle(&connection, &mut controller, &message?, &mut events).await?;
            }
        }
        emit(&connection, &controller, &events).await?;
    }
}

/// Answers one message: a method call on either object, or a caller leaving the bus.
async fn handle(
    connection: &Connection,
    controller: &mut Controller,
    message: &Message,
    events: &mut Vec<Event>,
) -> zbus::Result<()> {
    let header = message.header();
    let member = header.member().map(|m| m.as_str()).unwrap_or_default();
    match header.message_type() {
        Type::Signal if member == "NameOwnerChanged" => {
            if let Ok((name, _, new_owner)) =
                message.body().deserialize::<(String, String, String)>()
            {
                if new_owner.is_empty() {
                    controller.caller_left(&name, events);
                }
            }
            return Ok(());
        }
        Type::MethodCall => {}
        _ => return Ok(()),
    }
    let path = header.path().map(|p| p.as_str()).unwrap_or_default();
    let Some((interface, _)) = OBJECTS.into_iter().find(|(_, at)| *at == path) else {
        return error(
            connection,
            &header,
            "org.freedesktop.DBus.Error.UnknownObject",
            &format!("No such object path '{path}'"),
        )
        .await;
    };
    let called = header.interface().map(|i| i.as_str());
    let caller = header.sender().map(|s| s.to_string()).unwrap_or_default();
    let answer = match (called, member) {
        (Some(PROPERTIES), "Get") => args(message).map(|(name, property): (String, String)| {
            check_interface(interface, &name)
                .and_then(|()| property_value(controller, &property))
                .map(Reply::Value)
        }),
        (Some(PROPERTIES), "GetAll") => args(message).map(|(name,): (String,)| {
            check_interface(interface, &name).map(|()| Reply::All(all_properties(controller)))
        }),
        (Some(PROPERTIES), "Set") => {
            args(message).map(|(name, property, value): (String, String, OwnedValue)| {
                check_interface(interface, &name)
                    .and_then(|()| set_property(controller, &property, &value, events))
                    .map(|()| Reply::Empty)
            })
        }
        (Some(INTROSPECTABLE), "Introspect") => Ok(Ok(Reply::Xml(introspection(interface)))),
        (None, "HoldProfile") | (Some(_), "HoldProfile")
            if called.is_none_or(|c| c == interface) =>
        {
            args(message).map(|(profile, reason, app_id): (String, String, String)| {
                controller
                    .hold(&profile, reason, app_id, caller, events)
                    .map(Reply::Cookie)
            })
        }
        (None, "ReleaseProfile") | (Some(_), "ReleaseProfile")
            if called.is_none_or(|c| c == interface) =>
        {
            args(message).map(|(cookie,): (u32,)| {
                controller
                    .release(cookie, &caller, events)
                    .map(|()| Reply::Empty)
            })
        }
        _ => {
            return error(
                connection,
                &header,
                "org.freedesktop.DBus.Error.UnknownMethod",
                &format!("Unknown method {member} on {}", called.unwrap_or(interface)),
            )
            .await
        }
    };
    match answer {
        Err(bad) => {
            error(
                connection,
                &header,
                "org.freedesktop.DBus.Error.InvalidArgs",
                &bad.to_string(),
            )
            .await
        }
        Ok(Err(Refusal(message))) => error(connection, &header, DBUS_EXCEPTION, &message).await,
        Ok(Ok(reply)) => reply.send(connection, &header).await,
    }
}

/// What a call returns.
enum Reply {
    Empty,
    Value(Value<'static>),
    All(HashMap<&'static str, Value<'static>>),
    Cookie(u32),
    Xml(String),
}

impl Reply {
    async fn send(self, connection: &Connection, header: &Header<'_>) -> zbus::Result<()> {
        match self {
            Reply::Empty => connection.reply(header, &()).await,
            Reply::Value(value) => connection.reply(header, &value).await,
            Reply::All(values) => connection.reply(header, &values).await,
            Reply::Cookie(cookie) => connection.reply(header, &cookie).await,
            Reply::Xml(xml) => connection.reply(header, &xml).await,
        }
    }
}

fn args<T>(message: &Message) -> zbus::Result<T>
where
    T: serde::de::DeserializeOwned + zbus::zvariant::Type,
{
    message.body().deserialize()
}

async fn error(
    connection: &Connection,
    header: &Header<'_>,
    name: &str,
    message: &str,
) -> zbus::Result<()> {
    connection.reply_error(header, name, &message).await
}

/// Each object answers for its own interface only.
fn check_interface(interface: &str, asked: &str) -> Result<(), Refusal> {
    if asked == interface {
        Ok(())
    } else {
        Err(Refusal(format!("Unknown interface: {asked}")))
    }
}

fn property_value(controller: &Controller, property: &str) -> Result<Value<'static>, Refusal> {
    let value = match property {
        "ActiveProfile" => Value::from(controller.active_profile()),
        // `get_profiles()`: the driver is always `tuned`; no CpuDriver or PlatformDriver.
        "Profiles" => Value::from(
            PpdProfile::ALL
                .iter()
                .map(|profile| {
                    HashMap::from([
                        ("Profile", Value::from(profile.name())),
                        ("Driver", Value::from("tuned")),
                    ])
                })
                .collect::<Vec<_>>(),
        ),
        "Actions" => Value::from(Vec::<&str>::new()),
        "PerformanceDegraded" => Value::from(controller.performance_degraded()),
        "ActiveProfileHolds" => Value::from(
            controller
                .holds()
                .map(|hold| {
                    HashMap::from([
                        ("Profile", Value::from(hold.profile.name())),
                        ("Reason", Value::from(hold.reason.clone())),
                        ("ApplicationId", Value::from(hold.app_id.clone())),
                    ])
                })
                .collect::<Vec<_>>(),
        ),
        "Version" => Value::from(VERSION),
        _ => return Err(Refusal(format!("No such property: {property}"))),
    };
    Ok(value)
}

fn all_properties(controller: &Controller) -> HashMap<&'static str, Value<'static>> {
    PROPERTY_NAMES
        .into_iter()
        .filter_map(|name| Some((name, property_value(controller, name).ok()?)))
        .collect()
}

/// Only `ActiveProfile` has a setter; tuned-ppd names any other property unknown.
fn set_property(
    controller: &mut Controller,
    property: &str,
    value: &OwnedValue,
    events: &mut Vec<Event>,
) -> Result<(), Refusal> {
    if property != "ActiveProfile" {
        return Err(Refusal(format!("No such property: {property}")));
    }
    let profile = match &**value {
        Value::Str(profile) => profile.as_str().to_owned(),
        other => other.to_string(),
    };
    controller.set_active_profile(&profile, events)
}

/// Sends what `events` owe, from both objects: tuned-ppd's exporters each send every
/// signal for their interface.
async fn emit(
    connection: &Connection,
    controller: &Controller,
    events: &[Event],
) -> zbus::Result<()> {
    for event in events {
        for (interface, path) in OBJECTS {
            match *event {
                Event::Changed(property) => {
                    let Ok(value) = property_value(controller, property) else {
                        continue;
                    };
                    let changed = HashMap::from([(property, value)]);
                    connection
                        .emit_signal(
                            None::<BusName<'_>>,
                            path,
                            PROPERTIES,
                            "PropertiesChanged",
                            &(interface, changed, Vec::<&str>::new()),
                        )
                        .await?;
                }
                Event::Released(cookie) => {
                    connection
                        .emit_signal(
                            None::<BusName<'_>>,
                            path,
                            interface,
                            "ProfileReleased",
                            &(cookie,),
                        )
                        .await?;
                }
            }
        }
    }
    Ok(())
}

/// The interface as tuned-ppd exports it (its methods, signal and properties).
fn introspection(interface: &str) -> String {
    format!(
        r#"<!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
<node>
  <interface name="{INTROSPECTABLE}">
    <method name="Introspect"><arg direction="out" type="s"/></method>
  </interface>
  <interface name="{PROPERTIES}">
    <method name="Get"><arg direction="in" type="s"/><arg direction="in" type="s"/><arg direction="out" type="v"/></method>
    <method name="Set"><arg direction="in" type="s"/><arg direction="in" type="s"/><arg direction="in" type="v"/></method>
    <method name="GetAll"><arg direction="in" type="s"/><arg direction="out" type="a{{sv}}"/></method>
    <signal name="PropertiesChanged"><arg type="s"/><arg type="a{{sv}}"/><arg type="as"/></signal>
  </interface>
  <interface name="{interface}">
    <method name="HoldProfile"><arg direction="in" type="s"/><arg direction="in" type="s"/><arg direction="in" type="s"/><arg direction="out" type="u"/></method>
    <method name="ReleaseProfile"><arg direction="in" type="u"/></method>
    <signal name="ProfileReleased"><arg type="u"/></signal>
    <property name="ActiveProfile" type="s" access="readwrite"/>
    <property name="Profiles" type="aa{{sv}}" access="read"/>
    <property name="Actions" type="as" access="read"/>
    <property name="PerformanceDegraded" type="s" access="read"/>
    <property name="ActiveProfileHolds" type="aa{{sv}}" access="read"/>
    <property name="Version" type="s" access="read"/>
  </interface>
</node>
"#
    )
}
