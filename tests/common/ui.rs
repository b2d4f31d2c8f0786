//! Driving the app in egui_kittest like the JavaScript API does.

use super::scenario::scenario;
use egui_kittest::Harness;
use puffin_lens::app::{PuffinLensApp, Settings, Shared, Side, Source, UiCommand};
use puffin_lens::engine::write::puffin::{Compression, Format, write_recording};
use serde_json::Value;
use std::cell::RefCell;
use std::rc::Rc;

/// Runs a `puffinLens.show`/`select`-style command; its `ui()` answer once
/// applied, or the error it was refused with.
pub fn command(h: &mut Harness<'static, PuffinLensApp>, cmd: UiCommand) -> Result<Value, String> {
    let answer: Rc<RefCell<Option<Result<String, String>>>> = Rc::default();
    let slot = answer.clone();
    h.state()
        .shared()
        .borrow_mut()
        .command(cmd, Some(Box::new(move |r| *slot.borrow_mut() = Some(r))));
    h.run_steps(3);
    let result = answer.borrow_mut().take().expect("the command was applied");
    result.map(|ui| serde_json::from_str(&ui).expect("ui() is JSON"))
}

/// What `puffinLens.ui()` returns now.
pub fn ui_now(h: &Harness<'static, PuffinLensApp>) -> Value {
    let json = h
        .state()
        .shared()
        .borrow()
        .ui
        .clone()
        .expect("ui() published");
    serde_json::from_str(&json).expect("JSON")
}

/// The app (1400x900, decoding on this thread) with the scenario open as A;
/// `step_dt` is the time a frame takes (kittest's default is 0.25 s).
pub fn open_scenario(step_dt: Option<f32>) -> Harness<'static, PuffinLensApp> {
    let bytes = write_recording(&scenario(), Format::Pfd4(Compression::Lz4));
    open_with(step_dt, Settings::default(), "s.puffin", bytes)
}

/// The app (1400x900, decoding on this thread) with `settings`, `bytes`
/// open as A (named `name`).
pub fn open_with(
    step_dt: Option<f32>,
    settings: Settings,
    name: &str,
    bytes: Vec<u8>,
) -> Harness<'static, PuffinLensApp> {
    let mut builder = Harness::builder().with_size(egui::vec2(1400.0, 900.0));
    if let Some(dt) = step_dt {
        builder = builder.with_step_dt(dt);
    }
    let mut h = builder.build_eframe(move |cc| {
        PuffinLensApp::with_context(&cc.egui_ctx, Shared::default(), settings.clone())
            .with_threaded_loading(false)
    });
    h.state().open(name, Source::Bytes(bytes), None);
    for _ in 0..100 {
        h.step();
        if h.state().recording(Side::A).is_some() {
            break;
        }
    }
    h.run_steps(2);
    assert!(h.state().recording(Side::A).is_some(), "loaded");
    h
}

/// A real click at `pos`: the pointer moves there, then presses and
/// releases, a frame each (as a person's click arrives).
pub fn click(h: &mut Harness<'static, PuffinLensApp>, pos: egui::Pos2) {
    h.event(egui::Event::PointerMoved(pos));
    h.step();
    for pressed in [true, false] {
        h.event(egui::Event::PointerButton {
            pos,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
        h.step();
    }
}
