//! Overload, timeouts, draining and the Unix socket, over raw sockets.

use crate::harness::*;
use serde_json::json;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use toolvet_serve::Listen;

/// A `POST /v1/check` whose headers promise a body of `len` bytes, with
/// only `sent` of them sent: the server holds it in flight.
async fn stalled_check(server: &Running, body: &str, sent: usize) -> tokio::net::TcpStream {
    let mut stream = tokio::net::TcpStream::connect(server.addr.unwrap())
        .await
        .unwrap();
    let head = format!(
        "POST /v1/check HTTP/1.1\r\nhost: x\r\nauthorization: Bearer {AGENT}\r\n\
         content-type: application/json\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    stream.write_all(&body.as_bytes()[..sent]).await.unwrap();
    stream
}

async fn read_all(stream: &mut (impl AsyncReadExt + Unpin)) -> String {
    let mut out = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(20), stream.read_to_end(&mut out)).await;
    String::from_utf8_lossy(&out).into_owned()
}

#[tokio::test]
async fn over_the_concurrency_cap_is_503_with_retry_after() {
    let fixture = Fixture::with(PolicyText {
        serve: "watch = false\nmax_concurrent_requests = 1\nretry_after_s = 7".into(),
        ..PolicyText::default()
    });
    let server = fixture.start().await;
    let body = call("read_file", json!({"path": "a"}), "c1", "r1").to_string();
    let mut held = stalled_check(&server, &body, 10).await;
    // The stalled request holds the only slot.
    let mut refused = false;
    for _ in 0..50 {
        let r = server
            .http
            .post(server.url("/v1/check"))
            .bearer_auth(AGENT)
            .body(body.clone())
            .send()
            .await
            .unwrap();
        if r.status() == 503 {
            assert_eq!(r.headers()["retry-after"], "7");
            let answer: serde_json::Value = r.json().await.unwrap();
            assert_eq!(answer["error"]["kind"], "overloaded");
            refused = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(refused, "a second request while the slot is taken gets 503");
    // Probes are not capped.
    assert_eq!(server.get("/healthz", None).await.0, 200);
    // Once the first finishes, the slot is free again.
    held.write_all(&body.as_bytes()[10..]).await.unwrap();
    let mut first = [0u8; 12];
    held.read_exact(&mut first).await.unwrap();
    assert_eq!(&first, b"HTTP/1.1 200");
    drop(held);
    assert_eq!(
        server.check(&serde_json::from_str(&body).unwrap()).await["decision"],
        "allow"
    );
    let (_, metrics) = server.get_text("/metrics", None).await;
    assert!(!metrics.contains("toolvet_overloaded_total 0"), "{metrics}");
    server.stop().await;
}

#[tokio::test]
async fn slow_requests_time_out_and_idle_connections_close() {
    let fixture = Fixture::with(PolicyText {
        serve: "watch = false\nrequest_timeout_ms = 300\nidle_timeout_s = 1".into(),
        ..PolicyText::default()
    });
    let server = fixture.start().await;
    let body = call("read_file", json!({"path": "a"}), "c1", "r1").to_string();
    let started = Instant::now();
    let mut stalled = stalled_check(&server, &body, 5).await;
    let answer = read_all(&mut stalled).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(started.elapsed() < Duration::from_secs(5));

    // A connection that sends nothing is closed after the idle timeout.
    let started = Instant::now();
    let mut idle = tokio::net::TcpStream::connect(server.addr.unwrap())
        .await
        .unwrap();
    let answer = read_all(&mut idle).await;
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(5),
        "closed after {waited:?}: {answer}"
    );
    server.stop().await;
}

#[tokio::test]
async fn shutdown_drains_requests_in_flight() {
    let fixture = Fixture::new();
    let server = fixture.start().await;
    let body = call("read_file", json!({"path": "a"}), "c1", "r1").to_string();
    let mut in_flight = stalled_check(&server, &body, 10).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    let addr = server.addr.unwrap();
    let stopping = tokio::spawn(server.stop());
    // New connections are refused once the listener is closed.
    assert!(
        eventually(Duration::from_secs(5), || async {
            tokio::net::TcpStream::connect(addr).await.is_err()
        })
        .await,
        "the listener closes at shutdown"
    );
    assert!(
        !stopping.is_finished(),
        "the drain waits for the request in flight"
    );
    in_flight.write_all(&body.as_bytes()[10..]).await.unwrap();
    let answer = read_all(&mut in_flight).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("\"decision\":\"allow\""), "{answer}");
    tokio::time::timeout(Duration::from_secs(10), stopping)
        .await
        .expect("drained")
        .unwrap();
}

#[tokio::test]
async fn a_unix_socket_with_the_configured_mode() {
    use std::os::unix::fs::PermissionsExt;
    let fixture = Fixture::with(PolicyText {
        serve: "watch = false\nunix_socket_mode = \"0600\"".into(),
        ..PolicyText::default()
    });
    let socket = fixture.dir.path().join("toolvet.sock");
    let server = Running::start(&fixture.policy, Listen::Unix(socket.clone())).await;
    let mode = std::fs::metadata(&socket).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let body = call("deploy", json!({"env": "prod"}), "c1", "r1").to_string();
    let mut stream = tokio::net::UnixStream::connect(&socket).await.unwrap();
    let request = format!(
        "POST /v1/check HTTP/1.1\r\nhost: x\r\nauthorization: Bearer {AGENT}\r\n\
         connection: close\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let answer = read_all(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(answer.contains("\"decision\":\"escalate\""), "{answer}");
    server.stop().await;
    assert!(!socket.exists(), "the socket file is removed at shutdown");
}
