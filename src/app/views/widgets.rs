//! Small pieces the views share: the virtualized row table and triangles
//! (the bundled fonts have no arrow glyphs).

use crate::engine::analyses::transform::{Target, Transform};
use crate::engine::analyses::{BusyThread, WindowThread};
use crate::units::{ms, thread_label};
use egui::{Color32, Pos2, Sense};
use egui_extras::{Column, TableBuilder};

/// A striped, clickable table of rows (cells laid out left to right) whose
/// first column is a resizable name column `name_width` wide; the caller
/// adds the other columns.
pub fn rows_table<'a>(ui: &'a mut egui::Ui, id: &str, name_width: f32) -> TableBuilder<'a> {
    TableBuilder::new(ui)
        .id_salt(id)
        .striped(true)
        .auto_shrink([false, false])
        .cell_layout(egui::Layout::left_to_right(egui::Align::Center))
        .sense(Sense::click())
        .column(
            Column::initial(name_width)
                .at_least(100.0)
                .clip(true)
                .resizable(true),
        )
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pointing {
    Up,
    Down,
    Right,
}

/// A small filled triangle centred on `c`.
pub fn triangle(ui: &egui::Ui, c: Pos2, pointing: Pointing, color: Color32) {
    let v = egui::vec2;
    let pts = match pointing {
        Pointing::Down => vec![c + v(-4.0, -2.5), c + v(4.0, -2.5), c + v(0.0, 3.5)],
        Pointing::Up => vec![c + v(-4.0, 2.5), c + v(4.0, 2.5), c + v(0.0, -3.5)],
        Pointing::Right => vec![c + v(-2.5, -4.0), c + v(3.5, 0.0), c + v(-2.5, 4.0)],
    };
    ui.painter()
        .add(egui::Shape::convex_polygon(pts, color, egui::Stroke::NONE));
}

/// One line per busy thread of a window: its busy time, then the slowest
/// scopes that ran entirely inside (the `window` query).
pub fn busy_lines(ui: &mut egui::Ui, busy: &[BusyThread], window: &[WindowThread]) {
    for b in busy {
        let top = window
            .iter()
            .find(|w| w.thread == b.thread)
            .map(|w| {
                w.top
                    .iter()
                    .map(|s| format!("{} {} ms", s.name, ms(s.duration_ns)))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default();
        ui.label(format!(
            "{}: busy {} ms{}",
            thread_label(&b.thread),
            ms(b.busy_ns),
            if top.is_empty() {
                String::new()
            } else {
                format!(" — {top}")
            }
        ));
    }
}

/// `text` inside a flame-graph cell, elided in the middle to fit (nothing
/// when even three characters do not).
pub fn cell_label(painter: &egui::Painter, cell: egui::Rect, text: &str, color: Color32) {
    /// Average width of a character of the 11 pt proportional font.
    const CHAR_WIDTH: f32 = 6.2;
    let room = ((cell.width() - 6.0) / CHAR_WIDTH).floor();
    if room >= 3.0 {
        painter.text(
            Pos2::new(cell.left() + 3.0, cell.center().y),
            egui::Align2::LEFT_CENTER,
            crate::units::elide(text, room as usize),
            egui::FontId::proportional(11.0),
            color,
        );
    }
}

/// The focus breadcrumb of a flame graph: "all", then each name of `focus`
/// (the first a thread's); returns how many names to keep when one is
/// clicked (0: "all").
pub fn breadcrumb(ui: &mut egui::Ui, focus: &[String]) -> Option<usize> {
    let mut go_to = None;
    if ui
        .selectable_label(focus.is_empty(), "all")
        .on_hover_text("The whole selection (Esc goes up one level)")
        .clicked()
    {
        go_to = Some(0);
    }
    for (i, name) in focus.iter().enumerate() {
        ui.label(egui::RichText::new("›").weak());
        let shown = if i == 0 { thread_label(name) } else { name };
        if ui.selectable_label(i + 1 == focus.len(), shown).clicked() {
            go_to = Some(i + 1);
        }
    }
    go_to
}

/// `v` as a `u64` in the same order (negative zero before zero, NaN last):
/// sort keys compared as integers, without a comparator.
pub fn f64_order(v: f64) -> u64 {
    let bits = v.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

/// `v` as a `u64` in the same order.
pub fn i64_order(v: i64) -> u64 {
    (v as u64) ^ (1 << 63)
}

/// The transforms' keys on the selected row of the merged tree (the menu's
/// labels say them): (operation, key, with Shift).
pub const TRANSFORM_KEYS: [(&str, egui::Key, bool); 7] = [
    ("merge", egui::Key::M, false),
    ("focus", egui::Key::F, false),
    ("focus-function", egui::Key::F, true),
    ("collapse", egui::Key::C, false),
    ("collapse-recursion", egui::Key::R, false),
    ("drop", egui::Key::D, false),
    ("split-data", egui::Key::S, false),
];

/// The transforms menu of a node (right-click on a row or a bar): what
/// [`Target::offers`] for it; the transform clicked.
pub fn transform_menu(ui: &mut egui::Ui, target: &Target) -> Option<Transform> {
    let mut picked = None;
    ui.label(egui::RichText::new("Transform the call tree").weak());
    for (label, t) in target.offers() {
        let tip = match &t {
            Transform::Merge(_) => "Hide it: its own time goes to its caller, its callees move up",
            Transform::Focus(_) => "Show only this subtree, as the root",
            Transform::FocusFunction(_) => "Every call of it, wherever it is, as one root",
            Transform::Collapse(_) => "Fold its subtree into its own time",
            Transform::CollapseCrate(_) => "One node per run of scopes from this crate",
            Transform::CollapseRecursion(_) => "Merge it into itself where it calls itself",
            Transform::Drop(_) => "Remove it and its subtree, and their time",
            Transform::SplitData(_) => "One node per data string (which mesh, which event)",
            Transform::OnlyMyCode => "",
        };
        // The tree's keys for it, on a selected row.
        let key = TRANSFORM_KEYS
            .iter()
            .find(|(op, _, _)| *op == t.op())
            .map(|(_, k, shift)| format!("  ({}{})", if *shift { "Shift+" } else { "" }, k.name()));
        let label = format!("{label}{}", key.unwrap_or_default());
        if ui.button(label).on_hover_text(tip).clicked() {
            picked = Some(t);
            ui.close();
        }
    }
    picked
}
