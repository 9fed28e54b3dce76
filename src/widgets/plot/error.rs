// SPDX-License-Identifier: GPL-3.0-or-later
//! Why a plot could not be drawn or saved. The window only logs these; an export reports them.

use plotters::drawing::DrawingAreaErrorKind;
use relm4::gtk::{cairo, glib};

#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    #[error("cairo failed to draw: {0}")]
    Cairo(#[from] cairo::Error),
    /// Plotters reports its own failures as text only (the backend error is cairo's, above).
    #[error("cannot lay out the plot: {0}")]
    Layout(String),
    #[error("cannot read the drawn image: {0}")]
    Surface(#[from] cairo::BorrowError),
    #[error("cannot save the image: {0}")]
    Save(#[from] glib::Error),
}

impl From<DrawingAreaErrorKind<cairo::Error>> for PlotError {
    fn from(error: DrawingAreaErrorKind<cairo::Error>) -> Self {
        PlotError::Layout(error.to_string())
    }
}
