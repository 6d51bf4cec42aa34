//! `serve_soak`: `toolvet serve` under a steady load for a long time, its
//! memory watched.
//!
//! Starts the real server binary (`target/release/toolvet`, `make cli`) as
//! a child process on loopback for `examples/toolvet.toml` (plugins,
//! decision log and ledger given absolute paths, the log and ledger in a
//! temporary directory; `toolvet_bench::serve_policy_file`), and drives it
//! at a fixed rate with the typical 1 KB `bash` call over keep-alive
//! HTTP/1.1 connections. The load is open-loop: request *i* is due at
//! `i / rate` seconds whether or not earlier ones were answered, and its
//! latency counts from then, so a server that falls behind shows it in
//! the latency and the achieved rate instead of slowing the load down.
//! Every few seconds it reads the child's `VmRSS` from `/proc`.
//!
//! ```text
//! cargo bench -p toolvet-bench --bench serve_soak -- --rate 750                 # 10 minutes: 2 of warm-up, 8 measured
//! cargo bench -p toolvet-bench --bench serve_soak -- --rate 750 --short         # 25 s: 5 of warm-up, 20 measured
//! cargo bench -p toolvet-bench --bench serve_soak -- --rate 750 --seconds 1800 --warmup 300 --sample 10 --json
//! ```
//!
//! `--rate` is requests per second (half the measured maximum of
//! `serve_load` is the soak of issue 17); `--seconds` is the whole run,
//! warm-up included; `--connections` (default 16) is the client's pool;
//! `--toolvet PATH` another binary. Prints the achieved rate, p50/p99/max
//! latency over the measured part, and the RSS at the end of the warm-up
//! (first), at the end (last), its maximum and the drift (last against
//! first). Exits 1 when an answer is not 200 with an `allow` verdict, the
//! achieved rate is under 95 % of `--rate`, or the drift is over
//! `--max-drift` percent (default 10).

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use std::collections::VecDeque;
use std::io::BufRead;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use toolvet_bench::{ONE_KB, memory_kib, percentile, repo_root, serve_call};

const TOKEN: &str = "serve-soak-agent-token-0000000";
const REVIEWER: &str = "serve-soak-reviewer-token-0000";

struct Args {
    rate: f64,
    seconds: f64,
    warmup: f64,
    sample: f64,
    connections: usize,
    max_drift: f64,
    toolvet: PathBuf,
    json: bool,
}

fn usage() -> ! {
    eprintln!(
        "usage: cargo bench -p toolvet-bench --bench serve_soak -- --rate N [--short] \
         [--seconds S] [--warmup S] [--sample S] [--connections N] [--max-drift PCT] \
         [--toolvet PATH] [--json]"
    );
    std::process::exit(2)
}

fn args() -> Args {
    let mut a = Args {
        rate: 0.0,
        seconds: 600.0,
        warmup: 120.0,
        sample: 5.0,
        connections: 16,
        max_drift: 10.0,
        toolvet: repo_root().join("target/release/toolvet"),
        json: false,
    };
    let mut it = std::env::args().skip(1);
    let parse_next = |it: &mut dyn Iterator<Item = String>| -> f64 {
        it.next()
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| usage())
    };
    while let Some(flag) = it.next() {
        let mut number = || parse_next(&mut it);
        match flag.as_str() {
            "--rate" => a.rate = number(),
            "--seconds" => a.seconds = number(),
            "--warmup" => a.warmup = number(),
            "--sample" => a.sample = number(),
            "--connections" => a.connections = number() as usize,
            "--max-drift" => a.max_drift = number(),
            "--short" => {
                a.seconds = 25.0;
                a.warmup = 5.0;
                a.sample = 1.0;
            }
            "--toolvet" => a.toolvet = PathBuf::from(it.next().unwrap_or_else(|| usage())),
            "--json" => a.json = true,
            // cargo bench passes --bench.
            "--bench" => {}
            _ => usage(),
        }
    }
    if !(a.rate > 0.0 && a.seconds > a.warmup && a.warmup >= 0.0 && a.sample > 0.0)
        || a.connections == 0
    {
        usage();
    }
    a
}

/// The server child: its process, address and the last lines it printed.
struct Server {
    child: Child,
    addr: SocketAddr,
    log: Arc<Mutex<VecDeque<String>>>,
}

impl Server {
    fn start(toolvet: &std::path::Path, policy: &std::path::Path) -> Server {
        assert!(
            toolvet.is_file(),
            "{} is missing: run `make cli` first",
            toolvet.display()
        );
        let mut child = Command::new(toolvet)
            .args(["serve", "--config"])
            .arg(policy)
            .args(["--listen", "127.0.0.1:0"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starting toolvet serve");
        let stderr = std::io::BufReader::new(child.stderr.take().unwrap());
        let log = Arc::new(Mutex::new(VecDeque::new()));
        let (ready, address) = std::sync::mpsc::channel();
        let kept = log.clone();
        // Find the address, then keep draining stderr (the last 50 lines).
        std::thread::spawn(move || {
            for line in stderr.lines().map_while(Result::ok) {
                if let Some(rest) = line.strip_prefix("toolvet serve: listening on http://")
                    && let Some(addr) = rest.split_whitespace().next()
                {
                    let _ = ready.send(addr.parse::<SocketAddr>().expect("an address"));
                }
                let mut kept = kept.lock().unwrap();
                if kept.len() == 50 {
                    kept.pop_front();
                }
                kept.push_back(line);
            }
        });
        let addr = match address.recv_timeout(Duration::from_secs(600)) {
            Ok(addr) => addr,
            Err(_) => {
                let _ = child.kill();
                panic!(
                    "toolvet serve did not start:\n{}",
                    Vec::from(log.lock().unwrap().clone()).join("\n")
                );
            }
        };
        Server { child, addr, log }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn is_running(&mut self) -> bool {
        self.child.try_wait().ok().flatten().is_none()
    }

    /// SIGTERM, then wait for the drain; SIGKILL after 30 s.
    #[expect(
        unsafe_code,
        reason = "libc's `kill` sends the SIGTERM the server drains on; std only sends SIGKILL"
    )]
    fn stop(mut self) -> Option<std::process::ExitStatus> {
        let pid = i32::try_from(self.child.id()).expect("a pid");
        // SAFETY: a plain kill(2) on our own child's pid, which has not
        // been reaped yet (so it cannot have been reused).
        unsafe {
            libc::kill(pid, libc::SIGTERM);
        }
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(30) {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        None
    }
}

impl Drop for Server {
    /// A run that panics does not leave the server behind.
    fn drop(&mut self) {
        if self.is_running() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// One answered request: its number (from 0, in the order they are due)
/// and how long after it was due its answer was complete (µs).
#[derive(Clone, Copy)]
struct Done {
    index: u64,
    latency_us: u32,
}

/// What the load saw.
#[derive(Default)]
struct Load {
    done: Vec<Done>,
    failures: u64,
    first_failure: Option<String>,
    last_answer: Option<Instant>,
}

/// The queue of requests due: their numbers and when they are due.
type Due = Arc<tokio::sync::Mutex<tokio::sync::mpsc::UnboundedReceiver<(u64, Instant)>>>;

/// Send each request from `due` on one keep-alive connection,
/// reconnecting after a failure.
async fn worker(addr: SocketAddr, body: Bytes, due: Due) -> Load {
    let mut load = Load::default();
    let mut sender = None;
    loop {
        let Some((index, at)) = due.lock().await.recv().await else {
            return load;
        };
        let outcome = async {
            if sender.is_none() {
                let stream = tokio::net::TcpStream::connect(addr)
                    .await
                    .map_err(|e| format!("connect: {e}"))?;
                stream.set_nodelay(true).map_err(|e| e.to_string())?;
                let (s, connection) =
                    hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
                        .await
                        .map_err(|e| format!("handshake: {e}"))?;
                tokio::spawn(connection);
                sender = Some(s);
            }
            let s = sender.as_mut().expect("connected");
            let request = hyper::Request::post("/v1/check")
                .header("host", "soak")
                .header("authorization", format!("Bearer {TOKEN}"))
                .header("content-type", "application/json")
                .body(Full::new(body.clone()))
                .expect("a request");
            s.ready().await.map_err(|e| format!("connection: {e}"))?;
            let response = s
                .send_request(request)
                .await
                .map_err(|e| format!("sending: {e}"))?;
            let status = response.status();
            let bytes = response
                .into_body()
                .collect()
                .await
                .map_err(|e| format!("reading: {e}"))?
                .to_bytes();
            let verdict: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
            if status != 200 || verdict["decision"] != "allow" {
                return Err(format!(
                    "{status}: {}",
                    String::from_utf8_lossy(&bytes[..bytes.len().min(300)])
                ));
            }
            Ok::<(), String>(())
        }
        .await;
        let now = Instant::now();
        load.last_answer = Some(now);
        match outcome {
            Ok(()) => load.done.push(Done {
                index,
                latency_us: now.duration_since(at).as_micros().min(u128::from(u32::MAX)) as u32,
            }),
            Err(e) => {
                sender = None;
                load.failures += 1;
                load.first_failure.get_or_insert(e);
            }
        }
    }
}

/// One RSS sample: seconds after the start, `VmRSS` in KiB.
#[derive(Clone, Copy)]
struct Sample {
    t_s: f64,
    rss_kib: u64,
}

fn main() {
    let a = args();
    let dir = tempfile::tempdir().unwrap();
    let policy = toolvet_bench::serve_policy_file(
        dir.path(),
        TOKEN,
        REVIEWER,
        "max_concurrent_requests = 4096",
    );
    let mut server = Server::start(&a.toolvet, &policy);
    let pid = server.pid();
    let (rss_start, _) = memory_kib(pid).expect("the server's /proc status");
    let uptime = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    eprintln!(
        "serve_soak: toolvet serve (pid {pid}) on {}, {} req/s for {} s ({} s warm-up), \
         RSS {rss_start} KiB at start; load average {}",
        server.addr,
        a.rate,
        a.seconds,
        a.warmup,
        uptime
            .split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );

    let body = Bytes::from(serde_json::to_vec(&serve_call(ONE_KB)).unwrap());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("load")
        .enable_all()
        .build()
        .unwrap();
    let start = Instant::now() + Duration::from_millis(200);
    let total = (a.rate * a.seconds).round() as u64;

    // The RSS sampler, on its own thread, until the load is done.
    let finished = Arc::new(AtomicBool::new(false));
    let sent = Arc::new(AtomicU64::new(0));
    let sampler = {
        let (finished, sent, every, json) = (
            finished.clone(),
            sent.clone(),
            Duration::from_secs_f64(a.sample),
            a.json,
        );
        let report_every = if a.seconds >= 120.0 { 60.0 } else { 5.0 };
        std::thread::spawn(move || {
            let mut samples = Vec::new();
            let mut next = start;
            let mut reported = 0.0;
            while !finished.load(Ordering::Relaxed) {
                let now = Instant::now();
                if now < next {
                    std::thread::sleep((next - now).min(Duration::from_millis(100)));
                    continue;
                }
                next += every;
                let Some((rss_kib, _)) = memory_kib(pid) else {
                    break;
                };
                let t_s = now.saturating_duration_since(start).as_secs_f64();
                samples.push(Sample { t_s, rss_kib });
                if !json && t_s >= reported + report_every {
                    reported = t_s;
                    eprintln!(
                        "  {t_s:>6.0} s: {} requests sent, RSS {rss_kib} KiB",
                        sent.load(Ordering::Relaxed)
                    );
                }
            }
            samples
        })
    };

    let load = rt.block_on(async {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let rx = Arc::new(tokio::sync::Mutex::new(rx));
        let workers: Vec<_> = (0..a.connections)
            .map(|_| tokio::spawn(worker(server.addr, body.clone(), rx.clone())))
            .collect();
        for i in 0..total {
            let at = start + Duration::from_secs_f64(i as f64 / a.rate);
            tokio::time::sleep_until(at.into()).await;
            if tx.send((i, at)).is_err() {
                break;
            }
            sent.fetch_add(1, Ordering::Relaxed);
        }
        drop(tx);
        let mut load = Load::default();
        for w in workers {
            let l = w.await.expect("a load worker");
            load.done.extend(l.done);
            load.failures += l.failures;
            if load.first_failure.is_none() {
                load.first_failure = l.first_failure;
            }
            load.last_answer = load.last_answer.max(l.last_answer);
        }
        load
    });
    finished.store(true, Ordering::Relaxed);
    let samples = sampler.join().expect("the RSS sampler");
    let (_, rss_peak) = memory_kib(pid).unwrap_or((0, 0));
    let still_running = server.is_running();
    let log = Vec::from(server.log.lock().unwrap().clone());
    let exit = server.stop();

    // The measured part: requests due after the warm-up.
    let warmup_count = (a.rate * a.warmup).ceil() as u64;
    let mut latencies: Vec<u32> = load
        .done
        .iter()
        .filter(|d| d.index >= warmup_count)
        .map(|d| d.latency_us)
        .collect();
    latencies.sort_unstable();
    let measured = latencies.len() as u64;
    let expected = total.saturating_sub(warmup_count);
    let measure_start = start + Duration::from_secs_f64(a.warmup);
    let span = load
        .last_answer
        .map_or(0.0, |t| {
            t.saturating_duration_since(measure_start).as_secs_f64()
        })
        .max(a.seconds - a.warmup);
    let achieved = measured as f64 / span;
    let ms = |p: f64| percentile(&latencies, p).map_or(f64::NAN, |us| f64::from(us) / 1000.0);
    let (p50, p99, max) = (ms(0.5), ms(0.99), ms(1.0));
    let after_warmup: Vec<Sample> = samples
        .iter()
        .copied()
        .filter(|s| s.t_s >= a.warmup)
        .collect();
    let first = after_warmup.first().map_or(0, |s| s.rss_kib);
    let last = after_warmup.last().map_or(0, |s| s.rss_kib);
    let rss_max = after_warmup.iter().map(|s| s.rss_kib).max().unwrap_or(0);
    let drift = if first > 0 {
        (last as f64 - first as f64) / first as f64 * 100.0
    } else {
        f64::NAN
    };
    let loadavg = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let loadavg = loadavg
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ");

    if a.json {
        println!(
            "{}",
            serde_json::json!({
                "rate": a.rate, "seconds": a.seconds, "warmup": a.warmup,
                "connections": a.connections, "body_bytes": body.len(),
                "requests": total, "measured": measured, "failures": load.failures,
                "achieved_per_s": achieved, "p50_ms": p50, "p99_ms": p99, "max_ms": max,
                "rss_kib": {"start": rss_start, "first": first, "last": last,
                            "max": rss_max, "peak": rss_peak, "drift_pct": drift},
                "samples": samples.iter().map(|s| serde_json::json!([s.t_s, s.rss_kib])).collect::<Vec<_>>(),
                "load_average_end": loadavg,
            })
        );
    } else {
        println!(
            "{total} requests of {} bytes at {} req/s over {} s ({} s warm-up), {} connections",
            body.len(),
            a.rate,
            a.seconds,
            a.warmup,
            a.connections
        );
        println!(
            "measured  {measured} verdicts, {achieved:.1} req/s achieved, \
             p50 {p50:.3} ms  p99 {p99:.3} ms  max {max:.3} ms, {} failures",
            load.failures
        );
        println!(
            "RSS       {rss_start} KiB at start, {first} KiB after the warm-up, {last} KiB at the end, \
             max {rss_max} KiB (peak {rss_peak} KiB): drift {drift:+.2} %"
        );
        println!("load average at the end: {loadavg}");
    }

    let mut failed = Vec::new();
    if load.failures > 0 {
        failed.push(format!(
            "{} requests did not get 200 with an allow, the first: {}",
            load.failures,
            load.first_failure.as_deref().unwrap_or("?")
        ));
    }
    if measured != expected {
        failed.push(format!(
            "{measured} of the {expected} measured requests were answered"
        ));
    }
    if achieved < 0.95 * a.rate {
        failed.push(format!(
            "{achieved:.1} req/s achieved, under 95 % of {}",
            a.rate
        ));
    }
    if after_warmup.len() < 2 {
        failed.push("fewer than two RSS samples after the warm-up".into());
    } else if drift.is_nan() || drift.abs() > a.max_drift {
        failed.push(format!(
            "RSS drift {drift:+.2} % is over ±{} %",
            a.max_drift
        ));
    }
    if !still_running {
        failed.push("the server exited during the run".into());
    }
    if !exit.is_some_and(|s| s.success()) {
        failed.push(format!(
            "the server did not stop cleanly on SIGTERM ({exit:?})"
        ));
    }
    if !failed.is_empty() {
        for f in &failed {
            eprintln!("serve_soak: {f}");
        }
        eprintln!("the server's last lines:\n{}", log.join("\n"));
        std::process::exit(1);
    }
}
