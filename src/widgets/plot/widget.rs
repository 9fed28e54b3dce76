// SPDX-License-Identifier: GPL-3.0-or-later
//! The plots as GTK widgets: a drawing area each, redrawn when its data or the style (light or
//! dark) changes. Handles are cheap clones sharing one widget, so pages can keep them.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::{Duration, SystemTime};

use pacer_core::i18n::gettext;
use relm4::adw;
use relm4::gtk::{self, glib, prelude::*};

use super::frequency::{FrequencyLayers, FrequencyMarks};
use super::history::{FrequencyHistory, TracedCpu, TypeSummary};
use super::palette::Palette;
use super::ramp::{draw_ramp, RampChart};
use super::readout::{PlotChange, Readout};
use super::strip::Shown;
use super::trace::WINDOW;

/// The palette for the style in use now.
pub fn current_palette() -> Palette {
    Palette::for_dark(adw::StyleManager::default().is_dark())
}

/// A drawing area for a plot: named for screen readers, as wide as its page, and redrawn when
/// the style turns light or dark while it is on screen.
pub fn plot_area(accessible_label: &str, height: i32) -> gtk::DrawingArea {
    let area: gtk::DrawingArea = crate::widgets::a11y::picture(accessible_label);
    area.set_content_height(height);
    area.set_hexpand(true);
    // Connected only while realized: the style manager lives for the whole process and would
    // otherwise keep a handler for every plot ever made.
    let handler = Rc::new(RefCell::new(None));
    let on_realize = Rc::clone(&handler);
    area.connect_realize(move |area| {
        let area = area.downgrade();
        let id = adw::StyleManager::default().connect_dark_notify(move |_| {
            if let Some(area) = area.upgrade() {
                area.queue_draw();
            }
        });
        if let Some(old) = on_realize.replace(Some(id)) {
            adw::StyleManager::default().disconnect(old);
        }
    });
    area.connect_unrealize(move |_| {
        if let Some(id) = handler.take() {
            adw::StyleManager::default().disconnect(id);
        }
    });
    area
}

/// GTK gives sizes as `i32`; a negative one means nothing to draw.
fn pixels(size: i32) -> u32 {
    u32::try_from(size).unwrap_or(0)
}

#[derive(Debug)]
struct FrequencyState {
    history: RefCell<FrequencyHistory>,
    marks: RefCell<Vec<FrequencyMarks>>,
    layers: RefCell<FrequencyLayers>,
    /// The moment the readout is about, in seconds before the latest sample, while the
    /// pointer is over the plot or the keyboard is on it.
    cursor: Cell<Option<f64>>,
    /// Whether the keyboard is on the plot (the readout then stays when the pointer leaves).
    focused: Cell<bool>,
    /// The changes of the power state recorded lately, marked where they happened.
    changes: RefCell<Vec<PlotChange>>,
    /// The change the readout says, if any (logged when it comes and goes).
    said_change: RefCell<Option<String>>,
}

/// The live frequency plot of every CPU, with its readout.
#[derive(Debug, Clone)]
pub struct FrequencyPlot {
    area: gtk::DrawingArea,
    readout: gtk::Label,
    state: Rc<FrequencyState>,
}

/// A [`FrequencyPlot`] held weakly.
struct WeakPlot {
    area: glib::WeakRef<gtk::DrawingArea>,
    readout: glib::WeakRef<gtk::Label>,
    state: std::rc::Weak<FrequencyState>,
}

impl WeakPlot {
    fn upgrade(&self) -> Option<FrequencyPlot> {
        Some(FrequencyPlot {
            area: self.area.upgrade()?,
            readout: self.readout.upgrade()?,
            state: self.state.upgrade()?,
        })
    }
}

/// How far an arrow key moves the readout, and Page Up/Down, in seconds.
const KEY_STEP: f64 = 1.0;
const PAGE_STEP: f64 = 10.0;

impl FrequencyPlot {
    /// A plot of `cpus` that keeps `capacity` samples (600 at 10 Hz fill its minute).
    pub fn new(cpus: Vec<TracedCpu>, capacity: usize) -> Self {
        let area = plot_area(
            &gettext("CPU frequency by core type over the last minute"),
            220,
        );
        let state = Rc::new(FrequencyState {
            history: RefCell::new(FrequencyHistory::new(cpus, capacity)),
            marks: RefCell::new(Vec::new()),
            layers: RefCell::default(),
            cursor: Cell::new(None),
            focused: Cell::new(false),
            changes: RefCell::default(),
            said_change: RefCell::default(),
        });
        let readout = gtk::Label::builder()
            .xalign(0.0)
            .wrap(true)
            .visible(false)
            .css_classes(["caption", "numeric"])
            .build();
        // The state does not refer to the area, so this makes no reference cycle.
        let drawn = Rc::clone(&state);
        area.set_draw_func(move |_, cr, width, height| {
            // The plot ends at its latest sample, taken a moment ago at most.
            let now = SystemTime::now();
            drawn.layers.borrow_mut().set_changes(
                drawn
                    .changes
                    .borrow()
                    .iter()
                    .map(|change| change.ago(now).as_secs_f64()),
            );
            let result = drawn.layers.borrow_mut().draw(
                cr,
                pixels(width),
                pixels(height),
                &drawn.history.borrow(),
                &drawn.marks.borrow(),
                &current_palette(),
            );
            if let Err(error) = result {
                glib::g_warning!("pacer", "cannot draw the frequency plot: {}", error);
            }
        });
        let plot = FrequencyPlot {
            area,
            readout,
            state,
        };
        plot.follow_pointer_and_keys();
        plot
    }

    /// The line under the plot that says what it shows at the readout's moment.
    pub fn readout(&self) -> &gtk::Label {
        &self.readout
    }

    /// The pointer over the plot, or the keyboard on it (the plot takes the focus: arrow
    /// keys step a second, Page Up/Down ten, Home/End to the oldest and latest sample),
    /// moves the readout's moment.
    fn follow_pointer_and_keys(&self) {
        self.area.set_focusable(true);
        let motion = gtk::EventControllerMotion::new();
        let weak = self.downgrade();
        motion.connect_motion(move |_, x, _| {
            let Some(plot) = weak.upgrade() else { return };
            let at = plot.state.layers.borrow().seconds_ago_at(x);
            if at.is_some() || !plot.state.focused.get() {
                plot.point_at(at);
            }
        });
        let weak = self.downgrade();
        motion.connect_leave(move |_| {
            let Some(plot) = weak.upgrade() else { return };
            if !plot.state.focused.get() {
                plot.point_at(None);
            }
        });
        self.area.add_controller(motion);
        let focus = gtk::EventControllerFocus::new();
        let weak = self.downgrade();
        focus.connect_enter(move |_| {
            let Some(plot) = weak.upgrade() else { return };
            plot.state.focused.set(true);
            plot.point_at(Some(plot.state.cursor.get().unwrap_or(0.0)));
        });
        let weak = self.downgrade();
        focus.connect_leave(move |_| {
            let Some(plot) = weak.upgrade() else { return };
            plot.state.focused.set(false);
            plot.point_at(None);
        });
        self.area.add_controller(focus);
        let keys = gtk::EventControllerKey::new();
        let weak = self.downgrade();
        keys.connect_key_pressed(move |_, key, _, _| {
            let Some(plot) = weak.upgrade() else {
                return glib::Propagation::Proceed;
            };
            let now = plot.state.cursor.get().unwrap_or(0.0);
            let moved = match key {
                gtk::gdk::Key::Left | gtk::gdk::Key::KP_Left => now + KEY_STEP,
                gtk::gdk::Key::Right | gtk::gdk::Key::KP_Right => now - KEY_STEP,
                gtk::gdk::Key::Page_Up => now + PAGE_STEP,
                gtk::gdk::Key::Page_Down => now - PAGE_STEP,
                gtk::gdk::Key::Home => f64::INFINITY,
                gtk::gdk::Key::End => 0.0,
                _ => return glib::Propagation::Proceed,
            };
            plot.point_at(Some(moved.clamp(0.0, WINDOW.as_secs_f64())));
            glib::Propagation::Stop
        });
        self.area.add_controller(keys);
        // A click puts the keyboard on the plot, as on any other control.
        let click = gtk::GestureClick::new();
        let area = self.area.downgrade();
        click.connect_pressed(move |_, _, _, _| {
            if let Some(area) = area.upgrade() {
                area.grab_focus();
            }
        });
        self.area.add_controller(click);
    }

    /// A handle that does not keep the plot alive: for its own widgets' handlers, which
    /// would otherwise make a cycle through the widget that owns them.
    fn downgrade(&self) -> WeakPlot {
        WeakPlot {
            area: self.area.downgrade(),
            readout: self.readout.downgrade(),
            state: Rc::downgrade(&self.state),
        }
    }

    /// Moves the readout to `seconds_ago`, or hides it.
    fn point_at(&self, seconds_ago: Option<f64>) {
        self.state.cursor.set(seconds_ago);
        self.state.layers.borrow_mut().set_cursor(seconds_ago);
        self.update_readout();
        if self.readout.is_visible() {
            let text = self.readout.text().replace('\n', " | ");
            glib::g_debug!("pacer", "readout shows {}", text);
        }
        self.area.queue_draw();
    }

    fn update_readout(&self) {
        let text = self.state.cursor.get().map(|seconds_ago| {
            let sample = match Readout::at(&self.state.history.borrow(), seconds_ago) {
                Some(readout) => readout.text(),
                None => gettext("No sample at that moment"),
            };
            let changes = self.state.changes.borrow();
            let change = PlotChange::near(&changes, SystemTime::now(), seconds_ago);
            let said = change.map(|change| change.text.clone());
            if *self.state.said_change.borrow() != said {
                match &said {
                    Some(text) => glib::g_debug!("pacer", "readout on the change {}", text),
                    None => glib::g_debug!("pacer", "readout off the changes"),
                }
                self.state.said_change.replace(said);
            }
            match change {
                Some(change) => format!("{sample}\n{}", change.text),
                None => sample,
            }
        });
        match text {
            Some(text) => {
                if self.readout.text() != text {
                    self.readout.set_text(&text);
                }
                self.readout.set_visible(true);
            }
            None => self.readout.set_visible(false),
        }
    }

    pub fn widget(&self) -> &gtk::DrawingArea {
        &self.area
    }

    /// Adds the frequencies sampled `at` (since sampling began), in the order of the CPUs
    /// given to [`Self::new`] or [`Self::reset`], and redraws.
    pub fn push(&self, at: Duration, khz: &[Option<u32>]) {
        let latest = self.state.history.borrow().latest_time();
        self.state.history.borrow_mut().push(at, khz);
        // The keyboard's readout stays on the moment it was put on, as the plot moves on
        // (the pointer's is wherever the pointer is); on the latest sample it follows it.
        let moved = latest.map(|latest| at.saturating_sub(latest).as_secs_f64());
        if let (true, Some(cursor), Some(moved)) =
            (self.state.focused.get(), self.state.cursor.get(), moved)
        {
            if cursor > 0.0 {
                let cursor = (cursor + moved).min(WINDOW.as_secs_f64());
                self.state.cursor.set(Some(cursor));
                self.state.layers.borrow_mut().set_cursor(Some(cursor));
            }
        }
        if self.state.cursor.get().is_some() {
            self.update_readout();
        }
        self.area.queue_draw();
    }

    /// Whether the plot draws each core type's band and median or each CPU's line.
    pub fn set_shown(&self, shown: Shown) {
        self.state.layers.borrow_mut().set_shown(shown);
        self.area.queue_draw();
    }

    /// Sets the dashed limit lines, one entry per core type.
    pub fn set_marks(&self, marks: Vec<FrequencyMarks>) {
        *self.state.marks.borrow_mut() = marks;
        self.area.queue_draw();
    }

    /// Marks `changes` of the power state on the plot (those of its last minute show), each
    /// said in the readout when it points at it.
    pub fn set_changes(&self, changes: Vec<PlotChange>) {
        *self.state.changes.borrow_mut() = changes;
        if self.state.cursor.get().is_some() {
            self.update_readout();
        }
        self.area.queue_draw();
    }

    /// Forgets all samples and follows `cpus` from now on, for when sampling restarts or the
    /// set of CPUs changed.
    pub fn reset(&self, cpus: Vec<TracedCpu>) {
        {
            let mut history = self.state.history.borrow_mut();
            if history.cpus() == cpus.as_slice() {
                history.clear();
            } else {
                *history = FrequencyHistory::new(cpus, history.capacity());
            }
        }
        self.area.queue_draw();
    }

    /// The latest median and highest frequency per core type.
    pub fn summary(&self) -> Vec<TypeSummary> {
        self.state.history.borrow().summary()
    }
}

/// The ramp-up chart of the measured settings, or of the measurement running now.
#[derive(Debug, Clone)]
pub struct RampPlot {
    area: gtk::DrawingArea,
    chart: Rc<RefCell<RampChart>>,
}

impl RampPlot {
    pub fn new() -> Self {
        let area = plot_area(
            &gettext("Ramp-up: throughput against time since work began"),
            320,
        );
        let chart: Rc<RefCell<RampChart>> = Rc::default();
        let drawn = Rc::clone(&chart);
        area.set_draw_func(move |_, cr, width, height| {
            let result = draw_ramp(
                cr,
                pixels(width),
                pixels(height),
                &drawn.borrow(),
                &current_palette(),
            );
            if let Err(error) = result {
                glib::g_warning!("pacer", "cannot draw the ramp-up chart: {}", error);
            }
        });
        RampPlot { area, chart }
    }

    pub fn widget(&self) -> &gtk::DrawingArea {
        &self.area
    }

    /// Replaces what is shown and redraws.
    pub fn set_chart(&self, chart: RampChart) {
        if *self.chart.borrow() != chart {
            *self.chart.borrow_mut() = chart;
            self.area.queue_draw();
        }
    }
}

impl Default for RampPlot {
    fn default() -> Self {
        RampPlot::new()
    }
}
