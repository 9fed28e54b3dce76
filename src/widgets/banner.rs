// SPDX-License-Identifier: GPL-3.0-or-later
//! The banner at the top of the window: what is wrong (the findings, most severe first), and
//! what the window cannot do (no helper: read-only; no CPU frequency control here), one line
//! each with a button for its fix and one for its details. Which notices show is decided in
//! `notices`; each is a row of a factory (`row`): a strip of Pacer's own, as libadwaita 1.2
//! has no banner, or an AdwBanner in the gnome_48 build (`adw_banner`). A notice's details
//! (the explanation, the cause, the fix in words and the command) open in a dialog
//! (`details`).

use relm4::factory::FactoryVecDeque;
use relm4::gtk;
use relm4::gtk::glib;
use relm4::prelude::*;

use gtk::prelude::*;

mod details;
mod notices;
#[cfg_attr(feature = "gnome_48", path = "banner/adw_banner.rs")]
mod row;

pub use notices::{notices, BannerFacts, Notice, NoticeAction};

/// A notice, and whether it is the first (the most severe: Alt+D opens its details): a row
/// of the banner, which `row` makes.
#[derive(Debug)]
pub struct NoticeRow {
    notice: Notice,
    first: bool,
}

#[derive(Debug)]
pub struct Banner {
    shown: Vec<Notice>,
    rows: FactoryVecDeque<NoticeRow>,
}

#[derive(Debug)]
pub enum BannerMsg {
    Show(Vec<Notice>),
}

#[relm4::component(pub)]
impl SimpleComponent for Banner {
    type Init = ();
    type Input = BannerMsg;
    type Output = NoticeAction;

    view! {
        gtk::Box {
            #[watch]
            set_visible: !model.shown.is_empty(),

            #[local_ref]
            list -> gtk::Box {
                set_orientation: gtk::Orientation::Vertical,
                set_hexpand: true,
            },
        }
    }

    fn init(_: (), _root: Self::Root, sender: ComponentSender<Self>) -> ComponentParts<Self> {
        let rows = FactoryVecDeque::builder()
            .launch(gtk::Box::default())
            .forward(sender.output_sender(), |action| action);
        let model = Banner {
            shown: Vec::new(),
            rows,
        };
        let list = model.rows.widget();
        let widgets = view_output!();
        ComponentParts { model, widgets }
    }

    fn update(&mut self, message: BannerMsg, _sender: ComponentSender<Self>) {
        let BannerMsg::Show(notices) = message;
        if notices == self.shown {
            return;
        }
        // For people and tests reading the log: what the banner now says.
        for notice in notices.iter().filter(|n| !self.shown.contains(n)) {
            glib::g_info!("pacer", "banner shows {}: {}", notice.key, notice.title);
            let explanation = &notice.details.explanation;
            glib::g_info!("pacer", "banner details {}: {}", notice.key, explanation);
            if let Some(why) = &notice.details.why {
                glib::g_info!("pacer", "banner explains {}", why);
            }
        }
        for notice in self.shown.iter().filter(|n| !notices.contains(n)) {
            glib::g_info!("pacer", "banner clears {}", notice.key);
        }
        let mut rows = self.rows.guard();
        rows.clear();
        for (index, notice) in notices.iter().enumerate() {
            rows.push_back((notice.clone(), index == 0));
        }
        drop(rows);
        self.shown = notices;
    }
}
