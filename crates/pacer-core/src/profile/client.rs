// SPDX-License-Identifier: GPL-3.0-or-later
//! Talking to the power-profile daemon over the system bus (zbus, on the caller's tokio
//! runtime). Every call is bounded by [`TIMEOUT`]: a missing bus, a missing daemon or a
//! daemon that does not answer becomes a [`ProfileProblem`], never a hang.

use std::fmt;
use std::future::Future;
use std::time::Duration;

use futures_util::stream::{self, BoxStream, StreamExt};
use zbus::fdo::{DBusProxy, PropertiesProxy};
use zbus::names::{BusName, InterfaceName};
use zbus::{Connection, MatchRule, MessageStream};

use crate::i18n::{fill, gettext};

use super::daemon::{state_from_properties, ProfileState};

/// The name power-profiles-daemon ≥ 0.20, tuned-ppd and tlp-pd answer on.
pub const BUS_NAME: &str = "org.freedesktop.UPower.PowerProfiles";
const PATH: &str = "/org/freedesktop/UPower/PowerProfiles";
/// The only name of power-profiles-daemon ≤ 0.13 (Debian 12 ships 0.12).
pub const LEGACY_BUS_NAME: &str = "net.hadess.PowerProfiles";
const LEGACY_PATH: &str = "/net/hadess/PowerProfiles";
const UPOWER: &str = "org.freedesktop.UPower";
const UPOWER_PATH: &str = "/org/freedesktop/UPower";

/// How long any one exchange with the bus may take.
pub const TIMEOUT: Duration = Duration::from_secs(1);

/// Why there is no profile to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProfileProblem {
    /// No system bus to connect to.
    NoBus(String),
    /// Nobody owns either profile-daemon name.
    NoDaemon,
    /// The bus or the daemon did not answer within [`TIMEOUT`].
    Timeout { what: &'static str },
    /// The daemon answered with an error.
    Failed(String),
    /// Some properties had a shape Pacer cannot read; the rest was read.
    OddProperties(Vec<String>),
}

impl fmt::Display for ProfileProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&match self {
            ProfileProblem::NoBus(error) => fill(
                gettext("cannot connect to the system bus: {error}"),
                &[("error", error)],
            ),
            ProfileProblem::NoDaemon => gettext(
                "no power-profile daemon is running (power-profiles-daemon, tuned-ppd or tlp-pd)",
            ),
            ProfileProblem::Timeout { what } => fill(
                gettext("{what} did not answer within one second"),
                &[("what", what)],
            ),
            ProfileProblem::Failed(error) => fill(
                gettext("the power-profile daemon answered with an error: {error}"),
                &[("error", error)],
            ),
            ProfileProblem::OddProperties(names) => fill(
                gettext("the power-profile daemon sent properties of an unexpected type: {names}"),
                &[("names", &names.join(", "))],
            ),
        })
    }
}

impl ProfileProblem {
    /// What went wrong, in words, and what to do: the sentence a window shows. The library's
    /// own message, where there is one, is [`ProfileProblem::detail`].
    pub fn summary(&self) -> String {
        match self {
            ProfileProblem::NoBus(_) => gettext(
                "the system bus is not reachable, so no power profile daemon can be asked; \
                 check that D-Bus runs (systemctl status dbus)",
            ),
            ProfileProblem::NoDaemon => gettext(
                "no power-profile daemon is running: install and start power-profiles-daemon, \
                 tuned-ppd or tlp-pd",
            ),
            ProfileProblem::Timeout { .. } => {
                gettext("the power-profile daemon did not answer in time; it may be busy or stuck")
            }
            ProfileProblem::Failed(_) => {
                gettext("the power-profile daemon refused to answer; its log may say why")
            }
            ProfileProblem::OddProperties(_) => {
                gettext("the power-profile daemon sent values Pacer cannot read; the rest is shown")
            }
        }
    }

    /// The technical detail behind [`ProfileProblem::summary`], for a "Details" view.
    pub fn detail(&self) -> Option<String> {
        match self {
            ProfileProblem::NoBus(error) | ProfileProblem::Failed(error) => Some(error.clone()),
            ProfileProblem::Timeout { .. } | ProfileProblem::OddProperties(_) => {
                Some(self.to_string())
            }
            ProfileProblem::NoDaemon => None,
        }
    }

    /// A short code for JSON.
    pub fn code(&self) -> &'static str {
        match self {
            ProfileProblem::NoBus(_) => "no-bus",
            ProfileProblem::NoDaemon => "no-daemon",
            ProfileProblem::Timeout { .. } => "timeout",
            ProfileProblem::Failed(_) => "failed",
            ProfileProblem::OddProperties(_) => "odd-properties",
        }
    }
}

async fn bounded<T, E: fmt::Display>(
    what: &'static str,
    call: impl Future<Output = Result<T, E>>,
) -> Result<T, ProfileProblem> {
    match tokio::time::timeout(TIMEOUT, call).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(ProfileProblem::Failed(error.to_string())),
        Err(_) => Err(ProfileProblem::Timeout { what }),
    }
}

/// Connects to the system bus (`DBUS_SYSTEM_BUS_ADDRESS` when set).
pub async fn connect() -> Result<Connection, ProfileProblem> {
    match tokio::time::timeout(TIMEOUT, Connection::system()).await {
        Ok(Ok(connection)) => Ok(connection),
        Ok(Err(error)) => Err(ProfileProblem::NoBus(error.to_string())),
        Err(_) => Err(ProfileProblem::Timeout {
            what: "the system bus",
        }),
    }
}

/// What one reading of the bus gave.
#[derive(Debug, Clone, Default)]
pub struct ProfileReading {
    pub state: Option<ProfileState>,
    pub problems: Vec<ProfileProblem>,
    /// Every name on the bus, for spotting other power managers.
    pub bus_names: Vec<String>,
}

/// Reads the profile daemon's state: who owns the name, what it says, and the power source.
pub async fn read(connection: &Connection) -> ProfileReading {
    let mut reading = ProfileReading::default();
    let dbus = match bounded("the system bus", DBusProxy::new(connection)).await {
        Ok(proxy) => proxy,
        Err(problem) => {
            reading.problems.push(problem);
            return reading;
        }
    };
    match bounded("the system bus", dbus.list_names()).await {
        Ok(names) => reading.bus_names = names.into_iter().map(|n| n.to_string()).collect(),
        Err(problem) => {
            reading.problems.push(problem);
            return reading;
        }
    }
    let has = |name: &str| reading.bus_names.iter().any(|n| n == name);
    let (name, path) = if has(BUS_NAME) {
        (BUS_NAME, PATH)
    } else if has(LEGACY_BUS_NAME) {
        (LEGACY_BUS_NAME, LEGACY_PATH)
    } else {
        reading.problems.push(ProfileProblem::NoDaemon);
        return reading;
    };
    let on_battery = if has(UPOWER) {
        read_on_battery(connection).await
    } else {
        None
    };

    let process_name = match BusName::try_from(name) {
        Ok(bus_name) => bounded(
            "the system bus",
            dbus.get_connection_unix_process_id(bus_name),
        )
        .await
        .ok()
        .and_then(|pid| std::fs::read_to_string(format!("/proc/{pid}/comm")).ok())
        .map(|comm| comm.trim_end().to_owned()),
        Err(_) => None,
    };
    let properties = match properties_of(connection, name, path).await {
        Ok(properties) => properties,
        Err(problem) => {
            reading.problems.push(problem);
            return reading;
        }
    };
    let (state, oddities) = state_from_properties(&properties, name, process_name.as_deref());
    if !oddities.0.is_empty() {
        reading
            .problems
            .push(ProfileProblem::OddProperties(oddities.0));
    }
    reading.state = state.map(|mut state| {
        state.on_battery = on_battery;
        state
    });
    reading
}

async fn properties_of(
    connection: &Connection,
    name: &'static str,
    path: &'static str,
) -> Result<super::daemon::Properties, ProfileProblem> {
    let (proxy, interface) = properties_proxy(connection, name, path).await?;
    bounded("the power-profile daemon", proxy.get_all(interface)).await
}

/// The `org.freedesktop.DBus.Properties` proxy of `name` at `path`, and `name` as the
/// interface (each daemon's interface is named like its bus name).
async fn properties_proxy(
    connection: &Connection,
    name: &'static str,
    path: &'static str,
) -> Result<(PropertiesProxy<'static>, InterfaceName<'static>), ProfileProblem> {
    let build = async {
        PropertiesProxy::builder(connection)
            .destination(name)?
            .path(path)?
            .cache_properties(zbus::proxy::CacheProperties::No)
            .build()
            .await
    };
    let proxy = bounded("the power-profile daemon", build).await?;
    let interface =
        InterfaceName::try_from(name).map_err(|e| ProfileProblem::Failed(e.to_string()))?;
    Ok((proxy, interface))
}

async fn read_on_battery(connection: &Connection) -> Option<bool> {
    let properties = properties_of(connection, UPOWER, UPOWER_PATH).await.ok()?;
    properties
        .get("OnBattery")
        .and_then(|value| bool::try_from(value).ok())
}

/// Asks the daemon to switch profile (polkit decides whether the caller may).
pub async fn set_active_profile(
    connection: &Connection,
    state: &ProfileState,
    profile: &str,
) -> Result<(), ProfileProblem> {
    let (name, path) = if state.bus_name == BUS_NAME {
        (BUS_NAME, PATH)
    } else {
        (LEGACY_BUS_NAME, LEGACY_PATH)
    };
    let (proxy, interface) = properties_proxy(connection, name, path).await?;
    let value = zbus::zvariant::Value::from(profile);
    bounded(
        "the power-profile daemon",
        proxy.set(interface, "ActiveProfile", value),
    )
    .await
}

/// A stream that yields whenever the profile daemon's state may have changed: its
/// `PropertiesChanged` (on either name), a daemon starting or stopping, or UPower's power
/// source. Subscribing is bounded by [`TIMEOUT`] like every call.
pub async fn changes(connection: &Connection) -> Result<BoxStream<'static, ()>, ProfileProblem> {
    let mut rules = Vec::new();
    for path in [PATH, LEGACY_PATH, UPOWER_PATH] {
        rules.push(
            MatchRule::builder()
                .msg_type(zbus::message::Type::Signal)
                .interface("org.freedesktop.DBus.Properties")
                .and_then(|b| b.member("PropertiesChanged"))
                .and_then(|b| b.path(path))
                .map(|b| b.build()),
        );
    }
    for name in [BUS_NAME, LEGACY_BUS_NAME] {
        rules.push(
            MatchRule::builder()
                .msg_type(zbus::message::Type::Signal)
                .sender("org.freedesktop.DBus")
                .and_then(|b| b.interface("org.freedesktop.DBus"))
                .and_then(|b| b.member("NameOwnerChanged"))
                .and_then(|b| b.arg(0, name))
                .map(|b| b.build()),
        );
    }
    let mut streams = Vec::new();
    for rule in rules {
        let rule = rule.map_err(|e| ProfileProblem::Failed(e.to_string()))?;
        let stream = bounded(
            "the system bus",
            MessageStream::for_match_rule(rule, connection, Some(64)),
        )
        .await?;
        streams.push(stream.map(|_| ()).boxed());
    }
    Ok(stream::select_all(streams).boxed())
}
