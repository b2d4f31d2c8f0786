//! What differs between the desktop and the browser: picking files and
//! saving them.

use super::shared::Shared;
#[cfg(not(target_arch = "wasm32"))]
use super::{loader::Source, shared::Incoming};

/// Opens the file picker; the chosen files arrive through `shared`.
pub fn pick_files(shared: &Shared) {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let picked = rfd::FileDialog::new()
            .set_title("Open a .puffin recording or JSON dump")
            .add_filter("puffin recordings and JSON dumps", &["puffin", "json"])
            .add_filter("all files", &["*"])
            .pick_files();
        let mut state = shared.borrow_mut();
        for path in picked.unwrap_or_default() {
            state.push(Incoming {
                name: file_name(&path.to_string_lossy()),
                source: Source::Path(path),
                side: None,
                on_done: None,
            });
        }
    }
    #[cfg(target_arch = "wasm32")]
    {
        let shared = shared.clone();
        wasm_bindgen_futures::spawn_local(async move {
            let picked = rfd::AsyncFileDialog::new()
                .add_filter("puffin recordings and JSON dumps", &["puffin", "json"])
                .pick_files()
                .await;
            for file in picked.unwrap_or_default() {
                let name = file.file_name();
                let result = crate::web::read_file(file.inner()).await;
                shared.borrow_mut().open_read(name, result);
            }
        });
    }
}

/// Hands `bytes` to the user as a file named `name`: a save dialog on the
/// desktop (`Ok(false)` when cancelled), a download in the browser.
pub fn save_file(name: &str, mime: &str, bytes: &[u8]) -> Result<bool, String> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = mime;
        let Some(path) = rfd::FileDialog::new().set_file_name(name).save_file() else {
            return Ok(false);
        };
        std::fs::write(&path, bytes)
            .map(|()| true)
            .map_err(|err| format!("{}: cannot write: {err}", path.display()))
    }
    #[cfg(target_arch = "wasm32")]
    {
        crate::web::download(name, mime, bytes).map(|()| true)
    }
}

/// The last component of a path or URL (without a query string).
pub fn file_name(path: &str) -> String {
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let name = path
        .rsplit(['/', '\\'])
        .find(|s| !s.is_empty())
        .unwrap_or("recording.puffin");
    name.to_owned()
}
