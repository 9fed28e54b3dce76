// SPDX-License-Identifier: GPL-3.0-or-later
//! Unit tests of `frequency`.

use std::time::Duration;

use pacer_core::values::CoreType;
use plotters::style::RGBColor;
use relm4::gtk::cairo::{Context, Format, ImageSurface};

use super::super::canvas::testing::{count_pixels, render};
use super::super::history::testing::hybrid_history;
use super::super::history::FrequencyHistory;
use super::super::palette::Palette;
use super::mesh::{axis_top_ghz, format_ghz};
use super::row_run::RowRun;
use super::{FrequencyLayers, FrequencyMarks};

const W: u32 = 640;
const H: u32 = 280;
/// Well inside the plotting area, below the legend and right of the tick labels.
const INSIDE: ((usize, usize), (usize, usize)) = ((80, 40), (600, 230));

fn draw_light(history: &FrequencyHistory, marks: &[FrequencyMarks]) -> ImageSurface {
    render(W, H, |cr| {
        FrequencyLayers::default().draw(cr, W, H, history, marks, &Palette::LIGHT)
    })
}

#[test]
fn kept_layers_draw_what_fresh_ones_do() {
    let marks = [FrequencyMarks {
        core_type: Some(CoreType::Performance),
        min_khz: Some(400_000),
        base_khz: Some(2_100_000),
        max_khz: Some(4_700_000),
    }];
    let mut layers = FrequencyLayers::default();
    let mut history = hybrid_history(100, |cpu, n| {
        Some(1_000_000 + (cpu as u32 + n as u32) * 10_000)
    });
    let data = |history: &FrequencyHistory, layers: &mut FrequencyLayers| {
        let mut surface = render(W, H, |cr| {
            layers.draw(cr, W, H, history, &marks, &Palette::LIGHT)
        });
        let bytes = surface.data().unwrap().to_vec();
        bytes
    };
    let first = data(&history, &mut layers);
    history.push(Duration::from_secs(11), &[Some(2_500_000); 4]);
    let kept = data(&history, &mut layers);
    assert_ne!(first, kept, "the new sample is drawn");
    assert!(kept == data(&history, &mut FrequencyLayers::default()));
}

#[test]
fn lines_kept_from_frame_to_frame_draw_what_fresh_ones_do() {
    // Samples 200 ms apart (two columns each at this width), now and then unknown, with a
    // pause of 10 s and one longer than the plot's minute; the ring of columns wraps
    // around several times. The history reaches further back than the minute, so that a
    // fresh drawing knows what entered from the left edge too.
    let mut history = hybrid_history(0, |_, _| None);
    let mut layers = FrequencyLayers::default();
    let mut at = Duration::ZERO;
    let mut compared = 0;
    for n in 0..480u32 {
        at += Duration::from_millis(match n {
            150 => 10_000,
            300 => 75_000,
            _ => 200,
        });
        let khz: Vec<_> = (0..4u32)
            .map(|cpu| {
                ((n + cpu) % 23 != 0).then_some(800_000 + (n * 7_919 + cpu * 104_729) % 3_900_000)
            })
            .collect();
        history.push(at, &khz);
        let kept = render(W, H, |cr| {
            layers.draw(cr, W, H, &history, &[], &Palette::DARK)
        });
        if n % 20 == 19 || (148..=152).contains(&n) || (298..=302).contains(&n) {
            let fresh = render(W, H, |cr| {
                FrequencyLayers::default().draw(cr, W, H, &history, &[], &Palette::DARK)
            });
            let (mut kept, mut fresh) = (kept, fresh);
            let kept = kept.data().unwrap().to_vec();
            assert!(kept == fresh.data().unwrap().to_vec(), "after sample {n}");
            compared += 1;
        }
    }
    assert_eq!(compared, 33);
    // The lines were there to compare.
    let mut last = render(W, H, |cr| {
        layers.draw(cr, W, H, &history, &[], &Palette::DARK)
    });
    let (from, to) = INSIDE;
    assert!(count_pixels(&mut last, Palette::DARK.performance, from, to) > 300);
}

#[test]
fn a_cleared_history_leaves_no_line_behind() {
    // Between 1 and 3 GHz from one sample to the next: steep, so whole pixels are inked.
    let khz = |n: u64| Some(if n % 2 == 0 { 1_000_000 } else { 3_000_000 });
    let mut history = hybrid_history(300, |_, n| khz(n));
    let mut layers = FrequencyLayers::default();
    let draw = |history: &FrequencyHistory, layers: &mut FrequencyLayers| {
        let mut surface = render(W, H, |cr| {
            layers.draw(cr, W, H, history, &[], &Palette::LIGHT)
        });
        let (from, to) = INSIDE;
        let inked = count_pixels(&mut surface, Palette::LIGHT.performance, from, to);
        let pixels = surface.data().unwrap().to_vec();
        (inked, pixels)
    };
    assert!(draw(&history, &mut layers).0 > 300);
    // Sampling starts again later, as after the window was hidden; the same highest
    // frequency keeps the axes, so only the lines can differ.
    history.clear();
    history.push(Duration::from_secs(40), &[khz(1); 4]);
    history.push(Duration::from_millis(40_100), &[khz(2); 4]);
    let (inked, after) = draw(&history, &mut layers);
    assert!(inked < 10, "{inked}");
    assert!(after == draw(&history, &mut FrequencyLayers::default()).1);
}

#[test]
fn a_layer_keeps_only_its_rows_in_use() {
    let mut layer = ImageSurface::create(Format::ARgb32, 3, 10).unwrap();
    {
        let mut data = layer.data().unwrap();
        let stride = 12;
        for (row, x) in [(2, 0), (3, 2), (7, 1), (9, 2)] {
            data[row * stride + x * 4..][..4].copy_from_slice(&[1, 2, 3, 4]);
        }
    }
    let runs = RowRun::all_in(layer).unwrap();
    let shape: Vec<_> = runs
        .iter()
        .map(|run| (run.top, run.image.height()))
        .collect();
    assert_eq!(shape, [(2, 2), (7, 1), (9, 1)]);
    let mut second_row_of_first = runs.into_iter().next().unwrap().image;
    let data = second_row_of_first.data().unwrap();
    assert_eq!(&data[12 + 8..12 + 12], [1, 2, 3, 4]);
}

#[test]
fn draws_each_core_type_in_its_colour() {
    // P-cores at 3 GHz, E-cores moving between 1 and 2 GHz.
    let history = hybrid_history(600, |cpu, n| {
        Some(if cpu < 2 {
            3_000_000
        } else {
            1_000_000 + (n % 50) as u32 * 20_000
        })
    });
    let mut surface = draw_light(&history, &[]);
    let (from, to) = INSIDE;
    assert!(count_pixels(&mut surface, Palette::LIGHT.performance, from, to) > 300);
    assert!(count_pixels(&mut surface, Palette::LIGHT.efficiency, from, to) > 300);
    assert_eq!(
        count_pixels(&mut surface, Palette::LIGHT.low_power, from, to),
        0
    );
}

#[test]
fn draws_the_limits_as_lines_of_the_type_colour() {
    let history = hybrid_history(0, |_, _| None);
    let marks = [FrequencyMarks {
        core_type: Some(CoreType::Performance),
        min_khz: Some(800_000),
        base_khz: None,
        max_khz: Some(4_700_000),
    }];
    let mut surface = draw_light(&history, &marks);
    let (from, to) = INSIDE;
    // Two dashed lines across the plot, each about 5/8 inked.
    let inked = count_pixels(&mut surface, Palette::LIGHT.performance, from, to);
    assert!(inked > 500, "{inked}");
}

#[test]
fn a_change_is_marked_at_its_moment_from_the_top_edge_down() {
    let history = hybrid_history(0, |_, _| None);
    let foreground = |changes: Vec<f64>| {
        let mut layers = FrequencyLayers::default();
        layers.set_changes(changes);
        let mut surface = render(W, H, |cr| {
            layers.draw(cr, W, H, &history, &[], &Palette::LIGHT)
        });
        let area = layers.area().unwrap().clone();
        // Half way: the column at 30 s ago, and the one at 10 s ago.
        let middle = ((area.left + area.right) / 2.0) as usize;
        let late = (area.right - (area.right - area.left) / 6.0) as usize;
        let (top, bottom) = (area.top as usize, area.bottom as usize);
        let column = |surface: &mut ImageSurface, x: usize| {
            count_pixels(
                surface,
                Palette::LIGHT.foreground,
                (x, top),
                (x + 2, bottom),
            )
        };
        (column(&mut surface, middle), column(&mut surface, late))
    };
    let unmarked = foreground(Vec::new());
    // 90 s ago is before the plot's minute: not drawn.
    let marked = foreground(vec![30.0, 90.0]);
    // The triangle and a dotted line (a dot every four pixels) down the plot.
    assert!(
        marked.0 > unmarked.0 + (H as usize / 8),
        "{unmarked:?} → {marked:?}"
    );
    assert_eq!(marked.1, unmarked.1, "only at its moment");
}

#[test]
fn empty_and_unknown_histories_draw_axes_only() {
    for history in [
        hybrid_history(0, |_, _| None),
        hybrid_history(600, |_, _| None),
        FrequencyHistory::new(Vec::new(), 10),
    ] {
        let mut surface = draw_light(&history, &[]);
        let (from, to) = INSIDE;
        assert_eq!(
            count_pixels(&mut surface, Palette::LIGHT.performance, from, to),
            0
        );
        let axes = count_pixels(&mut surface, Palette::LIGHT.foreground, (0, 0), (640, 280));
        assert!(axes > 200, "{axes}");
    }
}

#[test]
fn a_surface_too_small_for_a_plot_is_left_alone() {
    let history = hybrid_history(10, |_, _| Some(1_000_000));
    let mut surface = render(50, 30, |cr| {
        FrequencyLayers::default().draw(cr, 50, 30, &history, &[], &Palette::DARK)
    });
    let white = RGBColor(255, 255, 255);
    assert_eq!(count_pixels(&mut surface, white, (0, 0), (50, 30)), 50 * 30);
}

#[test]
fn the_axis_reaches_a_little_above_the_highest_mark_or_sample() {
    let empty = hybrid_history(0, |_, _| None);
    assert_eq!(axis_top_ghz(&empty, &[]), 1.0);
    let marks = [FrequencyMarks {
        core_type: None,
        min_khz: Some(400_000),
        base_khz: None,
        max_khz: Some(4_700_000),
    }];
    assert_eq!(axis_top_ghz(&empty, &marks), 5.5);
    let busy = hybrid_history(5, |_, _| Some(5_200_000));
    assert_eq!(axis_top_ghz(&busy, &marks), 6.0);
    assert_eq!(format_ghz(5.0), "5");
    assert_eq!(format_ghz(5.5), "5.5");
}

#[test]
fn draws_sharp_lines_on_a_scaled_target() {
    let history = hybrid_history(600, |cpu, n| {
        (cpu == 0).then_some(1_000_000 + (n % 20) as u32 * 150_000)
    });
    let surface = ImageSurface::create(Format::ARgb32, 2 * W as i32, 2 * H as i32).unwrap();
    surface.set_device_scale(2.0, 2.0);
    let cr = Context::new(&surface).unwrap();
    FrequencyLayers::default()
        .draw(&cr, W, H, &history, &[], &Palette::LIGHT)
        .unwrap();
    drop(cr);
    let mut surface = surface;
    let inked = count_pixels(
        &mut surface,
        Palette::LIGHT.performance,
        (160, 80),
        (1200, 460),
    );
    // Twice as many device pixels per line as at scale 1, none of them doubled up blurrily.
    assert!(inked > 2000, "{inked}");
}
