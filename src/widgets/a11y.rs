// SPDX-License-Identifier: GPL-3.0-or-later
//! Accessible names for widgets whose purpose their text does not say.
//!
//! GTK 4.8 has no Rust binding for setting accessible properties (`update_property` needs
//! 4.10), but GtkBuilder sets them from UI definitions since 4.0: the widget is built from a
//! one-object definition carrying its label.

use relm4::gtk;
use relm4::gtk::glib;
use relm4::gtk::prelude::*;

/// A new widget of type `W` whose accessible name is `label`.
pub fn labelled<W: IsA<gtk::Widget> + IsA<glib::Object> + glib::object::IsClass>(label: &str) -> W {
    build(label, "")
}

/// A new widget of type `W` that a screen reader takes for a picture (GTK's `img` role)
/// called `label`: what a plot is to someone who cannot see it, rather than a blank filler.
pub fn picture<W: IsA<gtk::Widget> + IsA<glib::Object> + glib::object::IsClass>(label: &str) -> W {
    // The role is construct-only: GtkBuilder can set it, a setter cannot.
    build(label, r#"<property name="accessible-role">img</property>"#)
}

fn build<W: IsA<gtk::Widget> + IsA<glib::Object> + glib::object::IsClass>(
    label: &str,
    properties: &str,
) -> W {
    let ui = format!(
        r#"<interface><object class="{}" id="widget">{properties}<accessibility><property name="label">{}</property></accessibility></object></interface>"#,
        W::static_type().name(),
        glib::markup_escape_text(label)
    );
    let builder = gtk::Builder::new();
    match builder.add_from_string(&ui) {
        Ok(()) => builder.object("widget"),
        Err(error) => {
            glib::g_warning!(
                "pacer",
                "cannot name a widget for screen readers: {}",
                error
            );
            None
        }
    }
    .unwrap_or_else(|| glib::Object::new::<W>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[ignore = "needs a display: build-aux/test.sh --lane gui runs it"]
    fn a_labelled_widget_is_of_the_type_asked_for() {
        crate::testing::on_gtk_thread(|| {
            let switch: gtk::Switch = labelled("Turbo boost");
            assert!(!switch.is_active());
            let plot: gtk::DrawingArea = picture("Frequency");
            assert_eq!(
                plot.property::<gtk::AccessibleRole>("accessible-role"),
                gtk::AccessibleRole::Img
            );
        });
    }
}
