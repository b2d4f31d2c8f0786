//! `install-desktop`: Linux desktop integration under the user's data
//! folder (`$XDG_DATA_HOME`, else `~/.local/share`): a `.desktop` entry, a
//! shared-mime-info type for `.puffin` files (glob and the `PUF0` magic) and
//! the icon, so file managers open recordings with puffin-lens.

use super::EXIT_OK;
use anyhow::Context as _;
use std::path::{Path, PathBuf};

/// The MIME type of `.puffin` recordings.
pub const MIME_TYPE: &str = "application/x-puffin";

const ICON: &[u8] = include_bytes!("../../web/icons/puffin-lens-256.png");

fn data_home() -> anyhow::Result<PathBuf> {
    if let Some(dir) = std::env::var_os("XDG_DATA_HOME").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .context("neither XDG_DATA_HOME nor HOME is set: no user data folder to install into")?;
    Ok(PathBuf::from(home).join(".local/share"))
}

/// The files, relative to the data folder, and their contents.
fn files(exe: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    // Exec quoting (Desktop Entry spec): double quotes, with `"`, `` ` ``,
    // `$` and `\` escaped.
    let mut quoted = String::from("\"");
    for c in exe.to_string_lossy().chars() {
        if matches!(c, '"' | '`' | '$' | '\\') {
            quoted.push('\\');
        }
        quoted.push(c);
    }
    quoted.push('"');
    let desktop = format!(
        "[Desktop Entry]\n\
         Type=Application\n\
         Name=puffin-lens\n\
         GenericName=Profile viewer\n\
         Comment=Analyze .puffin profiler recordings: frames, call trees, timelines, comparisons\n\
         Exec={quoted} open %F\n\
         Icon=puffin-lens\n\
         Terminal=false\n\
         Categories=Development;Profiling;\n\
         MimeType={MIME_TYPE};\n\
         Keywords=puffin;profiler;profile;trace;flamegraph;\n"
    );
    let mime = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <mime-info xmlns=\"http://www.freedesktop.org/standards/shared-mime-info\">\n\
         \x20 <mime-type type=\"{MIME_TYPE}\">\n\
         \x20   <comment>puffin profiler recording</comment>\n\
         \x20   <icon name=\"puffin-lens\"/>\n\
         \x20   <magic priority=\"60\">\n\
         \x20     <match type=\"string\" value=\"PUF0\" offset=\"0\"/>\n\
         \x20   </magic>\n\
         \x20   <glob pattern=\"*.puffin\"/>\n\
         \x20 </mime-type>\n\
         </mime-info>\n"
    );
    vec![
        (
            PathBuf::from("applications/puffin-lens.desktop"),
            desktop.into_bytes(),
        ),
        (
            PathBuf::from("mime/packages/puffin-lens.xml"),
            mime.into_bytes(),
        ),
        (
            PathBuf::from("icons/hicolor/256x256/apps/puffin-lens.png"),
            ICON.to_vec(),
        ),
    ]
}

/// Runs a desktop database tool when installed; says so when it is not.
fn refresh(tool: &str, args: &[&Path]) {
    match std::process::Command::new(tool).args(args).output() {
        Ok(out) if out.status.success() => {}
        Ok(out) => eprintln!(
            "puffin-lens: {tool} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ),
        Err(_) => eprintln!(
            "puffin-lens: {tool} is not installed; the desktop picks the changes up at its next \
             database refresh (Debian: apt install shared-mime-info desktop-file-utils)"
        ),
    }
}

pub fn install_desktop(uninstall: bool) -> anyhow::Result<i32> {
    let data = data_home()?;
    let exe = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .context("cannot find this program's own path")?;
    let files = files(&exe);
    if uninstall {
        for (rel, _) in &files {
            let path = data.join(rel);
            match std::fs::remove_file(&path) {
                Ok(()) => eprintln!("puffin-lens: removed {}", path.display()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    return Err(e).with_context(|| format!("{}: cannot remove", path.display()));
                }
            }
        }
    } else {
        for (rel, bytes) in &files {
            let path = data.join(rel);
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("{}: cannot create", dir.display()))?;
            }
            super::write_atomically(&path, |w| {
                use std::io::Write as _;
                Ok(w.write_all(bytes)?)
            })?;
            eprintln!("puffin-lens: wrote {}", path.display());
        }
    }
    refresh("update-mime-database", &[&data.join("mime")]);
    refresh("update-desktop-database", &[&data.join("applications")]);
    if uninstall {
        eprintln!("puffin-lens: desktop integration removed");
    } else {
        eprintln!(
            "puffin-lens: .puffin files ({MIME_TYPE}) now open with {} (Open With… in file \
             managers; `xdg-mime default puffin-lens.desktop {MIME_TYPE}` makes it the default)",
            exe.display()
        );
    }
    Ok(EXIT_OK)
}
