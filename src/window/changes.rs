// SPDX-License-Identifier: GPL-3.0-or-later
//! What the window changes: the settings the pages, the banner and the tray ask for, through
//! the helper it finds (and its recording of changes, followed once found), and the machine
//! itself where the banner offers the simulated laptop.

use pacer_core::i18n::gettext;
use relm4::adw;
use relm4::prelude::*;

use super::{Window, WindowCmd, PROBLEM_TOAST_SECONDS};
use crate::app::machine::{Machine, OFFERED_MODEL};
use crate::data::change::{self, Change, ChangeError};
use crate::data::helper::{self, HelperLink, OwnHelper, Wanted};
use crate::data::history;
use crate::pages::cpus::CpusMsg;
use crate::pages::measure::MeasureMsg;
use crate::words::said::Said;

impl Window {
    /// Carries out `changes` in order, stopping at the first that fails.
    pub(super) fn carry_out(&self, changes: Vec<Change>, sender: &ComponentSender<Self>) {
        if changes.is_empty() {
            return;
        }
        let helper = match &self.helper {
            Some(HelperLink::Ready(proxy)) => Some(proxy.clone()),
            _ => None,
        };
        let profile = self.status.as_ref().and_then(|s| s.profile.clone());
        let all: Vec<u32> = self
            .status
            .as_ref()
            .map(|s| {
                s.snapshot
                    .policies
                    .iter()
                    .filter(|p| p.is_active())
                    .map(|p| p.id)
                    .collect()
            })
            .unwrap_or_default();
        sender.oneshot_command(async move {
            for step in &changes {
                if let Err(error) =
                    change::apply(step, helper.as_ref(), profile.as_ref(), &all).await
                {
                    let failed = step.clone();
                    return WindowCmd::Changed(changes, Err((failed, error)));
                }
            }
            WindowCmd::Changed(changes, Ok(()))
        });
    }

    /// The changes were carried out, up to the first that failed: read the state again, and
    /// say how it went.
    pub(super) fn changed(
        &self,
        changes: &[Change],
        result: Result<(), (Change, ChangeError)>,
        root: &adw::ApplicationWindow,
    ) {
        self.control.refresh();
        match result {
            Ok(()) => {
                if changes.iter().any(Change::needs_helper) || changes.len() > 1 {
                    self.toasts.add_toast(adw::Toast::new(&gettext("Done")));
                }
            }
            Err((change, error)) => {
                // A refusal stays a little longer than other news.
                self.show_toast(&error.said, PROBLEM_TOAST_SECONDS, root);
                self.pages.cpus.emit(CpusMsg::Refused(change, error));
            }
        }
    }

    pub(super) fn find_helper(&self, sender: &ComponentSender<Self>) {
        let wanted = Wanted {
            simulated: self.machine.is_simulated(),
            root: self.machine.root().to_owned(),
            model: self.machine.model().map(str::to_owned),
        };
        sender.oneshot_command(async move {
            let (link, own) = helper::find(&wanted).await;
            WindowCmd::Helper(link, own)
        });
    }

    /// The helper, found or not. Once found, its recording is followed while the window
    /// runs, so the helper records the whole session.
    pub(super) fn helper_found(
        &mut self,
        link: HelperLink,
        own: Option<OwnHelper>,
        sender: &ComponentSender<Self>,
    ) {
        self.pages.helper_found(&link);
        if let HelperLink::Ready(proxy) = &link {
            if !std::mem::replace(&mut self.following_history, true) {
                let proxy = proxy.clone();
                sender.command(move |out, shutdown| {
                    let follow = history::follow(proxy, move |event| {
                        let _ = out.send(WindowCmd::History(event));
                    });
                    shutdown.register(follow).drop_on_shutdown()
                });
            }
        }
        self.helper = Some(link);
        self._own_helper = own;
        self.show_banner();
    }

    /// Switches to the simulated laptop (offered where this computer has no cpufreq).
    pub(super) fn simulate(
        &mut self,
        sender: &ComponentSender<Self>,
        root: &adw::ApplicationWindow,
    ) {
        match Machine::choose(None, Some(OFFERED_MODEL), self.period) {
            Ok(machine) => {
                self.machine = machine;
                self.status = None;
                self.helper = None;
                self._own_helper = None;
                self.control.switch_root(self.machine.root().to_owned());
                self.pages
                    .measure
                    .emit(MeasureMsg::Root(self.machine.root().to_owned()));
                self.find_helper(sender);
            }
            Err(error) => {
                // The library's own message behind "Details", not as the words.
                let said = Said {
                    text: gettext("The simulated laptop could not be made"),
                    detail: Some(error.to_string()),
                };
                self.show_toast(&said, PROBLEM_TOAST_SECONDS, root);
            }
        }
    }
}
