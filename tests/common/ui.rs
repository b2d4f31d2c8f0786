//! Driving the app in egui_kittest like the JavaScript API does.

use egui_kittest::Harness;
use puffin_lens::app::{PuffinLensApp, UiCommand};
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
