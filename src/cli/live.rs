//! Live capture from the command line: `record` (save a running app's
//! frames to a file) and `relay` (its stream over a WebSocket, for the web
//! app, which cannot open TCP connections).

use super::{EXIT_BAD_INPUT, EXIT_DAMAGED, EXIT_OK, write_atomically};
use anyhow::Context as _;
use puffin_lens::engine::read::live::Message;
use puffin_lens::engine::read::live_tcp::{self, LiveSink, LiveStatus};
use puffin_lens::engine::record;
use puffin_lens::engine::record::capture::{Captured, Tick, Until};
use puffin_lens::engine::write::escape;
use std::io::{IsTerminal as _, Write as _};
use std::net::{SocketAddr, TcpListener};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Sets `flag` on Ctrl-C (once per process).
fn on_ctrl_c(flag: &Arc<AtomicBool>) {
    let flag = flag.clone();
    // Fails only when a handler is already set (never, in this process).
    let _ = ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst));
}

pub fn record(
    addr: &str,
    output: &Path,
    frames: Option<u64>,
    seconds: Option<f64>,
) -> anyhow::Result<i32> {
    let interrupted = Arc::new(AtomicBool::new(false));
    on_ctrl_c(&interrupted);
    let terminal = std::io::stderr().is_terminal();
    let captured = capture(addr, frames, seconds, &interrupted, terminal)?;
    write_atomically(output, |w| Ok(w.write_all(&captured.bytes)?))?;
    eprintln!(
        "puffin-lens: saved {} frames ({:.1} MB) to {}",
        captured.frames,
        captured.bytes.len() as f64 / 1e6,
        output.display()
    );
    Ok(match captured.broke {
        Some(why) => {
            eprintln!("puffin-lens: damaged: {why}; the frames before it are saved");
            EXIT_DAMAGED
        }
        None => EXIT_OK,
    })
}

/// Records from the puffin_http server at `addr` until `frames` frames
/// arrived, `seconds` passed, `stop` is set or the app closes the
/// connection (`record`'s capture; the MCP server's `record` tool). Errors
/// when no frame arrived. `progress`: a status line on stderr.
pub(crate) fn capture(
    addr: &str,
    frames: Option<u64>,
    seconds: Option<f64>,
    stop: &AtomicBool,
    progress: bool,
) -> anyhow::Result<Captured> {
    eprintln!(
        "puffin-lens: recording {}{}{} (Ctrl-C stops and saves)",
        live_tcp::with_default_port(addr),
        frames.map_or(String::new(), |n| format!(", {n} frames")),
        seconds.map_or(String::new(), |s| format!(", at most {s} s")),
    );
    let until = Until {
        frames,
        seconds,
        stall_s: None,
    };
    let captured = record::capture::capture(addr, until, stop, &mut |t: &Tick<'_>| {
        if progress {
            eprint!(
                "\r{:>8} frames  {:>9.1} MB  {:>6.1} s  {}   ",
                t.frames,
                t.bytes_received as f64 / 1e6,
                t.elapsed_s,
                t.status.describe(),
            );
            let _ = std::io::stderr().flush();
        }
    });
    if progress {
        eprintln!();
    }
    captured
}

/// An origin that may open the relay's WebSocket besides the loopback ones:
/// `scheme://host[:port]` as a browser serializes it (lowercase, no default
/// port, no path), or the `null` origin of a page opened from a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AllowedOrigin(String);

/// An origin's parts: (scheme, host, port) with the host lowercase and in
/// brackets for IPv6, the port `None` when it is the scheme's default.
fn parse_origin(s: &str) -> Option<(String, String, Option<u16>)> {
    let (scheme, rest) = s.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let default_port = match scheme.as_str() {
        "http" => 80,
        "https" => 443,
        _ => return None,
    };
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    let (host, port) = split_host_port(rest)?;
    let port = match port {
        None => None,
        Some(p) => Some(p.parse::<u16>().ok()?),
    };
    let valid = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '[' | ']' | ':');
    if host.is_empty() || !host.chars().all(valid) {
        return None;
    }
    Some((
        scheme,
        host.to_ascii_lowercase(),
        port.filter(|&p| p != default_port),
    ))
}

/// `host[:port]` (the host of an IPv6 address in brackets) into its parts.
fn split_host_port(s: &str) -> Option<(&str, Option<&str>)> {
    let end_of_host = if s.starts_with('[') {
        s.find(']')? + 1
    } else {
        s.find(':').unwrap_or(s.len())
    };
    let (host, rest) = s.split_at(end_of_host);
    if rest.is_empty() {
        Some((host, None))
    } else {
        Some((host, Some(rest.strip_prefix(':')?)))
    }
}

fn serialize_origin((scheme, host, port): &(String, String, Option<u16>)) -> String {
    match port {
        Some(p) => format!("{scheme}://{host}:{p}"),
        None => format!("{scheme}://{host}"),
    }
}

/// `--allow-origin`'s parser: `null`, or an http(s) origin without a path.
pub fn parse_allowed_origin(s: &str) -> Result<AllowedOrigin, String> {
    if s == "null" {
        return Ok(AllowedOrigin("null".to_owned()));
    }
    if s == "*" {
        return Err(
            "`*` would let every web page read the stream: name the origin that \
                    serves the app (e.g. https://tools.example.com)"
                .to_owned(),
        );
    }
    parse_origin(s)
        .map(|o| AllowedOrigin(serialize_origin(&o)))
        .ok_or_else(|| {
            format!(
                "expected an origin, scheme://host[:port] with http or https and no path \
                 (e.g. https://tools.example.com), or null; got {s:?}"
            )
        })
}

fn is_loopback_host(host: &str) -> bool {
    let host = host.to_ascii_lowercase();
    host == "localhost"
        || host == "[::1]"
        || host
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Who may open the relay's WebSocket (see `relay --help`).
pub struct OriginPolicy {
    allowed: Vec<AllowedOrigin>,
    /// The listener is on a loopback address: the Host header must be one.
    loopback_listener: bool,
}

impl OriginPolicy {
    pub fn new(allowed: &[AllowedOrigin], loopback_listener: bool) -> Self {
        Self {
            allowed: allowed.to_vec(),
            loopback_listener,
        }
    }

    /// Whether a handshake with these `Origin` and `Host` headers may
    /// proceed; the error says why not.
    pub fn check(&self, origin: Option<&str>, host: Option<&str>) -> Result<(), String> {
        if self.loopback_listener {
            let host = host.ok_or("no Host header")?;
            let name = split_host_port(host).map_or("", |(name, _)| name);
            if !is_loopback_host(name) {
                return Err(format!(
                    "Host {:?} is not a loopback address (a DNS-rebinding page?)",
                    escape::visible(host)
                ));
            }
        }
        // Browsers always send an Origin; other clients are not web pages.
        let Some(origin) = origin else {
            return Ok(());
        };
        let shown = escape::visible(origin);
        if self.allowed.iter().any(|a| a.0 == "null") && origin == "null" {
            return Ok(());
        }
        let Some(parts) = parse_origin(origin) else {
            return Err(format!("origin {shown:?} is not allowed"));
        };
        if is_loopback_host(&parts.1) {
            return Ok(());
        }
        let serialized = serialize_origin(&parts);
        if self.allowed.iter().any(|a| a.0 == serialized) {
            return Ok(());
        }
        Err(format!(
            "origin {shown} is not allowed (--allow-origin {shown} serves the app to that site)"
        ))
    }
}

/// The handshake callback: 403 with the reason, unless the policy allows it.
fn check_handshake(
    policy: &OriginPolicy,
    request: &tungstenite::handshake::server::Request,
) -> Result<(), String> {
    let header = |name: &str| {
        request
            .headers()
            .get(name)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
    };
    policy.check(header("origin").as_deref(), header("host").as_deref())
}

// The handshake callback's error is tungstenite's whole HTTP response.
#[allow(clippy::result_large_err)]
pub fn relay(addr: &str, listen: &str, allowed: &[AllowedOrigin]) -> anyhow::Result<i32> {
    let addr = live_tcp::with_default_port(addr);
    let listener = TcpListener::bind(listen).with_context(|| format!("{listen}: cannot listen"))?;
    let local: SocketAddr = listener.local_addr()?;
    let reach = if local.ip().is_loopback() {
        "loopback only: this machine's browsers can connect, other machines cannot"
    } else {
        "ALL NETWORK INTERFACES: any machine that reaches this one can watch the profile"
    };
    let extra: Vec<&str> = allowed.iter().map(|a| a.0.as_str()).collect();
    eprintln!(
        "puffin-lens: relaying {addr} as ws://{local} ({reach})\n\
         puffin-lens: pages served from localhost{}{} may connect\n\
         puffin-lens: open the web app with ?live=ws://{local} (or Connect… and that address); Ctrl-C stops",
        if extra.is_empty() { "" } else { " and " },
        extra.join(", ")
    );
    let policy = Arc::new(OriginPolicy::new(allowed, local.ip().is_loopback()));
    for stream in listener.incoming() {
        let stream = match stream {
            Ok(s) => s,
            Err(err) => {
                eprintln!("puffin-lens: relay: accept failed: {err}");
                continue;
            }
        };
        let addr = addr.clone();
        let policy = policy.clone();
        std::thread::spawn(move || {
            let peer = stream
                .peer_addr()
                .map_or_else(|_| "?".to_owned(), |a| a.to_string());
            let callback =
                |request: &tungstenite::handshake::server::Request,
                 response: tungstenite::handshake::server::Response| {
                    match check_handshake(&policy, request) {
                        Ok(()) => Ok(response),
                        Err(why) => {
                            let mut error =
                                tungstenite::handshake::server::ErrorResponse::new(Some(why));
                            *error.status_mut() = tungstenite::http::StatusCode::FORBIDDEN;
                            Err(error)
                        }
                    }
                };
            match tungstenite::accept_hdr(stream, callback) {
                Ok(ws) => {
                    eprintln!("puffin-lens: relay: {peer} connected");
                    let stop = Arc::new(AtomicBool::new(false));
                    let mut sink = WsSink {
                        ws,
                        gone: stop.clone(),
                    };
                    live_tcp::run(&addr, true, &stop, &mut sink);
                    eprintln!("puffin-lens: relay: {peer} disconnected");
                }
                Err(tungstenite::HandshakeError::Failure(tungstenite::Error::Http(response)))
                    if response.status() == tungstenite::http::StatusCode::FORBIDDEN =>
                {
                    let why =
                        String::from_utf8_lossy(response.body().as_deref().unwrap_or_default());
                    eprintln!("puffin-lens: relay: refused {peer}: {why}");
                }
                Err(err) => eprintln!("puffin-lens: relay: {peer}: not a WebSocket client: {err}"),
            }
        });
    }
    Ok(EXIT_BAD_INPUT)
}

/// Forwards each message as one binary WebSocket message (the version
/// and the record, as on the TCP stream) and each status change as a text
/// message `{"status": …, "message": …}`.
struct WsSink {
    ws: tungstenite::WebSocket<std::net::TcpStream>,
    /// Set when the browser is gone: ends the upstream connection.
    gone: Arc<AtomicBool>,
}

impl WsSink {
    fn alive(&self) -> bool {
        !self.gone.load(Ordering::SeqCst)
    }

    fn send(&mut self, m: tungstenite::Message) {
        if self.alive() && self.ws.send(m).is_err() {
            self.gone.store(true, Ordering::SeqCst);
        }
    }
}

impl LiveSink for WsSink {
    fn bytes(&mut self, _n: usize) {}

    fn message(&mut self, message: &Message<'_>) -> bool {
        let mut bytes = Vec::with_capacity(message.record.len() + 2);
        bytes.extend_from_slice(&message.version.to_le_bytes());
        bytes.extend_from_slice(message.record);
        self.send(tungstenite::Message::binary(bytes));
        self.alive()
    }

    fn status(&mut self, status: LiveStatus) {
        let (kind, message) = status.kind_message();
        let text = serde_json::json!({ "status": kind, "message": message }).to_string();
        self.send(tungstenite::Message::text(text));
    }

    fn idle(&mut self) {
        if self.alive() && self.ws.flush().is_err() {
            self.gone.store(true, Ordering::SeqCst);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allow(list: &[&str]) -> Vec<AllowedOrigin> {
        list.iter()
            .map(|s| parse_allowed_origin(s).unwrap())
            .collect()
    }

    #[test]
    fn allowed_origins_are_normalized_and_validated() {
        assert_eq!(
            parse_allowed_origin("HTTPS://Tools.Example.com:443/")
                .unwrap()
                .0,
            "https://tools.example.com"
        );
        assert_eq!(
            parse_allowed_origin("http://h:8080").unwrap().0,
            "http://h:8080"
        );
        for bad in [
            "*",
            "tools.example.com",
            "ftp://x",
            "https://x/app",
            "https://",
            "https://x:99999",
        ] {
            assert!(parse_allowed_origin(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn loopback_pages_and_allowed_origins_pass_others_do_not() {
        let p = OriginPolicy::new(&allow(&["https://tools.example.com"]), true);
        let host = Some("127.0.0.1:8586");
        for ok in [
            "http://127.0.0.1:8080",
            "http://localhost:1234",
            "https://localhost",
            "http://[::1]:8080",
            "https://tools.example.com",
        ] {
            assert_eq!(p.check(Some(ok), host), Ok(()), "{ok}");
        }
        assert_eq!(p.check(None, host), Ok(()), "not a browser");
        for bad in [
            "http://evil.example",
            "null",
            "https://tools.example.com.evil.example",
            "http://tools.example.com",
            "http://127.0.0.1.evil.example",
            "garbage",
        ] {
            assert!(p.check(Some(bad), host).is_err(), "{bad}");
        }
        for host in ["localhost:8586", "[::1]:8586", "127.0.0.2", "LOCALHOST"] {
            assert_eq!(
                p.check(Some("http://localhost:8080"), Some(host)),
                Ok(()),
                "{host}"
            );
        }
        for host in ["evil.example:8586", "evil.example", "[::2]:1"] {
            assert!(
                p.check(Some("http://localhost:8080"), Some(host)).is_err(),
                "{host}"
            );
        }
        assert!(
            p.check(None, None).is_err(),
            "no Host on a loopback listener"
        );
    }

    #[test]
    fn null_only_when_asked_and_any_host_off_loopback() {
        let p = OriginPolicy::new(&allow(&["null"]), false);
        assert_eq!(p.check(Some("null"), Some("machine.lan:8586")), Ok(()));
        assert!(
            p.check(Some("http://evil.example"), Some("machine.lan"))
                .is_err()
        );
    }
}
