//! The plots as GTK widgets: a drawing area each, redrawn when its data or the style (light or
//! dark) changes. Handles are cheap clones sharing one widget, so pages can keep them.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;

use pacer_core::i18n::gettext;
use relm4::adw;
use relm4::gtk::{self, glib, prelude::*};

use super::frequency::{FrequencyLayers, FrequencyMarks};
use super::history::{FrequencyHistory, TracedCpu, TypeSummary};
use super::palette::Palette;
use super::ramp::{draw_ramp, RampSeries};
use super::strip::Shown;

/// The palette for the style in use now.
fn current_palette() -> Palette {
    Palette::for_dark(adw::StyleManager::default().is_dark())
}

/// A drawing area for a plot: named for screen readers, as wide as its page, and redrawn when
/// the style turns light or dark while it is on screen.
fn plot_area(accessible_label: &str, height: i32) -> gtk::DrawingArea {
    let area: gtk::DrawingArea = crate::a11y::labelled(accessible_label);
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
}

/// The live frequency plot of every CPU.
#[derive(Debug, Clone)]
pub struct FrequencyPlot {
    area: gtk::DrawingArea,
    state: Rc<FrequencyState>,
}

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
        });
        // The state does not refer to the area, so this makes no reference cycle.
        let drawn = Rc::clone(&state);
        area.set_draw_func(move |_, cr, width, height| {
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
        FrequencyPlot { area, state }
    }

    pub fn widget(&self) -> &gtk::DrawingArea {
        &self.area
    }

    /// Adds the frequencies sampled `at` (since sampling began), in the order of the CPUs
    /// given to [`Self::new`] or [`Self::reset`], and redraws.
    pub fn push(&self, at: Duration, khz: &[Option<u32>]) {
        self.state.history.borrow_mut().push(at, khz);
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

/// The ramp-up chart of the measured settings.
#[derive(Debug, Clone)]
pub struct RampPlot {
    area: gtk::DrawingArea,
    series: Rc<RefCell<Vec<RampSeries>>>,
}

impl RampPlot {
    pub fn new() -> Self {
        let area = plot_area(
            &gettext("Ramp-up: throughput against time since work began"),
            260,
        );
        let series: Rc<RefCell<Vec<RampSeries>>> = Rc::default();
        let drawn = Rc::clone(&series);
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
        RampPlot { area, series }
    }

    pub fn widget(&self) -> &gtk::DrawingArea {
        &self.area
    }

    /// Replaces the series shown and redraws.
    pub fn set_series(&self, series: Vec<RampSeries>) {
        *self.series.borrow_mut() = series;
        self.area.queue_draw();
    }
}

impl Default for RampPlot {
    fn default() -> Self {
        RampPlot::new()
    }
}
