// SPDX-License-Identifier: GPL-3.0-or-later
//! "Why not faster?": a row per core type saying what holds it back (`docs/kernel.md` 8),
//! each a factory item (`row`) with the chain drawn as a bar (`bar`) and its details in a
//! dialog (`details`). A new set of core types gives new rows, a new reading new values.

use pacer_core::i18n::gettext;
use pacer_core::limits::CoreLimits;
use pacer_core::values::CoreType;
use relm4::factory::FactoryVecDeque;
use relm4::prelude::*;
use relm4::{adw, gtk};

use adw::prelude::*;

mod bar;
mod details;
mod row;

use row::{LimitRow, LimitRowMsg};

#[derive(Debug)]
pub struct WhyNotFaster {
    rows: FactoryVecDeque<LimitRow>,
    /// The core types the rows are for, in order.
    core_types: Vec<Option<CoreType>>,
}

#[derive(Debug)]
pub enum WhyNotFasterMsg {
    /// Each core type's chain at the latest reading.
    Show(Vec<CoreLimits>),
}

#[relm4::component(pub)]
impl SimpleComponent for WhyNotFaster {
    type Init = ();
    type Input = WhyNotFasterMsg;
    type Output = ();

    view! {
        gtk::Box {
            // Hidden until a reading has a chain to show (none without CPU frequency control).
            #[watch]
            set_visible: !model.core_types.is_empty(),

            #[local_ref]
            group -> adw::PreferencesGroup {
                set_hexpand: true,
                set_title: &gettext("Why not faster?"),
                set_description: Some(&gettext("What keeps each kind of core below its highest speed; choose one for details")),
            },
        }
    }

    fn init(_: (), _root: Self::Root, _sender: ComponentSender<Self>) -> ComponentParts<Self> {
        let rows = FactoryVecDeque::builder()
            .launch(adw::PreferencesGroup::new())
            .detach();
        let model = WhyNotFaster {
            rows,
            core_types: Vec::new(),
        };
        let group = model.rows.widget();
        let widgets = view_output!();
        ComponentParts { model, widgets }
    }

    fn update(&mut self, message: WhyNotFasterMsg, _sender: ComponentSender<Self>) {
        let WhyNotFasterMsg::Show(limits) = message;
        let core_types: Vec<Option<CoreType>> = limits.iter().map(|l| l.core_type).collect();
        if core_types != self.core_types {
            let mut rows = self.rows.guard();
            rows.clear();
            for core in limits {
                rows.push_back(core);
            }
            self.core_types = core_types;
            return;
        }
        for (index, core) in limits.into_iter().enumerate() {
            self.rows.send(index, LimitRowMsg::Show(Box::new(core)));
        }
    }
}
