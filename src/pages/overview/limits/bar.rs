// SPDX-License-Identifier: GPL-3.0-or-later
//! A core type's chain as one small bar: the hardware's range as its track, what the
//! settings request over it, what the cores delivered filled in, and the limiting link's
//! ceiling marked by a tick. Drawn with cairo in the plots' colours for the core type, and
//! redrawn when the style turns light or dark, as the plots are.

use std::cell::Cell;
use std::rc::Rc;

use pacer_core::limits::{CoreLimits, Limiter};
use pacer_core::values::CoreType;
use relm4::gtk::{self, cairo, prelude::*};

use crate::widgets::plot::{current_palette, plot_area, set_source, set_source_alpha};
use crate::words::limits::bar_name;

/// The bar's size, in pixels: small enough to sit beside a row's subtitle.
const WIDTH: i32 = 160;
const HEIGHT: i32 = 20;
/// The track's height, and the tick's width; the tick spans the whole height.
const TRACK: f64 = 8.0;
const TICK: f64 = 3.0;

/// Where the bar's parts end, as shares of its width (0 to 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Shape {
    pub requested: f64,
    pub delivered: Option<f64>,
    /// The limiting link's ceiling; `None` where nothing holds the cores.
    pub ceiling: Option<f64>,
}

impl Shape {
    /// The shape of `limits`, on a scale up to the highest of its figures (the hardware's
    /// highest, as a rule); `None` where it has no figure to scale by.
    pub fn of(limits: &CoreLimits) -> Option<Shape> {
        let figures = [
            limits.hardware_max_khz,
            limits.requested_khz,
            limits.delivered_khz,
            limits.ceiling_khz,
        ];
        let top = figures.iter().flatten().map(|khz| khz.0).max()?;
        let share = |khz: u32| f64::from(khz) / f64::from(top.max(1));
        // A link seen acting without a frequency of its own holds at what the cores deliver.
        let ceiling = match (limits.limiter, limits.ceiling_khz) {
            (Limiter::None, _) => None,
            (_, Some(ceiling)) => Some(share(ceiling.0)),
            (_, None) => limits.delivered_khz.map(|khz| share(khz.0)),
        };
        Some(Shape {
            requested: limits.requested_khz.map_or(1.0, |khz| share(khz.0)),
            delivered: limits.delivered_khz.map(|khz| share(khz.0)),
            ceiling,
        })
    }
}

/// A core type's bar, and the shape it draws (shared with its drawing function).
#[derive(Debug, Clone)]
pub(super) struct ChainBar {
    area: gtk::DrawingArea,
    shape: Rc<Cell<Option<Shape>>>,
}

impl ChainBar {
    pub fn new(core_type: Option<CoreType>) -> ChainBar {
        let area = plot_area(&bar_name(core_type), HEIGHT);
        area.set_content_width(WIDTH);
        area.set_hexpand(false);
        area.set_valign(gtk::Align::Center);
        let shape: Rc<Cell<Option<Shape>>> = Rc::default();
        let drawn = Rc::clone(&shape);
        area.set_draw_func(move |_, cr, width, height| {
            if let Some(shape) = drawn.get() {
                draw(cr, shape, core_type, f64::from(width), f64::from(height));
            }
        });
        ChainBar { area, shape }
    }

    pub fn widget(&self) -> &gtk::DrawingArea {
        &self.area
    }

    /// Draws `limits` from now on.
    pub fn show(&self, limits: &CoreLimits) {
        let shape = Shape::of(limits);
        if self.shape.replace(shape) != shape {
            self.area.queue_draw();
        }
    }
}

fn draw(cr: &cairo::Context, shape: Shape, core_type: Option<CoreType>, width: f64, height: f64) {
    let palette = current_palette();
    let color = palette.core(core_type);
    let (left, span) = (TICK / 2.0, width - TICK);
    let top = (height - TRACK) / 2.0;
    let part = |cr: &cairo::Context, share: f64| {
        cr.rectangle(left, top, span * share.clamp(0.0, 1.0), TRACK);
        cr.fill()
    };
    // Drawing fails only on a context already in error: nothing more to draw then.
    set_source(cr, palette.grid);
    let _ = part(cr, 1.0);
    set_source_alpha(cr, color, 0.35);
    let _ = part(cr, shape.requested);
    if let Some(delivered) = shape.delivered {
        set_source(cr, color);
        let _ = part(cr, delivered);
    }
    if let Some(ceiling) = shape.ceiling {
        set_source(cr, palette.foreground);
        cr.rectangle(
            left + span * ceiling.clamp(0.0, 1.0) - TICK / 2.0,
            0.0,
            TICK,
            height,
        );
        let _ = cr.fill();
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use pacer_core::limits::LimitWatch;
    use pacer_core::sim::SimDir;
    use pacer_core::values::Khz;
    use pacer_core::{Snapshot, SysRoot};

    use super::*;

    fn intel_hybrid_with(writes: &[(&str, &str)]) -> Vec<CoreLimits> {
        let dir = tempfile::tempdir().unwrap();
        let sim = SimDir::open_or_create(dir.path(), "intel-hybrid").unwrap();
        for (path, value) in writes {
            sim.write(path, value).unwrap().unwrap();
        }
        let root = SysRoot::new(dir.path());
        let snapshot = Snapshot::read(&root).unwrap();
        let mut watch = LimitWatch::new(&root, &snapshot);
        watch.refresh(&root);
        watch.limits(&snapshot)
    }

    #[test]
    fn a_free_core_type_has_no_tick_and_turbo_off_one_at_its_base() {
        let free = intel_hybrid_with(&[]);
        let shape = Shape::of(&free[0]).unwrap();
        assert_eq!(shape.requested, 1.0);
        assert_eq!(shape.ceiling, None);
        assert!(shape
            .delivered
            .is_some_and(|share| share > 0.0 && share <= 1.0));

        let held = intel_hybrid_with(&[("sys/devices/system/cpu/intel_pstate/no_turbo", "1")]);
        let shape = Shape::of(&held[0]).unwrap();
        // 2.1 GHz of the P-cores' 4.7.
        let ceiling = shape.ceiling.unwrap();
        assert!((ceiling - 2.1 / 4.7).abs() < 1e-9, "{shape:?}");
    }

    #[test]
    fn a_hold_without_a_frequency_is_marked_at_what_the_cores_deliver() {
        let mut limits = intel_hybrid_with(&[]).remove(1);
        limits.limiter = Limiter::Thermal;
        limits.ceiling_khz = None;
        limits.delivered_khz = Some(Khz(1_700_000));
        let shape = Shape::of(&limits).unwrap();
        assert_eq!(shape.ceiling, shape.delivered);
        assert!((shape.delivered.unwrap() - 0.5).abs() < 1e-9, "of 3.4 GHz");
        // Nothing read at all: nothing to draw.
        limits.hardware_max_khz = None;
        limits.requested_khz = None;
        limits.delivered_khz = None;
        assert_eq!(Shape::of(&limits), None);
    }
}
