//! `puffin-lens`: the command-line entry point (thin; see `cli`).

mod cli;

fn main() {
    std::process::exit(cli::main());
}
