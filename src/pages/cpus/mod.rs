// SPDX-License-Identifier: GPL-3.0-or-later
//! The CPUs page: policies grouped by core type, each group with a governor and an EPP
//! selector offering only what the kernel offers, one action for a whole core type (or for
//! every core), and each policy on its own where wanted. The kernel's refusals are
//! explained where the control is. Each group is a factory item (`group`): a new machine
//! shape gives new items, a new reading new values.

use std::sync::Arc;

use pacer_core::i18n::{fill, gettext};
use pacer_core::status::Status;
use relm4::factory::FactoryVecDeque;
use relm4::prelude::*;
use relm4::{adw, gtk};

use adw::prelude::*;

use crate::data::change::{Change, ChangeError};
use crate::widgets::icons;

mod group;
mod view;

use group::{CoreGroup, GroupInit, GroupMsg};
use view::{epp_held_by_governor, CpusView, Shape};

#[derive(Debug)]
pub struct CpusPage {
    /// A group per core type (and one for every core), each a factory item.
    groups: FactoryVecDeque<CoreGroup>,
    /// Shown instead when the kernel offers no cpufreq policies.
    no_cpufreq: adw::StatusPage,
    view: Option<CpusView>,
    /// The shape the groups are laid out for: none until the page is first shown (its
    /// combo rows, each with a popover and a list, are memory that many never look at).
    laid_out: Option<Vec<Shape>>,
    shown: bool,
    editable: bool,
}

#[derive(Debug)]
pub enum CpusMsg {
    Status(Arc<Status>),
    /// The page is on screen (for the first time, or again).
    Shown,
    Editable(bool),
    /// A change was refused: said beside the policies' selectors.
    Refused(Change, ChangeError),
    /// From the groups' selectors.
    Chose(Change),
}

#[relm4::component(pub)]
impl SimpleComponent for CpusPage {
    type Init = ();
    type Input = CpusMsg;
    type Output = Change;

    view! {
        gtk::Box {
            set_orientation: gtk::Orientation::Vertical,
            set_spacing: 24,
            set_margin_all: 12,

            #[local_ref]
            no_cpufreq -> adw::StatusPage {
                // Its icon at 96 pixels, which Adwaita has pre-rendered (see `icons`).
                add_css_class: "compact",
                set_icon_name: Some(icons::NO_CPUFREQ),
                set_title: &gettext("No CPU frequency control"),
                set_description: Some(&gettext("This machine's kernel offers no control of CPU frequencies, so there is nothing to choose here")),
                set_visible: false,
            },
            #[local_ref]
            groups_box -> gtk::Box {
                set_orientation: gtk::Orientation::Vertical,
                set_spacing: 24,
            },
        }
    }

    fn init(_: (), root: Self::Root, sender: ComponentSender<Self>) -> ComponentParts<Self> {
        let groups = FactoryVecDeque::builder()
            .launch(gtk::Box::default())
            .forward(sender.input_sender(), CpusMsg::Chose);
        let model = CpusPage {
            groups,
            no_cpufreq: adw::StatusPage::new(),
            view: None,
            laid_out: None,
            shown: false,
            editable: false,
        };
        let no_cpufreq = &model.no_cpufreq;
        let groups_box = model.groups.widget();
        let widgets = view_output!();
        let input = sender.input_sender().clone();
        root.connect_map(move |_| input.emit(CpusMsg::Shown));
        ComponentParts { model, widgets }
    }

    fn update(&mut self, message: CpusMsg, sender: ComponentSender<Self>) {
        match message {
            CpusMsg::Status(status) => {
                let view = CpusView::of(&status.snapshot);
                if self.view.as_ref() == Some(&view) {
                    return;
                }
                self.no_cpufreq.set_visible(view.groups.is_empty());
                self.view = Some(view);
                self.lay_out();
                self.show();
            }
            CpusMsg::Shown => {
                if !self.shown {
                    self.shown = true;
                    self.lay_out();
                    self.show();
                }
            }
            CpusMsg::Editable(editable) => {
                self.editable = editable;
                self.show();
            }
            CpusMsg::Refused(change, error) => {
                if let Some(refused) = refusal(&change, &error) {
                    self.groups.broadcast(refused);
                }
            }
            CpusMsg::Chose(change) => {
                self.groups.broadcast(GroupMsg::ClearRefusal);
                let _ = sender.output(change);
            }
        }
    }
}

impl CpusPage {
    /// Makes the groups anew for the view's shape, once the page has been shown.
    fn lay_out(&mut self) {
        let Some(view) = self.view.as_ref().filter(|_| self.shown) else {
            return;
        };
        let shape = view.shape();
        if self.laid_out.as_ref() == Some(&shape) {
            return;
        }
        // New groups, laid out for the new shape; their values come from `show`.
        let mut groups = self.groups.guard();
        groups.clear();
        for group in groups_shown(view) {
            groups.push_back(group);
        }
        drop(groups);
        self.laid_out = Some(shape);
    }

    /// Moves every group's selectors to the values its policies have now.
    fn show(&self) {
        let Some(view) = self.view.as_ref().filter(|_| self.laid_out.is_some()) else {
            return;
        };
        for (index, group) in groups_shown(view).into_iter().enumerate() {
            self.groups.send(
                index,
                GroupMsg::Show {
                    all: group.all,
                    each: group.each,
                    editable: self.editable,
                },
            );
        }
    }
}

/// The groups the page shows, in order: every core (where cores differ), then each core
/// type, with its policies one by one where it has more than one.
fn groups_shown(view: &CpusView) -> Vec<GroupInit> {
    let every = view.every_core.iter().map(|every| GroupInit {
        description: gettext("One setting for all cores at once"),
        all: every.clone(),
        each: Vec::new(),
    });
    let types = view.groups.iter().map(|group| GroupInit {
        description: fill(gettext("CPUs {cpus}"), &[("cpus", &group.cpus)]),
        all: group.all.clone(),
        each: if group.each.len() > 1 {
            group.each.clone()
        } else {
            Vec::new()
        },
    });
    every.chain(types).collect()
}

/// What to say beside the selectors of the policies a refused `change` was for: one line,
/// the helper's own words and detail on hover when the line is the page's; `None` for a
/// change the page has no selector of.
fn refusal(change: &Change, error: &ChangeError) -> Option<GroupMsg> {
    let (Change::Governor { policies, .. } | Change::Epp { policies, .. }) = change else {
        return None;
    };
    let said = &error.said;
    let (message, detail) = if error.kernel_busy && matches!(change, Change::Epp { .. }) {
        (epp_held_by_governor(), Some(said.text.clone()))
    } else {
        (said.text.clone(), said.detail.clone())
    };
    Some(GroupMsg::Refused {
        policies: policies.clone(),
        message,
        detail,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]

    use pacer_core::values::{Epp, Governor};

    use super::*;
    use crate::words::said::Said;

    fn refused(change: &Change, kernel_busy: bool) -> (String, Option<String>) {
        let error = ChangeError {
            said: Said {
                text: "the kernel refused the write: busy".into(),
                detail: Some("Device or resource busy (os error 16)".into()),
            },
            kernel_busy,
        };
        match refusal(change, &error) {
            Some(GroupMsg::Refused {
                policies,
                message,
                detail,
            }) => {
                assert_eq!(policies, [0, 1]);
                (message, detail)
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_busy_kernel_s_epp_refusal_is_one_plain_line_its_words_on_hover() {
        let epp = Change::Epp {
            policies: vec![0, 1],
            epp: Epp::Power,
        };
        let (message, detail) = refused(&epp, true);
        assert_eq!(message, epp_held_by_governor());
        assert!(!message.contains("EBUSY") && !message.contains('\n'));
        assert_eq!(
            detail.as_deref(),
            Some("the kernel refused the write: busy")
        );
        // Any other refusal: the helper's line, its detail on hover.
        let governor = Change::Governor {
            policies: vec![0, 1],
            governor: Governor::performance(),
        };
        let (message, detail) = refused(&governor, false);
        assert_eq!(message, "the kernel refused the write: busy");
        assert_eq!(
            detail.as_deref(),
            Some("Device or resource busy (os error 16)")
        );
        assert!(refusal(
            &Change::Eas(true),
            &ChangeError {
                said: Said::plain(String::new()),
                kernel_busy: false,
            }
        )
        .is_none());
    }
}
