// SPDX-License-Identifier: GPL-3.0-or-later
//! What is drawn over each frame rather than kept in a layer: the changes of the power state
//! (a triangle on the top edge and a dotted line down the plot) and the readout's cursor.

use relm4::gtk::cairo::Context;

use super::super::error::PlotError;
use super::super::palette::Palette;
use super::super::trace::WINDOW;
use super::mesh::Area;

/// Half the width of a change's triangle, in pixels; its line's dots.
const CHANGE_SIZE: f64 = 4.0;
const CHANGE_DOTS: [f64; 2] = [1.0, 3.0];

/// Where the moment `seconds_ago` lies across the plotting area; `None` outside the window.
fn x_of(area: &Area, seconds_ago: f64) -> Option<f64> {
    let window = WINDOW.as_secs_f64();
    (0.0..=window)
        .contains(&seconds_ago)
        .then(|| area.right - seconds_ago / window * (area.right - area.left))
}

fn set_foreground(cr: &Context, palette: &Palette) {
    let color = palette.foreground;
    cr.set_source_rgb(
        f64::from(color.0) / 255.0,
        f64::from(color.1) / 255.0,
        f64::from(color.2) / 255.0,
    );
}

/// The changes of the power state: a triangle pointing down from the top edge at each, and
/// a dotted line below it, in the text's colour (a core type's would read as its limit).
pub(super) fn draw_changes(
    cr: &Context,
    area: &Area,
    changes: &[f64],
    palette: &Palette,
) -> Result<(), PlotError> {
    if changes.is_empty() {
        return Ok(());
    }
    cr.save()?;
    set_foreground(cr, palette);
    for x in changes.iter().filter_map(|&ago| x_of(area, ago)) {
        let x = x.round() + 0.5;
        cr.move_to(x - CHANGE_SIZE, area.top);
        cr.line_to(x + CHANGE_SIZE, area.top);
        cr.line_to(x, area.top + CHANGE_SIZE * 1.5);
        cr.close_path();
        cr.fill()?;
    }
    cr.set_line_width(1.0);
    cr.set_dash(&CHANGE_DOTS, 0.0);
    for x in changes.iter().filter_map(|&ago| x_of(area, ago)) {
        cr.move_to(x.round() + 0.5, area.top + CHANGE_SIZE * 1.5);
        cr.line_to(x.round() + 0.5, area.bottom);
    }
    cr.stroke()?;
    cr.restore()?;
    Ok(())
}

/// The readout's moment: a vertical line across the plotting area.
pub(super) fn draw_cursor(
    cr: &Context,
    area: &Area,
    seconds_ago: f64,
    palette: &Palette,
) -> Result<(), PlotError> {
    let window = WINDOW.as_secs_f64();
    let x = area.right - seconds_ago.clamp(0.0, window) / window * (area.right - area.left);
    cr.save()?;
    set_foreground(cr, palette);
    cr.set_line_width(1.0);
    cr.move_to(x.round() + 0.5, area.top);
    cr.line_to(x.round() + 0.5, area.bottom);
    cr.stroke()?;
    cr.restore()?;
    Ok(())
}
