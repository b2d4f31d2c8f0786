//! `puffin-lens`: the entry point (thin). Natively the command-line tool,
//! which opens the desktop app without a subcommand; in the browser the web
//! app (see `puffin_lens::web`).

#[cfg(not(target_arch = "wasm32"))]
mod cli;

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    std::process::exit(cli::main());
}

#[cfg(target_arch = "wasm32")]
fn main() {
    puffin_lens::web::start();
}
