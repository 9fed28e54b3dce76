// SPDX-License-Identifier: GPL-3.0-or-later
//! Unit tests of `ramp`.

use super::super::canvas::testing::{count_pixels, render};
use super::*;

fn curve(setting: usize, core_type: Option<CoreType>, tau_ms: f64) -> RampSeries {
    RampSeries {
        label: Some(format!("tau {tau_ms} ms")),
        setting,
        core_type,
        line: Line::Mean,
        points: (0..30)
            .map(|n| {
                let ms = 10f64.powf(f64::from(n) / 10.0);
                (ms, 100.0 * (1.0 - (-ms / tau_ms).exp()))
            })
            .collect(),
    }
}

fn settings() -> RampChart {
    RampChart {
        series: vec![
            curve(0, Some(CoreType::Performance), 5.0),
            curve(1, Some(CoreType::Performance), 50.0),
            curve(0, Some(CoreType::Efficiency), 30.0),
        ],
        frequency: None,
    }
}

#[test]
fn draws_each_setting_in_its_colour() {
    let chart = settings();
    let mut surface = render(640, 300, |cr| {
        draw_ramp(cr, 640, 300, &chart, &Palette::LIGHT)
    });
    let (from, to) = ((60, 10), (600, 250));
    let [a, b, ..] = Palette::LIGHT.settings;
    assert!(count_pixels(&mut surface, a, from, to) > 300);
    assert!(count_pixels(&mut surface, b, from, to) > 150);
}

#[test]
fn core_types_differ_in_dash_and_marker_and_settings_do_not() {
    let p = Some(CoreType::Performance);
    let e = Some(CoreType::Efficiency);
    assert_ne!(dash_of(p), dash_of(e));
    assert_ne!(marker_of(p), marker_of(e));
    assert!(dash_of(p).is_empty(), "P-cores solid");
    let styles: Vec<&[f64]> = TYPES_IN_ORDER.iter().map(|&t| dash_of(t)).collect();
    for (index, style) in styles.iter().enumerate() {
        assert!(!styles[..index].contains(style), "{styles:?}");
    }
}

#[test]
fn trials_are_faint_and_the_running_trial_and_frequency_show_beneath() {
    let mut trial = curve(0, Some(CoreType::Performance), 5.0);
    trial.line = Line::Trial;
    trial.label = None;
    let running = RampSeries {
        line: Line::Running,
        label: None,
        ..curve(1, Some(CoreType::Performance), 50.0)
    };
    let chart = RampChart {
        series: vec![trial, running],
        frequency: Some(FrequencyTrace {
            label: "CPU 7 (P-core)".into(),
            setting: 2,
            core_type: Some(CoreType::Performance),
            points: (1..100)
                .map(|ms| (f64::from(ms), 800.0 + 40.0 * f64::from(ms)))
                .collect(),
        }),
    };
    let (width, height) = (640, 360);
    let mut surface = render(width, height, |cr| {
        draw_ramp(cr, width, height, &chart, &Palette::LIGHT)
    });
    let [a, b, c, _] = Palette::LIGHT.settings;
    // A faint trial is drawn lighter than the running one.
    let faint = count_pixels(&mut surface, a, (60, 10), (600, 280));
    let running = count_pixels(&mut surface, b, (60, 10), (600, 280));
    assert!(
        running > 150 && faint * 3 < running,
        "{faint} against {running}"
    );
    // The frequency in the strip under the chart, in its setting's colour.
    let strip = (60, (height - STRIP_HEIGHT) as usize);
    assert!(count_pixels(&mut surface, c, strip, (600, height as usize)) > 50);
    // Without room for the strip, the chart alone.
    render(640, 120, |cr| {
        draw_ramp(cr, 640, 120, &chart, &Palette::DARK)
    });
}

#[test]
fn marks_95_percent_with_a_dashed_line() {
    let area = Area {
        left: 0.0,
        right: 200.0,
        top: 0.0,
        bottom: 110.0,
    };
    let mut surface = render(200, 110, |cr| draw_reached_line(cr, &area, &Palette::LIGHT));
    let row = area.y(REACHED_PERCENT) as usize;
    let dashes = count_pixels(
        &mut surface,
        Palette::LIGHT.foreground,
        (0, row),
        (200, row + 1),
    );
    assert!((80..=120).contains(&dashes), "{dashes}");
    // And its label above it.
    let label = count_pixels(
        &mut surface,
        Palette::LIGHT.foreground,
        (0, 0),
        (40, row - 2),
    );
    assert!(label > 10, "{label}");
}

#[test]
fn no_series_and_unusable_points_draw_without_error() {
    let odd = RampSeries {
        label: Some("odd".into()),
        setting: 7,
        core_type: None,
        line: Line::Mean,
        points: vec![
            (0.0, 50.0),
            (-3.0, 10.0),
            (f64::NAN, 1.0),
            (5.0, f64::INFINITY),
        ],
    };
    for series in [vec![], vec![odd]] {
        let chart = RampChart {
            series,
            frequency: None,
        };
        render(640, 300, |cr| {
            draw_ramp(cr, 640, 300, &chart, &Palette::DARK)
        });
    }
}
