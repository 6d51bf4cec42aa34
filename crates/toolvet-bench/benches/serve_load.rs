//! `serve_load`: the HTTP load benchmark of `toolvet serve`.
//!
//! Starts a server for `examples/toolvet.toml` (decision log and ledger
//! moved into a temporary directory) on loopback, in this process, and
//! drives it with keep-alive HTTP/1.1 connections sending the typical
//! 1 KB `bash` call, for a fixed time. Then, in the same run and on the
//! same host, the same call through `Host::check` in process with as many
//! concurrent callers, for the ratio. Server, load generator and in-process
//! callers share the machine's cores.
//!
//! ```text
//! cargo bench -p toolvet-bench --bench serve_load -- [--connections 32] [--seconds 10] [--server-threads 2] [--json]
//! cargo bench -p toolvet-bench --bench serve_load -- --test    # CI smoke: one second a side
//! ```
//!
//! Prints verdicts/s and latency percentiles for both, and the ratio;
//! `--json` prints one JSON object instead. Exits 1 when `--min-rps` or
//! `--max-p99-ms` is given and missed.

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use std::sync::Arc;
use std::time::{Duration, Instant};
use toolvet_bench::{ONE_KB, serve_call};

struct Args {
    connections: usize,
    seconds: f64,
    warmup: f64,
    server_threads: usize,
    json: bool,
    min_rps: Option<f64>,
    max_p99_ms: Option<f64>,
}

fn args() -> Args {
    let mut a = Args {
        connections: 32,
        seconds: 10.0,
        warmup: 2.0,
        server_threads: 2,
        json: false,
        min_rps: None,
        max_p99_ms: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value =
            || -> String { it.next().unwrap_or_else(|| panic!("{flag} needs a value")) };
        match flag.as_str() {
            "--connections" => a.connections = value().parse().expect("a number"),
            "--seconds" => a.seconds = value().parse().expect("a number"),
            "--warmup" => a.warmup = value().parse().expect("a number"),
            "--server-threads" => a.server_threads = value().parse().expect("a number"),
            "--min-rps" => a.min_rps = Some(value().parse().expect("a number")),
            "--max-p99-ms" => a.max_p99_ms = Some(value().parse().expect("a number")),
            "--json" => a.json = true,
            // cargo bench passes --bench; `--test` is the smoke run.
            "--bench" => {}
            "--test" => {
                a.seconds = 1.0;
                a.warmup = 0.3;
                a.connections = 4;
            }
            other => panic!("unknown argument {other}"),
        }
    }
    a
}

const TOKEN: &str = "serve-load-agent-token-000000";
const REVIEWER: &str = "serve-load-reviewer-token-0000";

/// The example policy for this benchmark's server (see
/// [`toolvet_bench::serve_policy_file`]), room for every connection.
fn policy_file(dir: &std::path::Path) -> std::path::PathBuf {
    toolvet_bench::serve_policy_file(dir, TOKEN, REVIEWER, "max_concurrent_requests = 4096")
}

/// Latencies (µs) and count of one side.
struct Run {
    verdicts: u64,
    seconds: f64,
    latencies_us: Vec<u32>,
}

impl Run {
    fn rps(&self) -> f64 {
        self.verdicts as f64 / self.seconds
    }

    fn percentile(&mut self, p: f64) -> f64 {
        if self.latencies_us.is_empty() {
            return f64::NAN;
        }
        self.latencies_us.sort_unstable();
        let i = ((self.latencies_us.len() as f64 - 1.0) * p).round() as usize;
        f64::from(self.latencies_us[i]) / 1000.0
    }
}

async fn http_load(
    addr: std::net::SocketAddr,
    body: Bytes,
    connections: usize,
    warmup: Duration,
    measure: Duration,
) -> Run {
    let start = Instant::now() + warmup;
    let end = start + measure;
    let mut tasks = Vec::new();
    for _ in 0..connections {
        let body = body.clone();
        tasks.push(tokio::spawn(async move {
            let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
            stream.set_nodelay(true).unwrap();
            let (mut sender, connection) =
                hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
                    .await
                    .unwrap();
            tokio::spawn(connection);
            let mut latencies = Vec::with_capacity(400_000);
            let mut verdicts = 0u64;
            loop {
                let sent = Instant::now();
                if sent >= end {
                    break;
                }
                let request = hyper::Request::post("/v1/check")
                    .header("host", "bench")
                    .header("authorization", format!("Bearer {TOKEN}"))
                    .header("content-type", "application/json")
                    .body(Full::new(body.clone()))
                    .unwrap();
                sender.ready().await.unwrap();
                let response = sender.send_request(request).await.unwrap();
                assert_eq!(response.status(), 200);
                let bytes = response.into_body().collect().await.unwrap().to_bytes();
                let done = Instant::now();
                if sent >= start {
                    let verdict: serde_json::Value =
                        serde_json::from_slice(&bytes).expect("a JSON verdict");
                    assert!(
                        verdict["decision"] == "allow",
                        "not an allow: {}",
                        String::from_utf8_lossy(&bytes)
                    );
                    latencies.push(done.duration_since(sent).as_micros() as u32);
                    verdicts += 1;
                }
            }
            (verdicts, latencies)
        }));
    }
    let mut run = Run {
        verdicts: 0,
        seconds: measure.as_secs_f64(),
        latencies_us: Vec::new(),
    };
    for t in tasks {
        let (n, l) = t.await.unwrap();
        run.verdicts += n;
        run.latencies_us.extend(l);
    }
    run
}

async fn in_process(
    host: toolvet::Host,
    request: toolvet::CallRequest,
    callers: usize,
    warmup: Duration,
    measure: Duration,
) -> Run {
    let start = Instant::now() + warmup;
    let end = start + measure;
    let request = Arc::new(request);
    let mut tasks = Vec::new();
    for _ in 0..callers {
        let (host, request) = (host.clone(), request.clone());
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::with_capacity(400_000);
            let mut verdicts = 0u64;
            loop {
                let sent = Instant::now();
                if sent >= end {
                    break;
                }
                let verdict = host.check(&request).await;
                let done = Instant::now();
                if sent >= start {
                    assert_eq!(verdict.decision, toolvet::Decision::Allow);
                    latencies.push(done.duration_since(sent).as_micros() as u32);
                    verdicts += 1;
                }
            }
            (verdicts, latencies)
        }));
    }
    let mut run = Run {
        verdicts: 0,
        seconds: measure.as_secs_f64(),
        latencies_us: Vec::new(),
    };
    for t in tasks {
        let (n, l) = t.await.unwrap();
        run.verdicts += n;
        run.latencies_us.extend(l);
    }
    run
}

fn main() {
    let a = args();
    let dir = tempfile::tempdir().unwrap();
    let policy = policy_file(dir.path());
    let server_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(a.server_threads)
        .thread_name("server")
        .enable_all()
        .build()
        .unwrap();
    let client_rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name("load")
        .enable_all()
        .build()
        .unwrap();
    let server = server_rt
        .block_on(toolvet_serve::Server::bind(toolvet_serve::ServeOptions {
            config: policy,
            listen: Some(toolvet_serve::Listen::Tcp("127.0.0.1:0".parse().unwrap())),
        }))
        .expect("the server starts");
    let addr = server.local_addr().unwrap();
    let handle = server.handle();
    let serving = server_rt.spawn(server.run());

    let request = serve_call(ONE_KB);
    let body = Bytes::from(serde_json::to_vec(&request).unwrap());
    let warmup = Duration::from_secs_f64(a.warmup);
    let measure = Duration::from_secs_f64(a.seconds);
    let mut http = client_rt.block_on(http_load(
        addr,
        body.clone(),
        a.connections,
        warmup,
        measure,
    ));
    let host = handle.host().clone();
    let mut local = server_rt.block_on(in_process(host, request, a.connections, warmup, measure));
    handle.shutdown();
    let _ = server_rt.block_on(serving);

    let (h50, h99, h999) = (
        http.percentile(0.5),
        http.percentile(0.99),
        http.percentile(0.999),
    );
    let (l50, l99) = (local.percentile(0.5), local.percentile(0.99));
    let ratio = local.rps() / http.rps();
    if a.json {
        println!(
            "{}",
            serde_json::json!({
                "connections": a.connections, "seconds": a.seconds, "body_bytes": body.len(),
                "http": {"verdicts_per_s": http.rps(), "p50_ms": h50, "p99_ms": h99, "p999_ms": h999},
                "in_process": {"verdicts_per_s": local.rps(), "p50_ms": l50, "p99_ms": l99},
                "in_process_over_http": ratio,
            })
        );
    } else {
        println!(
            "body {} bytes, {} connections, {} s each side",
            body.len(),
            a.connections,
            a.seconds
        );
        println!(
            "http        {:>9.0} verdicts/s   p50 {h50:.3} ms   p99 {h99:.3} ms   p99.9 {h999:.3} ms",
            http.rps()
        );
        println!(
            "in-process  {:>9.0} verdicts/s   p50 {l50:.3} ms   p99 {l99:.3} ms",
            local.rps()
        );
        println!("in-process ÷ http throughput: {ratio:.2}×");
    }
    let mut failed = false;
    if let Some(min) = a.min_rps
        && http.rps() < min
    {
        eprintln!(
            "serve_load: {:.0} verdicts/s is below --min-rps {min}",
            http.rps()
        );
        failed = true;
    }
    if let Some(max) = a.max_p99_ms
        && h99 > max
    {
        eprintln!("serve_load: p99 {h99:.3} ms is above --max-p99-ms {max}");
        failed = true;
    }
    if failed {
        std::process::exit(1);
    }
}
