//! `ab`: the two builds run alternately on this machine (A B B A …, an order
//! that cancels a linear drift of the machine), each run's recording kept
//! in one folder with a manifest, then judged as `report A1 A2 … --vs B1 B2
//! …` judges several runs a side.
//!
//! Each run is a command that writes its own recording to `{out}` (the
//! tool puts the run's path there), or an app that serves its frames with
//! puffin_http at `--addr`: the tool waits until it listens, skips the
//! warm-up frames, records the frames asked for and stops the app (its
//! process group).

use anyhow::{Context as _, bail};
use puffin_lens::engine::runs_manifest::{self, MANIFEST, Manifest, Run, Side};
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// The order of `runs` runs a side: A B B A, repeated (a linear drift of
/// the machine then weighs on both sides alike).
pub fn order(runs: usize) -> Vec<Side> {
    (0..2 * runs)
        .map(|k| match k % 4 {
            0 | 3 => Side::A,
            _ => Side::B,
        })
        .collect()
}

/// How a run's recording is made.
#[derive(Clone, Debug)]
pub enum Recorder {
    /// The command writes it to `{out}`.
    Out,
    /// The command serves puffin_http at `addr`: `warmup` frames skipped,
    /// then `frames` recorded; `start_timeout_s` to start listening.
    Http {
        addr: String,
        frames: u64,
        warmup: u64,
        start_timeout_s: f64,
    },
}

/// `command` with `{out}` replaced by `out`, quoted for `sh -c`.
fn with_out(command: &str, out: &Path) -> String {
    let quoted = format!("'{}'", out.to_string_lossy().replace('\'', r"'\''"));
    command.replace("{out}", &quoted)
}

/// Checks what can be checked before anything runs: both commands write
/// `{out}`, the folder is new (or empty, or `force`).
pub fn check(
    a: &str,
    b: &str,
    runs: usize,
    out: &Path,
    force: bool,
    recorder: &Recorder,
) -> anyhow::Result<()> {
    for (side, cmd) in [("--a", a), ("--b", b)] {
        match recorder {
            Recorder::Out if !cmd.contains("{out}") => bail!(
                "{side} {cmd:?} does not write its recording: put {{out}} where the command takes \
                 the output file, or give --addr where the app serves puffin_http"
            ),
            Recorder::Http { .. } if cmd.contains("{out}") => bail!(
                "{side} {cmd:?} writes {{out}} while --addr records the app's server: one or the \
                 other"
            ),
            _ => {}
        }
    }
    if cfg!(not(unix)) && matches!(recorder, Recorder::Http { .. }) {
        bail!("--addr starts and stops the app by its process group: a Unix shell is needed");
    }
    if runs == 0 {
        bail!("--runs must be at least 1");
    }
    if out.exists() {
        let empty = out
            .read_dir()
            .with_context(|| format!("{}: not a folder", out.display()))?
            .next()
            .is_none();
        if !empty && !force {
            bail!(
                "{}: exists and is not empty (its runs would be mixed with these): give another \
                 --out, or --force to write over it",
                out.display()
            );
        }
    }
    Ok(())
}

/// A session of runs in `out`: A's and B's recordings so far, and the
/// manifest written after each run.
pub struct Session<'s> {
    a: &'s str,
    b: &'s str,
    out: &'s Path,
    recorder: &'s Recorder,
    manifest: Manifest,
    pub files_a: Vec<PathBuf>,
    pub files_b: Vec<PathBuf>,
}

/// The process group of the app a run started (`--addr`; 0: none), for
/// Ctrl-C to stop it: the app runs in a group of its own, which the
/// terminal's interrupt does not reach.
static RUNNING_GROUP: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
/// Ctrl-C came: the handler stops the app and ends the process.
static INTERRUPTED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// A run that failed because Ctrl-C stopped its app is no failure to
/// report: this thread waits for the handler to end the process.
fn unless_interrupted() {
    while INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst) {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// `kill SIGNAL -- -GROUP`: whether the signal was delivered.
fn kill_group(signal: &str, group: u32) -> bool {
    std::process::Command::new("kill")
        .args([signal, "--", &format!("-{group}")])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

impl<'s> Session<'s> {
    pub fn new(
        a: &'s str,
        b: &'s str,
        out: &'s Path,
        recorder: &'s Recorder,
    ) -> anyhow::Result<Self> {
        std::fs::create_dir_all(out).with_context(|| format!("{}", out.display()))?;
        // Ctrl-C: the running app stopped, the finished runs kept (the
        // manifest is written after each).
        let kept = out.display().to_string();
        let _ = ctrlc::set_handler(move || {
            INTERRUPTED.store(true, std::sync::atomic::Ordering::SeqCst);
            let group = RUNNING_GROUP.load(std::sync::atomic::Ordering::SeqCst);
            if group != 0 && kill_group("-TERM", group) {
                std::thread::sleep(std::time::Duration::from_millis(500));
                kill_group("-KILL", group);
            }
            eprintln!(
                "puffin-lens ab: interrupted; the finished runs are kept in {kept} (its \
                 manifest.json lists them; `puffin-lens report {kept}` judges their pairs)"
            );
            std::process::exit(130);
        });
        Ok(Self {
            a,
            b,
            out,
            recorder,
            manifest: Manifest {
                tool: format!("puffin-lens {}", env!("CARGO_PKG_VERSION")),
                a: a.to_owned(),
                b: b.to_owned(),
                runs_per_side: 0,
                order: Vec::new(),
                runs: Vec::new(),
            },
            files_a: Vec::new(),
            files_b: Vec::new(),
        })
    }

    /// Pairs recorded so far.
    pub fn pairs(&self) -> usize {
        self.files_a.len().min(self.files_b.len())
    }

    /// Runs A and B alternately until each has `runs` (the order A B B A
    /// continued from the runs before), a progress line per run on stderr
    /// and the manifest written after each. A run that fails (cannot
    /// start, exits non-zero, writes no recording) ends the session with an
    /// error naming it; the runs before it are kept in the folder and the
    /// manifest.
    pub fn record_until(&mut self, runs: usize) -> anyhow::Result<()> {
        let done = self.manifest.runs.len();
        self.manifest.runs_per_side = runs;
        self.manifest.order = order(runs);
        write_manifest(self.out, &self.manifest)?;
        let total = self.manifest.order.len();
        for (k, side) in self
            .manifest
            .order
            .clone()
            .into_iter()
            .enumerate()
            .skip(done)
        {
            let (cmd, letter) = match side {
                Side::A => (self.a, "a"),
                Side::B => (self.b, "b"),
            };
            let index = match side {
                Side::A => self.files_a.len(),
                Side::B => self.files_b.len(),
            } + 1;
            let name = format!("{letter}{index}.puffin");
            let path = self.out.join(&name);
            // Absolute: the command may change folder first.
            let command = with_out(cmd, &std::path::absolute(&path).unwrap_or(path.clone()));
            let started_unix_ms = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis());
            let started = Instant::now();
            let what = format!("run {} of {total} ({letter}{index})", k + 1);
            let (status, served) = match self.recorder {
                Recorder::Out => {
                    let status = std::process::Command::new("sh")
                        .arg("-c")
                        .arg(&command)
                        .stdin(std::process::Stdio::null())
                        .status()
                        .with_context(|| format!("{what}: `sh` could not start"))?;
                    (Some(status), Ok(()))
                }
                Recorder::Http { .. } => serve_and_record(&command, &path, self.recorder, &what)?,
            };
            let duration_ms = started.elapsed().as_millis();
            self.manifest.runs.push(Run {
                side,
                index,
                file: name.clone(),
                command: command.clone(),
                started_unix_ms,
                duration_ms,
                exit_code: status.and_then(|s| s.code()),
                recorded: false,
            });
            write_manifest(self.out, &self.manifest)?;
            let kept = || {
                format!(
                    "the {k} run(s) before it are kept in {}",
                    self.out.display()
                )
            };
            if let Err(err) = served {
                unless_interrupted();
                bail!("{what}: {err:#}; {}", kept());
            }
            if let Some(status) = status.filter(|s| !s.success()) {
                unless_interrupted();
                bail!("{what}: `{command}` failed ({status}); {}", kept());
            }
            let frames = match super::load(&path) {
                Ok(d) => d.trace.frames.len(),
                Err(err) => bail!(
                    "{what}: no recording in {}: {err:#}; {}",
                    path.display(),
                    kept()
                ),
            };
            if let Some(run) = self.manifest.runs.last_mut() {
                run.recorded = true;
            }
            write_manifest(self.out, &self.manifest)?;
            eprintln!(
                "puffin-lens ab: run {}/{total}: {} #{index}, {:.2} s, {frames} frames",
                k + 1,
                letter.to_uppercase(),
                duration_ms as f64 / 1e3
            );
            match side {
                Side::A => self.files_a.push(path),
                Side::B => self.files_b.push(path),
            }
        }
        Ok(())
    }
}

/// `--until-decided`: the looks at the gate a session may take, from
/// `first` pairs to at most `max` (each look at least doubles the pairs),
/// so that each look's test runs at `alpha / looks` and the chance of a
/// false trip over the whole session stays at most `alpha` (Bonferroni's
/// spending of alpha over the looks).
pub fn looks(first: usize, max: usize) -> usize {
    let mut n = first.max(1);
    let mut looks = 1;
    while n < max {
        n = (2 * n).min(max);
        looks += 1;
    }
    looks
}

/// The pairs of the next look: the gate's own estimate of what settles its
/// undecided causes, at least twice the pairs so far, at most `max`.
pub fn next_look(pairs: usize, settle: usize, max: usize) -> usize {
    settle.max(2 * pairs).min(max)
}

/// The runs a folder of `ab` holds, paired: A's and B's recordings in
/// their order, as many a side (the pairs its manifest lists as finished,
/// `engine::runs_manifest::finished_pairs`: a session cut short keeps its
/// whole pairs, and says what it left out).
pub fn runs_in(dir: &Path) -> anyhow::Result<(Vec<PathBuf>, Vec<PathBuf>)> {
    let path = dir.join(MANIFEST);
    let text = std::fs::read(&path)
        .with_context(|| format!("{}: not a folder of `ab` runs", path.display()))?;
    let manifest = Manifest::parse(&text)
        .map_err(anyhow::Error::msg)
        .with_context(|| format!("{}", path.display()))?;
    // Only plain names are joined to the folder (runs_manifest::plain_name).
    let found = runs_manifest::finished_pairs(&manifest, |file| dir.join(file).is_file());
    if found.pairs.is_empty() {
        bail!(
            "{}: no finished pair of runs (A: {}, B: {})",
            path.display(),
            found.finished.0,
            found.finished.1
        );
    }
    let pairs = found.pairs.len();
    if pairs != manifest.runs_per_side || !found.unusable.is_empty() {
        let unusable = found.unusable.join(", ");
        eprintln!(
            "puffin-lens: {}: {pairs} finished pair(s) of {} planned; judging those{}",
            dir.display(),
            manifest.runs_per_side,
            if unusable.is_empty() {
                String::new()
            } else {
                format!(" ({unusable})")
            }
        );
    }
    let (a, b) = found.files();
    let join = |files: Vec<String>| files.iter().map(|f| dir.join(f)).collect();
    Ok((join(a), join(b)))
}

/// Starts `command` (an app serving puffin_http at the recorder's address)
/// in its own process group, waits until it listens, records its frames to
/// `path`, and stops the group. The command's exit status when it ended by
/// itself (`None` when stopped), and whether the recording was made.
#[cfg(unix)]
fn serve_and_record(
    command: &str,
    path: &Path,
    recorder: &Recorder,
    what: &str,
) -> anyhow::Result<(Option<std::process::ExitStatus>, anyhow::Result<()>)> {
    use std::os::unix::process::CommandExt as _;
    use std::time::Duration;
    let Recorder::Http {
        addr,
        frames,
        warmup,
        start_timeout_s,
    } = recorder
    else {
        bail!("{what}: not a puffin_http run")
    };
    // Something serving there already (another app, a run that did not
    // stop) would be recorded in the run's place.
    if std::net::TcpStream::connect(addr.as_str()).is_ok() {
        bail!(
            "{what}: {addr} is in use before the run started (another app, or one that did not \
             stop): stop it, or give another --addr"
        );
    }
    let mut child = std::process::Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(std::process::Stdio::null())
        .process_group(0)
        .spawn()
        .with_context(|| format!("{what}: `sh` could not start"))?;
    let group = child.id();
    RUNNING_GROUP.store(group, std::sync::atomic::Ordering::SeqCst);
    // The app and whatever it started: TERM, then KILL after 2 s; done when
    // no process of the group is left (the next run's app needs the port).
    let kill = |signal: &str| kill_group(signal, group);
    let stop = |child: &mut std::process::Child| {
        for signal in ["-TERM", "-KILL"] {
            kill(signal);
            let deadline = Instant::now() + Duration::from_secs(2);
            while Instant::now() < deadline {
                // Reaped, so that a finished shell is no member left.
                let _ = child.try_wait();
                if !kill("-0") {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        let _ = child.wait();
        RUNNING_GROUP.store(0, std::sync::atomic::Ordering::SeqCst);
    };
    // Listening: a connection accepted, the command ended first, or the
    // time-out.
    let started = Instant::now();
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            let err = anyhow::anyhow!(
                "`{command}` exited ({status}) before serving puffin_http at {addr}"
            );
            return Ok((Some(status), Err(err)));
        }
        if std::net::TcpStream::connect(addr.as_str()).is_ok() {
            break;
        }
        if started.elapsed().as_secs_f64() > *start_timeout_s {
            stop(&mut child);
            let err = anyhow::anyhow!(
                "`{command}` did not serve puffin_http at {addr} within {start_timeout_s} s \
                 (--start-timeout)"
            );
            return Ok((None, Err(err)));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let never = std::sync::atomic::AtomicBool::new(false);
    // No whole-run limit: a run takes what its frames take; an app that
    // stops sending frames for --start-timeout is one that hangs.
    let capture = |frames: u64| {
        let stall = Some(*start_timeout_s);
        super::live::capture_until_stalled(addr, Some(frames), None, stall, &never, false)
    };
    let recorded = (|| -> anyhow::Result<()> {
        if *warmup > 0 {
            let warm = capture(*warmup).context("the warm-up frames")?;
            if let Some(why) = warm.broke {
                bail!("the warm-up frames: {why}");
            }
        }
        let captured = capture(*frames)?;
        if let Some(why) = captured.broke {
            bail!("the stream broke after {} frames: {why}", captured.frames);
        }
        std::fs::write(path, &captured.bytes).with_context(|| format!("{}", path.display()))
    })();
    let ended = child.try_wait().ok().flatten();
    stop(&mut child);
    Ok((ended, recorded))
}

#[cfg(not(unix))]
fn serve_and_record(
    _command: &str,
    _path: &Path,
    _recorder: &Recorder,
    what: &str,
) -> anyhow::Result<(Option<std::process::ExitStatus>, anyhow::Result<()>)> {
    bail!("{what}: --addr needs a Unix shell")
}

fn write_manifest(out: &Path, manifest: &Manifest) -> anyhow::Result<()> {
    let path = out.join(MANIFEST);
    let text = serde_json::to_string_pretty(manifest)? + "\n";
    std::fs::write(&path, text).with_context(|| format!("{}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_order_alternates_in_abba_blocks() {
        use Side::{A, B};
        assert_eq!(order(1), [A, B]);
        assert_eq!(order(2), [A, B, B, A]);
        assert_eq!(order(3), [A, B, B, A, A, B]);
        for n in 1..20 {
            let o = order(n);
            assert_eq!(o.iter().filter(|s| **s == A).count(), n);
            assert_eq!(o.iter().filter(|s| **s == B).count(), n);
        }
    }

    #[test]
    fn looks_double_the_pairs_up_to_the_budget() {
        assert_eq!(looks(3, 3), 1);
        assert_eq!(looks(3, 20), 4); // 3, 6, 12, 20
        assert_eq!(looks(2, 16), 4); // 2, 4, 8, 16
        assert_eq!(next_look(3, 4, 20), 6);
        assert_eq!(next_look(3, 15, 20), 15);
        assert_eq!(next_look(12, 40, 20), 20);
    }

    #[test]
    fn the_output_path_is_quoted_for_the_shell() {
        let cmd = with_out("app --record {out}", Path::new("/tmp/it's here/a1.puffin"));
        assert_eq!(cmd, r"app --record '/tmp/it'\''s here/a1.puffin'");
    }
}
