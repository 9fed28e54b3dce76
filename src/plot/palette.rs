//! The colours of the plots, one set for light and one for dark styles, from the GNOME HIG
//! palette so that the plots sit well next to libadwaita widgets.
//!
//! Core types differ in hue and not only in shade (blue, orange, purple, grey), so that they
//! stay apart for the common forms of colour blindness. Each light-style colour keeps a
//! contrast of about 3:1 or more against white, each dark-style colour against #1e1e1e.

use pacer_core::values::CoreType;
use plotters::style::RGBColor;

/// The colours one plot is drawn with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Palette {
    /// Filled in only where nothing else is behind the plot (an exported image): in the
    /// window the plot is transparent over the page.
    pub background: RGBColor,
    /// Axes, tick labels, legend text.
    pub foreground: RGBColor,
    pub grid: RGBColor,
    pub performance: RGBColor,
    pub efficiency: RGBColor,
    pub low_power: RGBColor,
    /// Cores of a machine whose cores are all alike.
    pub untyped: RGBColor,
}

impl Palette {
    /// For a light style: HIG blue 4, orange 4, purple 3 and dark 1 on white.
    pub const LIGHT: Palette = Palette {
        background: RGBColor(0xff, 0xff, 0xff),
        foreground: RGBColor(0x24, 0x1f, 0x31),
        grid: RGBColor(0xde, 0xdd, 0xda),
        performance: RGBColor(0x1c, 0x71, 0xd8),
        efficiency: RGBColor(0xe6, 0x61, 0x00),
        low_power: RGBColor(0x91, 0x41, 0xac),
        untyped: RGBColor(0x5e, 0x5c, 0x64),
    };

    /// For a dark style: HIG blue 2, orange 2, purple 1 and light 4 on libadwaita's dark
    /// view background.
    pub const DARK: Palette = Palette {
        background: RGBColor(0x1e, 0x1e, 0x1e),
        foreground: RGBColor(0xde, 0xdd, 0xda),
        grid: RGBColor(0x3d, 0x38, 0x46),
        performance: RGBColor(0x62, 0xa0, 0xea),
        efficiency: RGBColor(0xff, 0xa3, 0x48),
        low_power: RGBColor(0xdc, 0x8a, 0xdd),
        untyped: RGBColor(0xc0, 0xbf, 0xbc),
    };

    pub fn for_dark(dark: bool) -> Palette {
        if dark {
            Palette::DARK
        } else {
            Palette::LIGHT
        }
    }

    pub fn core(&self, core_type: Option<CoreType>) -> RGBColor {
        match core_type {
            Some(CoreType::Performance) => self.performance,
            Some(CoreType::Efficiency) => self.efficiency,
            Some(CoreType::LowPower) => self.low_power,
            None => self.untyped,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// WCAG relative luminance.
    fn luminance(color: RGBColor) -> f64 {
        let channel = |c: u8| {
            let c = f64::from(c) / 255.0;
            if c <= 0.039_28 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * channel(color.0) + 0.7152 * channel(color.1) + 0.0722 * channel(color.2)
    }

    fn contrast(a: RGBColor, b: RGBColor) -> f64 {
        let (a, b) = (luminance(a), luminance(b));
        (a.max(b) + 0.05) / (a.min(b) + 0.05)
    }

    #[test]
    fn every_line_colour_is_readable_on_its_background() {
        for palette in [Palette::for_dark(false), Palette::for_dark(true)] {
            for core_type in super::super::history::TYPES_IN_ORDER {
                let ratio = contrast(palette.core(core_type), palette.background);
                assert!(ratio >= 3.0, "{core_type:?} {ratio:.2} in {palette:?}");
            }
            assert!(contrast(palette.foreground, palette.background) >= 7.0);
        }
    }
}
