// SPDX-License-Identifier: GPL-3.0-or-later
//! What GTK itself costs for a live plot: a window of Pacer's size holding, framed as Pacer's
//! is, a bare drawing area of the plot's size, redrawn at 10 Hz with a picture that scrolls one column
//! a frame. Its pixels are made with the least work a scrolling picture needs (each row moved
//! one pixel left, a new column written), so its CPU is GTK's share of a frame: snapshotting
//! the drawing area, replaying it into the window's image, and sending that to the X server.
//! No plot of that size can cost less with this renderer; the bench shows it beside Pacer's.

use std::cell::RefCell;
use std::process::ExitCode;
use std::rc::Rc;
use std::time::Duration;

use relm4::adw::{self, prelude::*};
use relm4::gtk::{self, cairo, gio, glib};

/// The floor window's title, for `xdotool search`.
pub const TITLE: &str = "Pacer floor";
/// Pacer's window and plot, in logical pixels (`src/window/mod.rs`, `widgets::plot`).
const WINDOW_SIZE: (i32, i32) = (900, 760);
const PLOT_HEIGHT: i32 = 220;
const FRAME_PERIOD: Duration = Duration::from_millis(100);

/// Opens the floor window and redraws it at 10 Hz until it is killed.
pub fn run() -> ExitCode {
    let app = adw::Application::new(None::<&str>, gio::ApplicationFlags::NON_UNIQUE);
    app.connect_activate(|app| {
        let area = gtk::DrawingArea::builder()
            .content_height(PLOT_HEIGHT)
            .hexpand(true)
            .build();
        // Framed as the overview frames the plot.
        let frame = gtk::Frame::builder()
            .css_classes(["view"])
            .child(&area)
            .margin_top(220)
            .margin_start(48)
            .margin_end(48)
            .valign(gtk::Align::Start)
            .build();
        let window = adw::ApplicationWindow::builder()
            .application(app)
            .title(TITLE)
            .default_width(WINDOW_SIZE.0)
            .default_height(WINDOW_SIZE.1)
            .content(&frame)
            .build();
        let frames = Rc::new(RefCell::new(Frames::default()));
        area.set_draw_func(move |_, cr, width, height| {
            // A frame that cannot be drawn leaves the area empty: the bench measures CPU.
            let _ = frames.borrow_mut().draw(cr, width, height);
        });
        glib::timeout_add_local(FRAME_PERIOD, move || {
            area.queue_draw();
            glib::ControlFlow::Continue
        });
        window.present();
    });
    // The bench's own arguments are not GTK's.
    match app.run_with_args::<&str>(&[]) {
        glib::ExitCode::SUCCESS => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    }
}

/// Two images drawn in turn, as the plot does: GTK's last recording still holds the other.
#[derive(Default)]
struct Frames {
    images: [Option<cairo::ImageSurface>; 2],
    frame: usize,
}

impl Frames {
    fn draw(&mut self, cr: &cairo::Context, width: i32, height: i32) -> Result<(), cairo::Error> {
        let older = self.images[1].take().and_then(|image| {
            (image.width() == width && image.height() == height).then_some(image)
        });
        let mut image = match older {
            Some(image) => image,
            None => cairo::ImageSurface::create(cairo::Format::ARgb32, width, height)?,
        };
        self.frame = self.frame.wrapping_add(1);
        // The image of the frame before last, moved left by two columns (it is two frames
        // old), with new ones at the right: a line at a height that walks with time.
        let stride = usize::try_from(image.stride()).unwrap_or(0);
        let row_bytes = usize::try_from(width).unwrap_or(0) * 4;
        let rows = usize::try_from(height).unwrap_or(0);
        let line = (self.frame * 7) % rows.max(1);
        if let Ok(mut pixels) = image.data() {
            for row in 0..rows {
                let start = row * stride;
                let pixels = &mut pixels[start..start + row_bytes];
                pixels.copy_within(8.., 0);
                let colour: u32 = if row == line {
                    0xff35_84e4
                } else {
                    0xffff_ffff
                };
                for pixel in pixels[row_bytes - 8..].chunks_exact_mut(4) {
                    pixel.copy_from_slice(&colour.to_ne_bytes());
                }
            }
        }
        cr.set_source_surface(&image, 0.0, 0.0)?;
        cr.paint()?;
        self.images.swap(0, 1);
        self.images[0] = Some(image);
        Ok(())
    }
}
