// The toolvet reviewer page. Every value shown comes from callers or
// plugins and is attacker-controlled: it is only ever put into the page
// with textContent (never innerHTML), so it is shown and never run. And
// every text a person reads is the server's `shown` text of the request
// (crates/toolvet-serve/src/shown.rs): control, bidirectional and
// zero-width characters already written visibly, and the arguments'
// exact text (never re-parsed here: JSON.parse rounds big numbers). The
// page formats none of it itself.
"use strict";

const $ = (id) => document.getElementById(id);
const session = window.sessionStorage;
// The reviewer token is kept in this page's memory only: browsers write
// session storage to the profile on disk (Chromium's `Session Storage/`),
// where an agent running as the reviewer's user could read it. Reloading
// the page signs out.
let reviewerToken = "";
let stream = null;
let withheldTimer = null;

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function say(message) {
  $("status").textContent = message || "";
}

function token() {
  return reviewerToken;
}

async function api(path, options) {
  const response = await fetch(path, {
    ...options,
    headers: { "Authorization": "Bearer " + token(), "Content-Type": "application/json" },
    cache: "no-store",
  });
  let body = null;
  try { body = await response.json(); } catch (_) { body = null; }
  if (!response.ok) {
    const message = body && body.error ? body.error.message : response.statusText;
    const error = new Error(message);
    error.status = response.status;
    throw error;
  }
  return body;
}

function age(ms) {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return s + " s";
  if (s < 3600) return Math.round(s / 60) + " min";
  return (s / 3600).toFixed(1) + " h";
}

function render(request) {
  // Only the server's escaped texts; a request without them is not shown.
  const shown = request.shown || {};
  const item = el("li", "request");
  item.dataset.id = request.id;
  const title = el("h3");
  title.append(el("span", "tool", shown.tool || "(not shown: the server sent no escaped text)"));
  item.append(title);

  const meta = el("div", "meta");
  meta.append(el("span", "agent", "agent: " + (shown.agent || "—")));
  meta.append(el("span", "run", "run: " + (shown.run_id || "—")));
  meta.append(el("span", "principal", "principal: " + (shown.principal || "—")));
  meta.append(el("span", "call", "call: " + (shown.call_id || "—")));
  // Where and through what the call runs: the approval is bound to these.
  for (const [key, value] of Object.entries(shown.attributes || {})) {
    meta.append(el("span", "bound", key + ": " + value));
  }
  const now = Date.now();
  const created = Date.parse(request.created_at);
  const expires = Date.parse(request.expires_at);
  meta.append(el("span", "age", "asked " + age(now - created) + " ago"));
  meta.append(el("span", "expiry", expires > now
    ? "expires in " + age(expires - now) + " (" + request.expires_at + ")"
    : "expired " + request.expires_at));
  item.append(meta);

  const reasons = el("ul", "escalations");
  for (const e of shown.escalations || []) {
    const line = el("li");
    line.append(el("span", "rule", e.rule || e.check));
    line.append(document.createTextNode(" "));
    line.append(el("span", "check", "(" + e.check + ")"));
    line.append(document.createTextNode(" "));
    line.append(el("span", "reason", e.reason || ""));
    reasons.append(line);
  }
  item.append(reasons);

  item.append(el("pre", "arguments", typeof shown.arguments === "string" ? shown.arguments : ""));

  const form = el("div", "decide");
  const message = el("textarea", "message");
  message.rows = 1;
  message.placeholder = "message (the model reads it on a rejection)";
  message.maxLength = 4096;
  const approve = el("button", "approve", "Approve");
  const reject = el("button", "reject", "Reject");
  approve.type = reject.type = "button";
  approve.addEventListener("click", () => decide(request, "approve", message.value, item));
  reject.addEventListener("click", () => decide(request, "reject", message.value, item));
  form.append(message, approve, reject);
  item.append(form);
  return item;
}

function updateCount() {
  const n = $("requests").children.length;
  $("count").textContent = String(n);
  $("empty").hidden = n > 0;
  showCounts();
}

function show(request) {
  const list = $("requests");
  const existing = list.querySelector('li[data-id="' + CSS.escape(request.id) + '"]');
  if (request.status !== "pending") {
    if (existing) existing.remove();
  } else if (existing) {
    existing.replaceWith(render(request));
  } else {
    list.append(render(request));
  }
  updateCount();
}

// How many wait, from the server's count (the first page carries it):
// said even when the list below holds fewer, so a flood cannot hide that
// more are waiting.
let counts = null;

function showCounts() {
  const shown = $("requests").children.length;
  if (!counts) { $("counts").textContent = ""; return; }
  const total = counts.total + (counts.complete ? "" : "+");
  let text = total + " pending in all";
  if (shown < counts.total) text += " (showing " + shown + ")";
  const runs = (counts.by_run || []).map((r) => (r.shown || "?") + ": " + r.count);
  if (runs.length) text += "; by run: " + runs.join(", ");
  if (counts.runs > runs.length) text += ", and " + (counts.runs - runs.length) + " more runs";
  if (counts.without_run) text += "; without a run: " + counts.without_run;
  $("counts").textContent = text;
}

async function loadPending() {
  const list = $("requests");
  const all = [];
  let after = null;
  for (let pages = 0; pages < 20; pages++) {
    const query = "/v1/approvals?status=pending&limit=100" + (after ? "&after=" + encodeURIComponent(after) : "");
    const page = await api(query);
    if (page.pending) counts = page.pending;
    all.push(...page.requests);
    if (!page.next) break;
    after = page.next;
  }
  list.replaceChildren(...all.map(render));
  updateCount();
}

// A result a check withheld (GET /v1/results/withheld): the server's
// shown texts (crates/toolvet-serve/src/withheld.rs), never the content.
function renderWithheld(entry) {
  const item = el("li", "withheld");
  const title = el("h3");
  title.append(el("span", "tool", entry.tool));
  item.append(title);
  const meta = el("div", "meta");
  meta.append(el("span", "at", entry.at));
  meta.append(el("span", "via", "via: " + entry.via));
  meta.append(el("span", "agent", "agent: " + (entry.agent || "—")));
  meta.append(el("span", "run", "run: " + (entry.run_id || "—")));
  meta.append(el("span", "principal", "principal: " + (entry.principal || "—")));
  meta.append(el("span", "call", "call: " + (entry.call_id || "—")));
  item.append(meta);
  const why = el("p", "why");
  why.append(el("span", "rule", entry.rule || "—"));
  why.append(document.createTextNode(" "));
  why.append(el("span", "reason", entry.reason));
  item.append(why);
  return item;
}

async function loadWithheld() {
  const page = await api("/v1/results/withheld");
  const results = (page && page.results) || [];
  $("withheld-results").replaceChildren(...results.map(renderWithheld));
  $("withheld-count").textContent = String(results.length);
}

// The decision names the request as this page showed it (`shown`): a
// request whose ledger row changed since is refused (409), not approved.
async function decide(request, decision, message, item) {
  const id = request.id;
  const reviewer = session.getItem("toolvet.reviewer") || "";
  for (const b of item.querySelectorAll("button")) b.disabled = true;
  try {
    const body = { decision, reviewer, shown: request.review_sha256 };
    if (message.trim()) body.message = message;
    const decided = await api("/v1/approvals/" + encodeURIComponent(id) + "/decision", {
      method: "POST",
      body: JSON.stringify(body),
    });
    show(decided);
    say("");
  } catch (e) {
    say("Could not " + decision + ": " + e.message);
    for (const b of item.querySelectorAll("button")) b.disabled = false;
    if (e.status === 409) loadPending().catch(() => {});
  }
}

// Server-Sent Events over fetch: EventSource cannot send the token.
async function follow() {
  const controller = new AbortController();
  stream = controller;
  while (stream === controller) {
    try {
      const response = await fetch("/v1/approvals/events", {
        headers: { "Authorization": "Bearer " + token() },
        signal: controller.signal,
        cache: "no-store",
      });
      if (!response.ok) throw new Error("events: HTTP " + response.status);
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let cut;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          let name = "message";
          let data = "";
          for (const line of block.split("\n")) {
            if (line.startsWith("event:")) name = line.slice(6).trim();
            else if (line.startsWith("data:")) data += line.slice(5).trim();
          }
          await onEvent(name, data);
        }
      }
    } catch (e) {
      if (stream !== controller) return;
      say("Live updates interrupted (" + e.message + "); reconnecting…");
    }
    $("live").className = "live off";
    $("live").textContent = "offline";
    await new Promise((r) => setTimeout(r, 1000));
  }
}

async function onEvent(name, data) {
  if (name === "ready" || name === "resync") {
    $("live").className = "live on";
    $("live").textContent = "live";
    say("");
    await loadPending();
    loadWithheld().catch(() => {});
    return;
  }
  if (name === "requested" || name === "decided" || name === "consumed") {
    try { show(JSON.parse(data).request); } catch (_) { /* a malformed event is ignored */ }
  }
}

function signedIn() {
  $("signin").hidden = true;
  $("queue").hidden = false;
  $("withheld").hidden = false;
  $("signout").hidden = false;
  follow();
  // Not streamed: read again every few seconds.
  withheldTimer = setInterval(() => loadWithheld().catch(() => {}), 3000);
}

function signOut() {
  reviewerToken = "";
  session.clear();
  stream && stream.abort();
  stream = null;
  $("requests").replaceChildren();
  clearInterval(withheldTimer);
  withheldTimer = null;
  $("withheld-results").replaceChildren();
  $("signin").hidden = false;
  $("queue").hidden = true;
  $("withheld").hidden = true;
  $("signout").hidden = true;
}

$("signin").addEventListener("submit", async (event) => {
  event.preventDefault();
  reviewerToken = $("token").value.trim();
  session.setItem("toolvet.reviewer", $("reviewer").value.trim());
  $("token").value = "";
  try {
    await api("/v1/approvals?status=pending&limit=1");
    say("");
    signedIn();
  } catch (e) {
    reviewerToken = "";
    session.clear();
    say("Sign-in failed: " + e.message);
  }
});
$("signout").addEventListener("click", signOut);
if (token()) signedIn();
