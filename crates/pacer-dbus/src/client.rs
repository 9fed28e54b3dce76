// SPDX-License-Identifier: GPL-3.0-or-later
//! The client side of the helper, for `pacerctl` and the window alike: connecting, calls
//! bounded in time, errors as one line a user can act on, switching to a comparison's
//! setting, and measurements with progress. Everything here is async on tokio (zbus's
//! runtime), so the window runs it off its main loop the way the command line blocks on it.

use std::cell::Cell;
use std::future::Future;
use std::time::Duration;

use futures_util::StreamExt;
use pacer_core::i18n::{fill, gettext};
use pacer_core::machine::Snapshot;
use pacer_core::{SnapshotError, SysRoot};

use crate::measurement::compare::{Column, Comparison, Setting};
use crate::measurement::progress::Progress;
use crate::measurement::report::RampReport;
use crate::{ErrorKind, Helper1Proxy, HelperError, MeasureProgressStream, Problem};

/// How long a call may take: a change may wait for the user to type a password in polkit's
/// dialog.
pub const CALL_LIMIT: Duration = Duration::from_secs(120);

/// What one trial of a ramp may take at the most on top of [`CALL_LIMIT`]: it runs for 1.6 s
/// (an idle wait and 1.3 s of work), so this only catches a helper that hangs.
const TRIAL_LIMIT: Duration = Duration::from_secs(10);

/// How long the signals sent before a measurement's answer may take to arrive after it.
const LAST_SIGNALS: Duration = Duration::from_millis(100);

/// Once a comparison is cancelled, how long the step in flight may take to land, so that the
/// restore comes after it rather than racing it in the helper.
const SETTLE_LIMIT: Duration = Duration::from_secs(5);

/// Which bus the helper is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bus {
    /// Where it is installed.
    System,
    /// A helper started with `--session` (development, the simulated demo).
    Session,
}

/// What went wrong talking to the helper. `Display` is one line a user can act on; the
/// helper's own kind of refusal is in [`ClientError::helper_error`].
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// No bus to talk on (the zbus error is the source).
    #[error("{}", gettext("cannot connect to the bus"))]
    Connect(#[source] zbus::Error),
    /// The helper answered with an error, or the bus did for it (no helper installed).
    #[error("{}", explain(.0))]
    Helper(HelperError),
    /// No answer within `limit`.
    #[error("{}", timed_out(*.limit))]
    Timeout { limit: Duration },
    /// The helper's report is not a schema-1 document.
    #[error(transparent)]
    Report(serde_json::Error),
    /// The machine could not be read to find the policies a setting is for.
    #[error(transparent)]
    Machine(SnapshotError),
    /// The caller cancelled.
    #[error("{}", gettext("interrupted"))]
    Cancelled,
}

impl From<zbus::Error> for ClientError {
    fn from(error: zbus::Error) -> Self {
        ClientError::Helper(HelperError::from_call(error))
    }
}

impl ClientError {
    /// Whether there is no helper on the bus and none that can be started: the caller can
    /// only read (or measure itself).
    pub fn is_missing_helper(&self) -> bool {
        match self {
            ClientError::Helper(HelperError::ZBus(error)) => names_missing_service(error),
            _ => false,
        }
    }

    /// The technical detail behind the words of [`Display`](std::fmt::Display): the bus's or
    /// a library's own message, for a "Details" view; `None` where the words say it all.
    pub fn detail(&self) -> Option<String> {
        match self {
            ClientError::Connect(error) => Some(error.to_string()),
            ClientError::Helper(HelperError::ZBus(error)) => Some(error.to_string()),
            ClientError::Report(error) => Some(error.to_string()),
            ClientError::Machine(error) => Some(error.to_string()),
            ClientError::Helper(HelperError::Helper(_))
            | ClientError::Timeout { .. }
            | ClientError::Cancelled => None,
        }
    }

    /// The helper's refusal (NotAuthorized, Busy, …), to tell them apart.
    pub fn helper_error(&self) -> Option<&HelperError> {
        match self {
            ClientError::Helper(error) => Some(error),
            _ => None,
        }
    }
}

fn names_missing_service(error: &zbus::Error) -> bool {
    const MISSING: [&str; 2] = [
        "org.freedesktop.DBus.Error.ServiceUnknown",
        "org.freedesktop.DBus.Error.NameHasNoOwner",
    ];
    match error {
        zbus::Error::MethodError(name, _, _) => MISSING.contains(&name.as_str()),
        zbus::Error::FDO(error) => matches!(
            **error,
            zbus::fdo::Error::ServiceUnknown(_) | zbus::fdo::Error::NameHasNoOwner(_)
        ),
        _ => false,
    }
}

/// The helper's answer as one line a user can act on, in the user's language.
fn explain(error: &HelperError) -> String {
    match error {
        HelperError::ZBus(error) if names_missing_service(error) => gettext(
            "pacer-helper is not installed (see docs/INSTALL.md); Pacer can only read without it",
        ),
        // The bus's own message is the detail (ClientError::detail).
        HelperError::ZBus(_) => gettext("pacer-helper did not answer as expected"),
        HelperError::Helper(problem) => match problem.kind() {
            ErrorKind::NotAuthorized => {
                fill(gettext("not allowed: {message}"), &[("message", problem)])
            }
            ErrorKind::Busy
                if matches!(
                    problem,
                    Problem::WriteRefused { .. }
                        | Problem::EppHeldByGovernor { .. }
                        | Problem::EppSetByKernel
                ) =>
            {
                fill(
                    gettext("the kernel refuses for now: {message}"),
                    &[("message", problem)],
                )
            }
            _ => problem.to_string(),
        },
    }
}

fn timed_out(limit: Duration) -> String {
    if limit == CALL_LIMIT {
        gettext("pacer-helper did not answer within two minutes")
    } else {
        fill(
            gettext("pacer-helper did not answer within {seconds} seconds"),
            &[("seconds", &limit.as_secs())],
        )
    }
}

/// The helper on `bus`. Connecting does not start it: the first call does (D-Bus
/// activation), and fails with [`ClientError::is_missing_helper`] where it is not installed.
pub async fn connect(bus: Bus) -> Result<Helper1Proxy<'static>, ClientError> {
    let connection = match bus {
        Bus::System => zbus::Connection::system().await,
        Bus::Session => zbus::Connection::session().await,
    }
    .map_err(ClientError::Connect)?;
    Ok(Helper1Proxy::new(&connection).await?)
}

/// One call to the helper, bounded to [`CALL_LIMIT`].
pub async fn call<T>(future: impl Future<Output = zbus::Result<T>>) -> Result<T, ClientError> {
    call_within(CALL_LIMIT, future).await
}

async fn call_within<T>(
    limit: Duration,
    future: impl Future<Output = zbus::Result<T>>,
) -> Result<T, ClientError> {
    match tokio::time::timeout(limit, future).await {
        Ok(result) => Ok(result?),
        Err(_) => Err(ClientError::Timeout { limit }),
    }
}

/// Switches the machine under `root` to `setting` through the helper, in the order of
/// [`SETTING_KEYS`](crate::measurement::compare::SETTING_KEYS) (the mode first: switching
/// it resets the governors), each for every active policy (the EPP for those that have one).
pub async fn apply_setting(
    helper: &Helper1Proxy<'static>,
    root: &SysRoot,
    setting: &Setting,
) -> Result<(), ClientError> {
    // Read again for each step: a mode switch changes the policies.
    let active = || -> Result<Vec<(u32, bool)>, ClientError> {
        let snapshot = Snapshot::read(root).map_err(ClientError::Machine)?;
        Ok(snapshot
            .policies
            .iter()
            .filter(|p| p.is_active())
            .map(|p| (p.id, p.epp.is_some()))
            .collect())
    };
    let all = |policies: &[(u32, bool)]| policies.iter().map(|&(id, _)| id).collect::<Vec<_>>();
    if let Some(mode) = setting.mode {
        call(helper.set_driver_mode(&mode)).await?;
    }
    if let Some(governor) = &setting.governor {
        call(helper.set_governor(&all(&active()?), governor)).await?;
    }
    if let Some(epp) = setting.epp {
        let with_epp: Vec<u32> = active()?
            .into_iter()
            .filter(|&(_, has_epp)| has_epp)
            .map(|(id, _)| id)
            .collect();
        call(helper.set_epp(&with_epp, &epp)).await?;
    }
    if let Some(enabled) = setting.eas {
        call(helper.set_eas(enabled)).await?;
    }
    if let Some(enabled) = setting.boost {
        call(helper.set_boost(&all(&active()?), enabled)).await?;
    }
    Ok(())
}

/// The ramp on `cpus` measured by the helper (as root: at the highest priority, with
/// energy), `trials` each; `on_progress` as each trial waits, runs and ends. `None` when
/// there is no helper to ask, so the caller can measure itself.
pub async fn measure_ramp(
    helper: &Helper1Proxy<'static>,
    cpus: &[u32],
    trials: u32,
    on_progress: impl FnMut(Progress),
) -> Result<Option<RampReport>, ClientError> {
    // Without a subscription to its progress there is no helper worth asking either.
    let Ok(progress) = helper.receive_measure_progress().await else {
        return Ok(None);
    };
    match measure_with(helper, progress, cpus, trials, on_progress).await {
        Ok(report) => Ok(Some(report)),
        Err(error) if error.is_missing_helper() => Ok(None),
        Err(error) => Err(error),
    }
}

async fn measure_with(
    helper: &Helper1Proxy<'static>,
    mut progress: MeasureProgressStream,
    cpus: &[u32],
    trials: u32,
    mut on_progress: impl FnMut(Progress),
) -> Result<RampReport, ClientError> {
    let runs = u32::try_from(cpus.len())
        .unwrap_or(u32::MAX)
        .saturating_mul(trials);
    let limit = CALL_LIMIT + TRIAL_LIMIT.saturating_mul(runs);
    let measuring = call_within(limit, helper.measure_ramp(cpus, trials));
    tokio::pin!(measuring);
    let mut following = true;
    let mut take = |signal: crate::MeasureProgress| {
        if let Some(progress) = signal
            .args()
            .ok()
            .as_ref()
            .and_then(crate::measurement::progress::from_args)
        {
            on_progress(progress);
        }
    };
    let json = loop {
        tokio::select! {
            answer = &mut measuring => break answer?,
            signal = progress.next(), if following => match signal {
                Some(signal) => take(signal),
                // The stream ends with the connection: the answer says why.
                None => following = false,
            },
        }
    };
    // The last trial's end came before the answer, but the stream may hand it over after.
    while let Ok(Some(signal)) = tokio::time::timeout(LAST_SIGNALS, progress.next()).await {
        take(signal);
    }
    serde_json::from_str(&json).map_err(ClientError::Report)
}

/// The ramp on `cpus` under each of `settings` in turn, measured by the helper, with the
/// settings from before restored afterwards, whatever happened.
///
/// `on_progress(column, progress)` says how far it is: `column` indexes `settings`. To stop early, resolve `cancel` (`tokio::signal::ctrl_c()`, a oneshot
/// receiver the window's Cancel button fires): the measurement in flight is cancelled in the
/// helper, the settings are restored, and the answer is [`ClientError::Cancelled`]. Cancel
/// this way rather than by dropping the future: a dropped comparison restores nothing until
/// this connection leaves the bus (the helper then restores from its journal), which for a
/// window that stays open is too late.
pub async fn compare(
    helper: &Helper1Proxy<'static>,
    root: &SysRoot,
    settings: Vec<Setting>,
    cpus: &[u32],
    trials: u32,
    mut on_progress: impl FnMut(usize, Progress),
    cancel: impl Future<Output = ()>,
) -> Result<Comparison, ClientError> {
    let saved = Cell::new(call(helper.save_settings()).await?);
    let stop = Cell::new(false);
    let measured = measure_each(
        helper,
        root,
        settings,
        cpus,
        trials,
        &mut on_progress,
        (&stop, &saved),
    );
    tokio::pin!(measured);
    let outcome = tokio::select! {
        outcome = &mut measured => outcome,
        () = cancel => {
            stop.set(true);
            let _ = call(helper.cancel_measurement()).await;
            // The step in flight ends quickly once cancelled; the restore follows it.
            let _ = tokio::time::timeout(SETTLE_LIMIT, &mut measured).await;
            Err(ClientError::Cancelled)
        }
    };
    let restored = call(helper.restore_settings(saved.get())).await;
    let columns = outcome?;
    restored?;
    Ok(Comparison::new(columns, true))
}

async fn measure_each(
    helper: &Helper1Proxy<'static>,
    root: &SysRoot,
    settings: Vec<Setting>,
    cpus: &[u32],
    trials: u32,
    on_progress: &mut impl FnMut(usize, Progress),
    (stop, saved): (&Cell<bool>, &Cell<u32>),
) -> Result<Vec<Column>, ClientError> {
    let mut columns = Vec::new();
    for (index, setting) in settings.into_iter().enumerate() {
        if stop.get() {
            break;
        }
        // Each setting starts from the settings before the comparison: what one leaves
        // "as now" is as it was, not as the setting before it made it.
        if index > 0 {
            call(helper.restore_settings(saved.get())).await?;
            saved.set(call(helper.save_settings()).await?);
        }
        apply_setting(helper, root, &setting).await?;
        if stop.get() {
            break;
        }
        let progress = helper.receive_measure_progress().await?;
        let mut result = measure_with(helper, progress, cpus, trials, |progress| {
            on_progress(index, progress);
        })
        .await?;
        result.settings.profile = active_profile().await;
        columns.push(Column { setting, result });
    }
    Ok(columns)
}

/// The power profile in force, for the record of what a measurement ran under (bounded to
/// a second like every exchange with the profile daemon; `None` without one).
pub async fn active_profile() -> Option<String> {
    let connection = pacer_core::profile::client::connect().await.ok()?;
    pacer_core::profile::client::read(&connection)
        .await
        .state
        .map(|state| state.active)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bus_or_library_message_is_the_detail_behind_words() {
        let raw = "Failed to connect to address `unix:path=/nonexistent`";
        let no_bus = ClientError::Connect(zbus::Error::Failure(raw.into()));
        assert_eq!(no_bus.to_string(), "cannot connect to the bus");
        assert!(no_bus.detail().unwrap().contains(raw));
        let odd = ClientError::from(zbus::Error::Failure(raw.into()));
        assert!(!odd.to_string().contains("unix:path"), "{odd}");
        assert!(odd.detail().unwrap().contains(raw));
        let denied = ClientError::Helper(HelperError::Helper(Problem::NotAuthorized {
            action: "io.github.pacerapp.Pacer.set-cpu-power".into(),
        }));
        assert_eq!(denied.detail(), None);
    }

    #[test]
    fn errors_read_as_one_line_and_keep_their_kind() {
        let missing = ClientError::from(zbus::Error::FDO(Box::new(
            zbus::fdo::Error::ServiceUnknown("io.github.pacerapp.Pacer.Helper1".into()),
        )));
        assert!(missing.is_missing_helper());
        assert!(missing
            .to_string()
            .starts_with("pacer-helper is not installed"));

        let denied = ClientError::Helper(HelperError::Helper(Problem::NotAuthorized {
            action: "io.github.pacerapp.Pacer.set-cpu-power".into(),
        }));
        assert!(!denied.is_missing_helper());
        assert_eq!(
            denied.to_string(),
            "not allowed: not authorized for io.github.pacerapp.Pacer.set-cpu-power"
        );
        let busy = ClientError::Helper(HelperError::Helper(Problem::WriteRefused {
            file: "/sys/devices/system/cpu/cpufreq/policy0/energy_performance_preference".into(),
            errno: Some(16),
            value: "power".into(),
        }));
        assert_eq!(
            busy.helper_error().and_then(HelperError::kind),
            Some(ErrorKind::Busy)
        );
        assert!(busy
            .to_string()
            .starts_with("the kernel refuses for now: /sys/devices/system/cpu/cpufreq/policy0/"));
        let failed = ClientError::Helper(HelperError::Helper(Problem::Other {
            kind: "Failed".into(),
            text: "scaling_governor: EIO".into(),
        }));
        assert_eq!(failed.to_string(), "scaling_governor: EIO");

        assert_eq!(
            ClientError::Timeout { limit: CALL_LIMIT }.to_string(),
            "pacer-helper did not answer within two minutes"
        );
        let long = ClientError::Timeout {
            limit: Duration::from_secs(180),
        };
        assert_eq!(
            long.to_string(),
            "pacer-helper did not answer within 180 seconds"
        );
        assert!(long.helper_error().is_none());
        assert_eq!(ClientError::Cancelled.to_string(), "interrupted");
    }

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn a_call_that_never_answers_times_out() {
        let never = std::future::pending::<zbus::Result<()>>();
        let answer = call(never).await;
        assert!(matches!(answer, Err(ClientError::Timeout { limit }) if limit == CALL_LIMIT));
    }
}
