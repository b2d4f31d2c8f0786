//! Installing: the Linux desktop integration (under a temporary
//! XDG_DATA_HOME) and what `cargo package` ships.

mod common;

use common::{code, stderr};
use std::path::Path;
use std::process::Command;

fn puffin_lens(data: &Path, config: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_puffin-lens"))
        .args(args)
        .env("XDG_DATA_HOME", data)
        .env("XDG_CONFIG_HOME", config)
        .output()
        .expect("runs")
}

fn installed(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn install_desktop_registers_the_puffin_type_and_uninstall_removes_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (data, config) = (tmp.path().join("data"), tmp.path().join("config"));
    let out = puffin_lens(&data, &config, &["install-desktop"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));

    let desktop = std::fs::read_to_string(data.join("applications/puffin-lens.desktop")).unwrap();
    let exe = Path::new(env!("CARGO_BIN_EXE_puffin-lens"))
        .canonicalize()
        .unwrap();
    assert!(desktop.starts_with("[Desktop Entry]\n"));
    assert!(
        desktop.contains(&format!("Exec=\"{}\" open %F\n", exe.display())),
        "{desktop}"
    );
    assert!(desktop.contains("MimeType=application/x-puffin;\n"));
    assert!(desktop.contains("Icon=puffin-lens\n"));
    let mime = std::fs::read_to_string(data.join("mime/packages/puffin-lens.xml")).unwrap();
    assert!(mime.contains("<mime-type type=\"application/x-puffin\">"));
    assert!(mime.contains("<glob pattern=\"*.puffin\"/>"));
    assert!(mime.contains("<match type=\"string\" value=\"PUF0\" offset=\"0\"/>"));
    let icon = std::fs::read(data.join("icons/hicolor/256x256/apps/puffin-lens.png")).unwrap();
    assert_eq!(&icon[1..4], b"PNG");

    // shared-mime-info compiled the type: by glob and by magic.
    if installed("update-mime-database") {
        let globs = std::fs::read_to_string(data.join("mime/globs2")).unwrap();
        assert!(globs.contains("application/x-puffin:*.puffin"), "{globs}");
        let magic = std::fs::read(data.join("mime/magic")).unwrap();
        assert!(magic.windows(4).any(|w| w == b"PUF0"));
        assert!(data.join("mime/application/x-puffin.xml").exists());
    } else {
        eprintln!("update-mime-database not installed: the compiled database is not checked");
    }
    // xdg-mime makes it the default for the type and reads it back.
    if installed("xdg-mime") {
        let xdg = |args: &[&str]| {
            Command::new("xdg-mime")
                .args(args)
                .env("XDG_DATA_HOME", &data)
                .env("XDG_CONFIG_HOME", &config)
                .env("XDG_CURRENT_DESKTOP", "X-Generic")
                .output()
                .expect("runs xdg-mime")
        };
        let set = xdg(&["default", "puffin-lens.desktop", "application/x-puffin"]);
        assert!(
            set.status.success(),
            "{}",
            String::from_utf8_lossy(&set.stderr)
        );
        let query = xdg(&["query", "default", "application/x-puffin"]);
        assert_eq!(
            String::from_utf8_lossy(&query.stdout).trim(),
            "puffin-lens.desktop"
        );
    } else {
        eprintln!("xdg-mime not installed: the default application is not checked");
    }

    let out = puffin_lens(&data, &config, &["install-desktop", "--uninstall"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!data.join("applications/puffin-lens.desktop").exists());
    assert!(!data.join("mime/packages/puffin-lens.xml").exists());
    assert!(
        !data
            .join("icons/hicolor/256x256/apps/puffin-lens.png")
            .exists()
    );
    if installed("update-mime-database") {
        assert!(!data.join("mime/application/x-puffin.xml").exists());
    }
}

#[test]
fn the_package_holds_what_a_build_needs_and_no_big_captures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new(env!("CARGO"))
        .args(["package", "--list", "--allow-dirty", "--offline"])
        .current_dir(root)
        .output()
        .expect("runs cargo package");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let list = String::from_utf8(out.stdout).unwrap();
    let files: Vec<&str> = list.lines().collect();
    for needed in [
        "Cargo.toml",
        "Cargo.lock",
        "README.md",
        "src/main.rs",
        "src/lib.rs",
        "src/engine/read/puffin.rs",
        "samples/threads_demo.puffin",
        "web/icons/puffin-lens-256.png",
        "index.html",
        "Trunk.toml",
        "web/sw.js",
        "web/manifest.webmanifest",
    ] {
        assert!(files.contains(&needed), "{needed} is not packaged");
    }
    for f in &files {
        assert!(
            !f.starts_with("target/") && !f.starts_with("dist/") && !f.contains("node_modules/"),
            "{f} is packaged"
        );
        let path = root.join(f);
        if let Ok(meta) = std::fs::metadata(&path) {
            assert!(meta.len() < 4 << 20, "{f} is {} bytes", meta.len());
        }
    }
}
