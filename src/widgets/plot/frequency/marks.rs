// SPDX-License-Identifier: GPL-3.0-or-later
//! The layer over the lines: the policy limits (min, base, max) as dashed lines with their
//! labels, one line where core types share a limit, and the legend of the core types.

use pacer_core::i18n::{fill, gettext};
use pacer_core::values::CoreType;
use pacer_measure::table::cores_of_type;
use plotters::style::RGBColor;
use relm4::gtk::cairo::Context;

use super::super::canvas::{self, LegendEntry, FONT_SIZE};
use super::super::error::PlotError;
use super::super::history::{FrequencyHistory, TYPES_IN_ORDER};
use super::super::palette::Palette;
use super::mesh::Area;
use super::FrequencyMarks;

const MARK_DASH: [f64; 2] = [5.0, 3.0];

/// Which limit a mark line shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Limit {
    Max,
    Base,
    Min,
}

pub(super) fn draw_marks(
    cr: &Context,
    area: &Area,
    marks: &[FrequencyMarks],
    palette: &Palette,
) -> Result<(), PlotError> {
    const LABEL_SIZE: f64 = FONT_SIZE - 1.0;
    // Types often share a limit (the same minimum): one line in the text colour then says it
    // for all, rather than one type's colour hiding the other's.
    let mut lines: Vec<(Limit, u32, RGBColor)> = Vec::with_capacity(marks.len() * 3);
    for mark in marks {
        for (limit, khz) in [
            (Limit::Max, mark.max_khz),
            (Limit::Base, mark.base_khz),
            (Limit::Min, mark.min_khz),
        ] {
            let Some(khz) = khz else { continue };
            let color = palette.core(mark.core_type);
            match lines.iter_mut().find(|(l, k, _)| (*l, *k) == (limit, khz)) {
                Some((_, _, shared)) if *shared != color => *shared = palette.foreground,
                Some(_) => {}
                None => lines.push((limit, khz, color)),
            }
        }
    }

    cr.save()?;
    area.clip(cr);
    cr.set_line_width(1.0);
    cr.set_dash(&MARK_DASH, 0.0);
    for &(_, khz, color) in &lines {
        // Snapped to the pixel grid: a crisp 1-pixel line.
        let y = area.y(khz).round() + 0.5;
        canvas::set_source(cr, color);
        cr.move_to(area.left, y);
        cr.line_to(area.right, y);
        cr.stroke()?;
    }

    canvas::select_font(cr, LABEL_SIZE);
    // Labels already written, as (left, top, right, bottom), so that limits that lie close
    // together do not print over each other.
    let mut taken: Vec<(f64, f64, f64, f64)> = Vec::with_capacity(lines.len());
    for &(limit, khz, color) in &lines {
        let template = match limit {
            Limit::Max => gettext("max {ghz} GHz"),
            Limit::Base => gettext("base {ghz} GHz"),
            Limit::Min => gettext("min {ghz} GHz"),
        };
        let label = fill(
            template,
            &[("ghz", &format!("{:.1}", f64::from(khz) / 1e6))],
        );
        let width = canvas::text_width(cr, &label)?;
        let y = area.y(khz).round() + 0.5;
        // Above the line where there is room, otherwise below it.
        let baseline = if y - LABEL_SIZE - 3.0 > area.top {
            y - 4.0
        } else {
            y + LABEL_SIZE + 2.0
        };
        let (top, bottom) = (baseline - LABEL_SIZE, baseline + 3.0);
        let mut left = area.left + 4.0;
        while let Some(&(_, _, right, _)) = taken.iter().find(|&&(l, t, r, b)| {
            left < r + 6.0 && l < left + width + 6.0 && top < b && t < bottom
        }) {
            left = right + 8.0;
        }
        if left + width > area.right {
            continue;
        }
        taken.push((left, top, left + width, bottom));
        // On a veil of the background, as the data lines run behind.
        canvas::set_source_alpha(cr, palette.background, 0.8);
        cr.rectangle(left - 2.0, top - 1.0, width + 4.0, bottom - top + 1.0);
        cr.fill()?;
        canvas::set_source(cr, color);
        canvas::show_text(cr, left, baseline, &label)?;
    }
    cr.restore()?;
    Ok(())
}

/// One entry per core type that the history follows, right-aligned above the plotting area.
pub(super) fn draw_legend(
    cr: &Context,
    area: &Area,
    history: &FrequencyHistory,
    palette: &Palette,
) -> Result<(), PlotError> {
    let labels: Vec<(Option<CoreType>, String)> = TYPES_IN_ORDER
        .into_iter()
        .filter(|&core_type| history.cpus().iter().any(|cpu| cpu.core_type == core_type))
        .map(|core_type| (core_type, cores_of_type(core_type)))
        .collect();
    let entries: Vec<LegendEntry<'_>> = labels
        .iter()
        .map(|(core_type, label)| LegendEntry {
            label,
            color: palette.core(*core_type),
            dash: &[],
            marker: None,
        })
        .collect();
    canvas::legend_row(cr, &entries, area.right, area.top - 7.0, palette.foreground)?;
    Ok(())
}
