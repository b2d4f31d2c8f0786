//! An A/B session: the two builds run alternately on this machine (A B B A
//! …, an order that cancels a linear drift of the machine), each run's
//! recording kept in one folder with a manifest
//! ([`crate::engine::runs_manifest`]), to be judged as pairs (run k of A
//! with run k of B, which met the same machine).
//!
//! A run's recording is made one of three ways ([`Recorder`]):
//! - a command that writes its own recording to `{out}` (the run's path is
//!   put there, quoted for `sh -c`);
//! - a command that starts the app serving puffin_http at an address: the
//!   session waits until it listens, skips the warm-up frames, records the
//!   frames asked for and stops the app (its process group);
//! - two apps already running, A's and B's addresses: each run records the
//!   frames asked for from one of them, alternately.
//!
//! [`Control`] stops a session from another thread (Ctrl-C in the CLI, the
//! Stop button in the desktop app): the app a run started is stopped and
//! the finished runs stay in the folder and its manifest.

use crate::engine::record::capture::{self, Until};
use crate::engine::runs_manifest::{MANIFEST, Manifest, Run, Side};
use anyhow::{Context as _, bail};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

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
    /// then `frames` recorded; `start_timeout_s` to start listening (and
    /// the longest a frame may take to come).
    Http {
        addr: String,
        frames: u64,
        warmup: u64,
        start_timeout_s: f64,
    },
    /// A's and B's "commands" are the addresses of two apps already
    /// running: each run skips `warmup` frames and records `frames` from
    /// one; `stall_s`: the longest a frame may take to come.
    Attached {
        frames: u64,
        warmup: u64,
        stall_s: f64,
    },
}

/// Stops a session from another thread.
#[derive(Debug, Default)]
pub struct Control {
    stopped: AtomicBool,
    /// The process group of the app the running run started (0: none).
    group: AtomicU32,
}

impl Control {
    pub const fn new() -> Self {
        Self {
            stopped: AtomicBool::new(false),
            group: AtomicU32::new(0),
        }
    }

    /// Stops the session: the app the running run started is sent TERM,
    /// then KILL half a second later; the run ends as failed, the runs
    /// before it are kept.
    pub fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        let group = self.group.load(Ordering::SeqCst);
        if group != 0 && kill_group("-TERM", group) {
            std::thread::sleep(Duration::from_millis(500));
            kill_group("-KILL", group);
        }
    }

    pub fn is_stopped(&self) -> bool {
        self.stopped.load(Ordering::SeqCst)
    }
}

/// How a session goes, told as it goes.
#[derive(Clone, Debug)]
pub enum Progress {
    /// Run `run` of `total` started (`name`: a1, b1, …).
    Started {
        run: usize,
        total: usize,
        name: String,
    },
    /// Frames recorded so far in the running run (from a server).
    Frames { run: usize, frames: u64 },
    /// Run `run` of `total` is kept.
    Recorded {
        run: usize,
        total: usize,
        side: Side,
        index: usize,
        duration_ms: u128,
        frames: usize,
    },
}

/// `command` with `{out}` replaced by `out`, quoted for `sh -c`.
fn with_out(command: &str, out: &Path) -> String {
    let quoted = format!("'{}'", out.to_string_lossy().replace('\'', r"'\''"));
    command.replace("{out}", &quoted)
}

/// What the session's settings are called where they are given (the CLI's
/// `--a`, the app's "A").
#[derive(Clone, Copy, Debug)]
pub struct Names {
    pub a: &'static str,
    pub b: &'static str,
    pub runs: &'static str,
    pub out: &'static str,
    pub force: &'static str,
    pub addr: &'static str,
    pub start_timeout: &'static str,
}

/// Checks what can be checked before anything runs: both commands write
/// `{out}` (or serve, or are the addresses of two apps serving now), the
/// folder is new (or empty, or `force`). The error names the setting as
/// `names` calls it.
pub fn check(
    a: &str,
    b: &str,
    runs: usize,
    out: &Path,
    force: bool,
    recorder: &Recorder,
    names: Names,
) -> anyhow::Result<()> {
    for (side, cmd) in [(names.a, a), (names.b, b)] {
        match recorder {
            Recorder::Out if !cmd.contains("{out}") => bail!(
                "{side} {cmd:?} does not write its recording: put {{out}} where the command takes \
                 the output file, or give {} where the app serves puffin_http",
                names.addr
            ),
            Recorder::Http { .. } if cmd.contains("{out}") => bail!(
                "{side} {cmd:?} writes {{out}} while {} records the app's server: one or the \
                 other",
                names.addr
            ),
            Recorder::Attached { .. } if cmd.trim().is_empty() => {
                bail!("{side}: give the address of the app's puffin_http server (host:port)")
            }
            _ => {}
        }
    }
    if cfg!(not(unix)) && matches!(recorder, Recorder::Http { .. }) {
        bail!(
            "{} starts and stops the app by its process group: a Unix shell is needed",
            names.addr
        );
    }
    if let Recorder::Attached { .. } = recorder {
        let full = crate::engine::read::live_tcp::with_default_port;
        if full(a.trim()) == full(b.trim()) {
            bail!(
                "{} and {} are the same address ({}): give A's app and B's app",
                names.a,
                names.b,
                full(a.trim())
            );
        }
    }
    if runs == 0 {
        bail!("{} must be at least 1", names.runs);
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
                 {}, or {} to write over it",
                out.display(),
                names.out,
                names.force
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
    control: &'s Control,
    names: Names,
    manifest: Manifest,
    pub files_a: Vec<PathBuf>,
    pub files_b: Vec<PathBuf>,
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
    /// A session writing into `out` (made when missing); its errors name
    /// the settings as `names` says.
    pub fn new(
        a: &'s str,
        b: &'s str,
        out: &'s Path,
        recorder: &'s Recorder,
        control: &'s Control,
        names: Names,
    ) -> anyhow::Result<Self> {
        std::fs::create_dir_all(out).with_context(|| format!("{}", out.display()))?;
        Ok(Self {
            a,
            b,
            out,
            recorder,
            control,
            names,
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
    /// continued from the runs before), `progress` told of each run and the
    /// manifest written after each. A run that fails (cannot start, exits
    /// non-zero, writes no recording, or the session was stopped) ends the
    /// session with an error naming it; the runs before it are kept in the
    /// folder and the manifest.
    pub fn record_until(
        &mut self,
        runs: usize,
        progress: &mut dyn FnMut(&Progress),
    ) -> anyhow::Result<()> {
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
            let kept = |k: usize| {
                format!(
                    "the {k} run(s) before it are kept in {}",
                    self.out.display()
                )
            };
            if self.control.is_stopped() {
                bail!("stopped before run {} of {total}; {}", k + 1, kept(k));
            }
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
            let command = match self.recorder {
                Recorder::Attached { .. } => cmd.trim().to_owned(),
                _ => with_out(cmd, &std::path::absolute(&path).unwrap_or(path.clone())),
            };
            let started_unix_ms = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_millis());
            let started = Instant::now();
            let what = format!("run {} of {total} ({letter}{index})", k + 1);
            progress(&Progress::Started {
                run: k + 1,
                total,
                name: format!("{letter}{index}"),
            });
            let mut frames_told = |frames: u64| progress(&Progress::Frames { run: k + 1, frames });
            let (status, served) = match self.recorder {
                Recorder::Out => (Some(self.run_command(&command, &what)?), Ok(())),
                Recorder::Http { .. } => {
                    self.serve_and_record(&command, &path, &what, &mut frames_told)?
                }
                Recorder::Attached {
                    frames,
                    warmup,
                    stall_s,
                } => {
                    let recorded = self.record_from(
                        &command,
                        &path,
                        *frames,
                        *warmup,
                        *stall_s,
                        &mut frames_told,
                    );
                    (None, recorded)
                }
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
            if self.control.is_stopped() {
                bail!("stopped in {what}; {}", kept(k));
            }
            if let Err(err) = served {
                bail!("{what}: {err:#}; {}", kept(k));
            }
            if let Some(status) = status.filter(|s| !s.success()) {
                bail!("{what}: `{command}` failed ({status}); {}", kept(k));
            }
            let frames = match std::fs::read(&path)
                .map_err(anyhow::Error::from)
                .and_then(|bytes| crate::engine::load(&bytes).map_err(anyhow::Error::from))
            {
                Ok(d) => d.trace.frames.len(),
                Err(err) => bail!(
                    "{what}: no recording in {}: {err:#}; {}",
                    path.display(),
                    kept(k)
                ),
            };
            if let Some(run) = self.manifest.runs.last_mut() {
                run.recorded = true;
            }
            write_manifest(self.out, &self.manifest)?;
            progress(&Progress::Recorded {
                run: k + 1,
                total,
                side,
                index,
                duration_ms,
                frames,
            });
            match side {
                Side::A => self.files_a.push(path),
                Side::B => self.files_b.push(path),
            }
        }
        Ok(())
    }

    /// `sh -c command` (in a process group of its own, which [`Control`]
    /// stops), to its end.
    fn run_command(&self, command: &str, what: &str) -> anyhow::Result<std::process::ExitStatus> {
        let mut cmd = std::process::Command::new("sh");
        cmd.arg("-c")
            .arg(command)
            .stdin(std::process::Stdio::null());
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd
            .spawn()
            .with_context(|| format!("{what}: `sh` could not start"))?;
        self.control.group.store(child.id(), Ordering::SeqCst);
        let status = child.wait();
        self.control.group.store(0, Ordering::SeqCst);
        status.with_context(|| format!("{what}: `sh` could not be waited for"))
    }

    /// Records `frames` frames (after `warmup`) from the server at `addr`
    /// into `path`.
    fn record_from(
        &self,
        addr: &str,
        path: &Path,
        frames: u64,
        warmup: u64,
        stall_s: f64,
        told: &mut dyn FnMut(u64),
    ) -> anyhow::Result<()> {
        let stop = &self.control.stopped;
        let capture = |frames: u64, told: &mut dyn FnMut(u64)| {
            let until = Until {
                frames: Some(frames),
                seconds: None,
                stall_s: Some(stall_s),
            };
            capture::capture(addr, until, stop, &mut |t| told(t.frames))
        };
        if warmup > 0 {
            let warm = capture(warmup, &mut |_| {}).context("the warm-up frames")?;
            if let Some(why) = warm.broke {
                bail!("the warm-up frames: {why}");
            }
        }
        let captured = capture(frames, told)?;
        if let Some(why) = captured.broke {
            bail!("the stream broke after {} frames: {why}", captured.frames);
        }
        std::fs::write(path, &captured.bytes).with_context(|| format!("{}", path.display()))
    }

    /// Starts `command` (an app serving puffin_http at the recorder's
    /// address) in its own process group, waits until it listens, records
    /// its frames to `path`, and stops the group. The command's exit status
    /// when it ended by itself (`None` when stopped), and whether the
    /// recording was made.
    #[cfg(unix)]
    fn serve_and_record(
        &self,
        command: &str,
        path: &Path,
        what: &str,
        told: &mut dyn FnMut(u64),
    ) -> anyhow::Result<(Option<std::process::ExitStatus>, anyhow::Result<()>)> {
        use std::os::unix::process::CommandExt as _;
        let Recorder::Http {
            addr,
            frames,
            warmup,
            start_timeout_s,
        } = self.recorder
        else {
            bail!("{what}: not a puffin_http run")
        };
        // Something serving there already (another app, a run that did not
        // stop) would be recorded in the run's place.
        if std::net::TcpStream::connect(addr.as_str()).is_ok() {
            bail!(
                "{what}: {addr} is in use before the run started (another app, or one that did \
                 not stop): stop it, or give another address"
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
        self.control.group.store(group, Ordering::SeqCst);
        // The app and whatever it started: TERM, then KILL after 2 s; done
        // when no process of the group is left (the next run's app needs the
        // port).
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
        };
        let ended = (|| {
            // Listening: a connection accepted, the command ended first, or
            // the time-out.
            let started = Instant::now();
            loop {
                if let Ok(Some(status)) = child.try_wait() {
                    let err = anyhow::anyhow!(
                        "`{command}` exited ({status}) before serving puffin_http at {addr}"
                    );
                    return (Some(status), Err(err));
                }
                if self.control.is_stopped() {
                    return (None, Err(anyhow::anyhow!("stopped")));
                }
                if std::net::TcpStream::connect(addr.as_str()).is_ok() {
                    break;
                }
                if started.elapsed().as_secs_f64() > *start_timeout_s {
                    let err = anyhow::anyhow!(
                        "`{command}` did not serve puffin_http at {addr} within \
                         {start_timeout_s} s ({})",
                        self.names.start_timeout
                    );
                    return (None, Err(err));
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            // No whole-run limit: a run takes what its frames take; an app
            // that stops sending frames for the start time-out is one that
            // hangs.
            let recorded = self.record_from(addr, path, *frames, *warmup, *start_timeout_s, told);
            (child.try_wait().ok().flatten(), recorded)
        })();
        stop(&mut child);
        self.control.group.store(0, Ordering::SeqCst);
        Ok(ended)
    }

    #[cfg(not(unix))]
    fn serve_and_record(
        &self,
        _command: &str,
        _path: &Path,
        what: &str,
        _told: &mut dyn FnMut(u64),
    ) -> anyhow::Result<(Option<std::process::ExitStatus>, anyhow::Result<()>)> {
        bail!("{what}: an app started and stopped by its process group needs a Unix shell")
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
