// SPDX-License-Identifier: GPL-3.0-or-later
//! The colours of the plots, one set for light and one for dark styles, from the GNOME HIG
//! palette so that the plots sit well next to libadwaita widgets.
//!
//! Core types differ in hue and not only in shade (blue, orange, purple, grey), so that they
//! stay apart for the common forms of colour blindness, and so do the settings a comparison
//! charts (blue, orange, green, purple). Each light-style colour keeps a contrast of 4.5:1 or
//! more against white and libadwaita's light window background, each dark-style colour
//! against its dark view and window backgrounds (WCAG's level for text, which the lines'
//! labels and readouts are coloured like).

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
    /// The settings of a comparison, A to D, in order.
    pub settings: [RGBColor; 4],
}

impl Palette {
    /// For a light style: HIG blue 4, orange 5, purple 3 and dark 1 on white; for settings
    /// blue 4, orange 5, a green darker than the HIG's (whose greens are too light on white)
    /// and purple 4.
    pub const LIGHT: Palette = Palette {
        background: RGBColor(0xff, 0xff, 0xff),
        foreground: RGBColor(0x24, 0x1f, 0x31),
        grid: RGBColor(0xde, 0xdd, 0xda),
        performance: RGBColor(0x1c, 0x71, 0xd8),
        efficiency: RGBColor(0xc6, 0x46, 0x00),
        low_power: RGBColor(0x91, 0x41, 0xac),
        untyped: RGBColor(0x5e, 0x5c, 0x64),
        settings: [
            RGBColor(0x1c, 0x71, 0xd8),
            RGBColor(0xc6, 0x46, 0x00),
            RGBColor(0x1b, 0x7a, 0x48),
            RGBColor(0x81, 0x3d, 0x9c),
        ],
    };

    /// For a dark style: HIG blue 2, orange 2, purple 1 and light 4 on libadwaita's dark
    /// view background; for settings blue 2, orange 2, green 2 and purple 1.
    pub const DARK: Palette = Palette {
        background: RGBColor(0x1e, 0x1e, 0x1e),
        foreground: RGBColor(0xde, 0xdd, 0xda),
        grid: RGBColor(0x3d, 0x38, 0x46),
        performance: RGBColor(0x62, 0xa0, 0xea),
        efficiency: RGBColor(0xff, 0xa3, 0x48),
        low_power: RGBColor(0xdc, 0x8a, 0xdd),
        untyped: RGBColor(0xc0, 0xbf, 0xbc),
        settings: [
            RGBColor(0x62, 0xa0, 0xea),
            RGBColor(0xff, 0xa3, 0x48),
            RGBColor(0x57, 0xe3, 0x89),
            RGBColor(0xdc, 0x8a, 0xdd),
        ],
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

    /// The colour of the setting at `index` of a comparison (0 for a plain measurement).
    pub fn setting(&self, index: usize) -> RGBColor {
        self.settings[index % self.settings.len()]
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

    /// libadwaita 1.2's window backgrounds, around the plots' frames.
    const LIGHT_WINDOW: RGBColor = RGBColor(0xfa, 0xfa, 0xfa);
    const DARK_WINDOW: RGBColor = RGBColor(0x24, 0x24, 0x24);

    #[test]
    fn every_line_colour_has_4_5_to_1_against_light_and_dark_backgrounds() {
        for (palette, window) in [
            (Palette::for_dark(false), LIGHT_WINDOW),
            (Palette::for_dark(true), DARK_WINDOW),
        ] {
            let lines = super::super::history::TYPES_IN_ORDER
                .map(|core_type| palette.core(core_type))
                .into_iter()
                .chain((0..4).map(|index| palette.setting(index)));
            for line in lines {
                for behind in [palette.background, window] {
                    let ratio = contrast(line, behind);
                    assert!(ratio >= 4.5, "{line:?} on {behind:?}: {ratio:.2}");
                }
            }
            assert!(contrast(palette.foreground, palette.background) >= 7.0);
        }
        // The check itself: black on white is 21:1, a light grey on white fails.
        assert!((contrast(RGBColor(0, 0, 0), RGBColor(0xff, 0xff, 0xff)) - 21.0).abs() < 0.01);
        assert!(contrast(RGBColor(0xe6, 0x61, 0x00), LIGHT_WINDOW) < 4.5);
    }

    #[test]
    fn settings_have_colours_of_their_own() {
        for palette in [Palette::LIGHT, Palette::DARK] {
            let mut colours = palette.settings.to_vec();
            colours.dedup();
            assert_eq!(colours.len(), 4);
            assert_eq!(palette.setting(4), palette.setting(0));
        }
    }
}
