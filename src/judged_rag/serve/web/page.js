// The judged-rag page: asks the LangServe routes of the server that sent it, and draws
// each node's update as it arrives (from /stream_events). No framework, no build step;
// text is always set as text, never parsed as HTML.
"use strict";

const API = "/judged-rag";
const NODES = document.querySelector('meta[name="judged-rag-nodes"]').content.split(" ");
const INCIDENTS = new Set(["error", "fallback", "cut"]);
const REASONS = {
  no_trusted_source: "No trusted source: the judged documents (and the web, when searched) " +
    "did not score high enough to rest an answer on, and the model was not confident " +
    "enough to answer alone.",
  model_declined: "The model declined: it did not know, and there was no scored knowledge " +
    "to answer from.",
  namesakes_only: "Only namesakes found: the documents name something similar to the " +
    "question's subject, never the subject itself.",
  unnamed_subject: "Unknown name: the question names something that no retrieved " +
    "document names, so the model's own knowledge of it is not trusted either.",
  model_unsure: "The model was unsure: it was confident it knew, but its own short " +
    "answer was UNKNOWN or not probable enough to rest an answer on.",
  unsupported_claims: "Unsupported claims: the verifier found claims the sources do not " +
    "support, and regenerating did not fix them.",
  budget_exhausted: "Budget exhausted: the run's limit on LLM calls, tokens or time was " +
    "reached before a checked answer was ready.",
  generation_failed: "Generation failed: the model gave no answer.",
};
const LABELS = {
  highly_relevant: ["passed", "highly relevant"],
  somewhat_relevant: ["partial", "somewhat relevant"],
  not_relevant: ["rejected", "not relevant"],
};
const RANK = { highly_relevant: 0, somewhat_relevant: 1, not_relevant: 2 };
const BASES = {
  retrieval: "the retrieved documents",
  combined: "the documents and the model's own knowledge",
  model: "the model's own knowledge",
  none: "nothing trusted (Unknown)",
  Unknown: "nothing trusted (Unknown)",
};

const $ = (id) => document.getElementById(id);
let run = null;

function el(tag, className, ...children) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

const num = (x, digits = 3) => (typeof x === "number" ? x.toFixed(digits) : "–");
// LangGraph's Overwrite (a reset) arrives as {"type": "__overwrite__", "value": value}.
const overwrites = (x) => Boolean(x && typeof x === "object" && x.type === "__overwrite__");
const unwrap = (x) => (overwrites(x) ? x.value : x);

function newRun() {
  return {
    steps: [], docs: new Map(), judged: new Map(), thresholds: new Map(), web: [],
    rounds: [], rewrites: [], search: null, gate: null, basis: [], verify: [],
    incidents: [], answer: "", live: "", citations: [], verdict: null, reason: null,
    abstained: null, done: false,
    cost: { llm_calls: 0, input_tokens: 0, output_tokens: 0, llm_rounds: 0, seconds: 0 },
  };
}

// ---- reading the stream ---------------------------------------------------------------

async function ask(event) {
  event.preventDefault();
  const question = $("question").value.trim();
  let settings = {};
  try {
    settings = JSON.parse($("settings").value.trim() || "{}");
  } catch (error) {
    return fail(`The settings are not JSON: ${error.message}`);
  }
  const headers = { "Content-Type": "application/json" };
  if ($("key").value) headers["X-API-Key"] = $("key").value;
  const body = {
    input: { question },
    config: { configurable: settings },
    include_names: NODES,
    include_types: ["chat_model"],
    exclude_tags: ["nostream"], // the judge's, rewrites' and verifier's own model calls
  };
  run = newRun();
  $("error").hidden = $("answer-box").hidden = $("run").hidden = true;
  $("go").disabled = true;
  status("Asking…");
  render();
  try {
    const response = await fetch(`${API}/stream_events`, {
      method: "POST", headers, body: JSON.stringify(body),
    });
    if (!response.ok) return fail(await refusal(response), response.status);
    $("answer-box").hidden = $("run").hidden = false;
    await readEvents(response.body, onEvent);
    status(run.done ? "Done." : "The stream ended early.");
  } catch (error) {
    fail(`Could not reach the server: ${error.message}`);
  } finally {
    $("go").disabled = false;
  }
}

async function readEvents(stream, handle) {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer = (buffer + value).replace(/\r\n/g, "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let name = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) name = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
      }
      handle(name, data.join("\n"));
    }
  }
}

async function refusal(response) {
  const text = await response.text();
  let detail = text;
  try {
    detail = JSON.parse(text).detail ?? text;
  } catch { /* not JSON: the text itself */ }
  if (Array.isArray(detail)) {
    detail = detail.map((e) => `${(e.loc || []).join(".")}: ${e.msg}`).join("; ");
  }
  if (response.status === 401) {
    $("more").open = true;
    $("key").focus();
    return `The server refused the API key (401): ${detail}`;
  }
  return `The server refused the request (${response.status}): ${detail}`;
}

function onEvent(name, data) {
  if (name === "error") {
    const error = JSON.parse(data || "{}");
    return fail(`The run failed (${error.status_code}): ${error.message}`);
  }
  if (name === "end") { run.done = true; return render(); }
  if (name !== "data" || !data) return;
  const e = JSON.parse(data);
  const node = e.metadata && e.metadata.langgraph_node;
  if (e.event === "on_chain_start" && e.name === node) status(`Running ${node}…`);
  if (e.event === "on_chain_stream" && e.name === node) apply(node, e.data.chunk || {});
  if (node === "generate" && e.event === "on_chat_model_start") run.live = "";
  if (node === "generate" && e.event === "on_chat_model_stream") {
    const content = e.data.chunk.content;
    run.live += typeof content === "string" ? content : "";
  }
  render();
}

// ---- what each update says ------------------------------------------------------------

function apply(node, update) {
  const last = run.steps[run.steps.length - 1];
  if (last && last.node === node) last.times += 1;
  else run.steps.push({ node, times: 1 });
  for (const doc of unwrap(update.documents) || []) run.docs.set(doc.id, doc);
  for (const doc of unwrap(update.web_results) || []) {
    if (!run.web.some((w) => w.id === doc.id)) run.web.push(doc);
  }
  for (const j of unwrap(update.judgments) || []) {
    const before = run.judged.get(j.doc_id);
    if (!before || before.iteration <= j.iteration) run.judged.set(j.doc_id, j);
  }
  const cost = unwrap(update.cost);
  if (cost) {
    const reset = overwrites(update.cost);
    for (const k of ["llm_calls", "input_tokens", "output_tokens", "llm_rounds"]) {
      run.cost[k] = (reset ? 0 : run.cost[k]) + (cost[k] || 0);
    }
    run.cost.seconds = Math.max(reset ? 0 : run.cost.seconds, cost.seconds || 0);
  }
  for (const key of ["answer", "verdict", "reason", "abstained"]) {
    if (key in update) run[key] = update[key];
  }
  if ("citations" in update) run.citations = update.citations || [];
  for (const t of unwrap(update.trace) || []) trace(t);
}

function trace({ node, event, detail }) {
  const d = detail || {};
  if (INCIDENTS.has(event)) run.incidents.push({ node, event, detail: d });
  if (node === "gate" && event === "route") run.gate = d;
  else if (node === "retrieve" && event === "retrieved") run.rounds.push(d);
  else if (node === "rewrite" && event === "queries") run.rewrites.push(d);
  else if (node === "web_search" && event === "searched") run.search = d;
  else if (node === "judge" && event === "judged" && "threshold" in d) {
    run.thresholds.set(d.doc_id, d);
  } else if (node === "integrate") run.basis.push({ event, detail: d });
  else if (node === "verify") run.verify.push({ event, detail: d });
}

// ---- drawing --------------------------------------------------------------------------

function status(text) { $("status").textContent = text; }

function fail(message, code) {
  const box = $("error");
  box.textContent = message;
  box.dataset.status = code || "";
  box.hidden = false;
  status("");
}

function render() {
  if (!run) return;
  renderAnswer();
  $("steps").replaceChildren(
    ...run.steps.flatMap((s, i) => [i ? " → " : "", el("span", "step",
      s.times > 1 ? `${s.node} ×${s.times}` : s.node)]),
  );
  const rows = [
    ["gate", "Gate", gateText()],
    ["rounds", "Retrieval", roundsText()],
    ["web", "Web search", run.search && `“${run.search.query}”: ${run.search.results} results`],
    ["basis", "Basis", basisText()],
    ["verifier", "Verifier", verifyText()],
    ["incidents", "Incidents", run.incidents.map((i) =>
      `${i.node} ${i.event}: ${i.detail.error || ""} ${i.detail.message || i.detail.why || ""}`)
      .join("; ")],
    ["cost", "Cost and time", costText()],
  ];
  $("decisions").replaceChildren(...rows.filter(([, , v]) => v).flatMap(([key, title, value]) => {
    const dd = el("dd", null, ...[].concat(value));
    dd.dataset.decision = key;
    return [el("dt", null, title), dd];
  }));
  renderChunks();
}

function renderAnswer() {
  const text = run.answer || run.live;
  const parts = text.split(/(\[\d+\])/).map((part) => {
    const m = part.match(/^\[(\d+)\]$/);
    const cited = m && run.citations.find((c) => c.number === Number(m[1]));
    return cited ? link(cited.doc_id, part) : part;
  });
  $("answer").replaceChildren(...parts);
  $("citations").replaceChildren(...run.citations.map((c) => el("li", null,
    link(c.doc_id, `[${c.number}] ${c.title}`), ` — ${c.source}`)));
  const box = $("abstained");
  box.hidden = !run.abstained;
  if (run.abstained) {
    const words = REASONS[run.reason] || `Reason code: ${run.reason || "none given"}.`;
    box.replaceChildren(el("strong", null, "Abstained. "), words, " ",
      el("code", null, run.reason || ""));
  }
}

function anchor(docId) {
  const i = [...run.docs.keys(), ...run.web.map((w) => w.id)].indexOf(docId);
  return `doc-${i}`;
}

function link(docId, text) {
  const a = el("a", "cite", text);
  a.href = `#${anchor(docId)}`;
  return a;
}

function gateText() {
  const g = run.gate;
  if (!g) return null;
  if (typeof g.s_max !== "number") return `${g.route} (${g.why || "no score"})`;
  const meter = el("meter");
  Object.assign(meter, { min: 0, max: 1, value: g.s_max, low: g.cutoff });
  const side = g.s_max >= g.cutoff ? "≥" : "<";
  return [`${g.route}: best similarity ${num(g.s_max)} ${side} cut-off ${num(g.cutoff)} `, meter,
    ` (percentile ${g.percentile} of ${g.samples} pseudo-queries, margin ${g.threshold})`];
}

function roundsText() {
  if (!run.rounds.length) return null;
  return run.rounds.map((r) => {
    const rw = run.rewrites.find((w) => w.iteration === r.iteration);
    const asked = rw ? ` after rewriting to ${rw.queries.map((q) => `“${q}”`).join(", ")}` : "";
    return el("div", null, `Round ${r.iteration + 1}: ${r.found} found, ${r.new} new${asked}`);
  });
}

function basisText() {
  return run.basis.map(({ event, detail: d }) => {
    if (event === "decided") {
      return el("div", null, `${BASES[d.basis] || d.basis}: best document score ` +
        `${num(d.s_max)} against T_R ${num(d.t_r, 2)}; model confidence ${num(d.c_m)} ` +
        `against T_M ${num(d.t_m, 2)}`);
    }
    return el("div", null, `${event.replace(/_/g, " ")} ${JSON.stringify(d)}`);
  });
}

function verifyText() {
  const lines = run.verify.map(({ event, detail: d }) => {
    if (event === "checked" && d.basis === "model") return "nothing to check: no document shown";
    if (event === "checked" && d.supported) return `supported${d.by ? ` (${d.by})` : ""}`;
    if (event === "checked") {
      return `unsupported claims: ${(d.unsupported_claims || []).join("; ") || "–"}`;
    }
    if (event === "regenerate") return `regenerating (attempt ${d.attempt} of ${d.of})`;
    if (event === "declined") return "the model declined to answer";
    if (event === "budget") return `budget exhausted (${d.exhausted})`;
    return `${event.replace(/_/g, " ")} ${JSON.stringify(d)}`;
  });
  if (run.verdict) lines.push(`verdict: ${run.verdict}`);
  return lines.map((line) => el("div", null, line));
}

function costText() {
  const c = run.cost;
  if (!run.steps.length) return null;
  return `${c.llm_calls} LLM calls in ${c.llm_rounds} sequential rounds · ` +
    `${c.input_tokens} tokens in / ${c.output_tokens} out · ${c.seconds.toFixed(2)} s`;
}

function renderChunks() {
  const score = (doc) => (run.judged.get(doc.id) || {}).composite_score ?? -1;
  const rank = (doc) => RANK[(run.judged.get(doc.id) || {}).label] ?? 3;
  const docs = [...run.docs.values()].sort((a, b) => rank(a) - rank(b) || score(b) - score(a));
  $("no-chunks").hidden = docs.length > 0;
  $("chunks").replaceChildren(...docs.map(chunk));
  $("web-box").hidden = !run.web.length;
  $("web").replaceChildren(...run.web.map((w) => {
    const item = el("li", null, el("strong", null, w.title), ` — ${w.source} `,
      el("span", "grade", `reliability ${w.reliability}`));
    item.id = anchor(w.id);
    return item;
  }));
}

function chunk(doc) {
  const j = run.judged.get(doc.id);
  const [verdict, words] = j ? LABELS[j.label] || [j.label, j.label] : ["pending", "not judged"];
  const t = run.thresholds.get(doc.id);
  const cited = run.citations.find((c) => c.doc_id === doc.id);
  const item = el("li", `chunk ${verdict}`,
    el("div", "head", el("span", "label", `${verdict}: ${words}`),
      j ? ` score ${num(j.composite_score)}` : "",
      t ? ` · judge ${num(t.judge_score)} vs cut-off ${num(t.threshold)}` : "",
      j ? ` · by ${j.by}` : "", cited ? el("span", "cited", ` cited [${cited.number}]`) : ""),
    el("div", "title", doc.title, el("span", "source", ` ${doc.source}`)),
    j && j.evidence ? el("blockquote", "quote", j.evidence) : null,
    j && j.reason ? el("p", "reason", j.reason) : null,
    el("details", null, el("summary", null, "text"), el("p", null, doc.content)));
  item.id = anchor(doc.id);
  item.dataset.docId = doc.id;
  return item;
}

// ---- start ----------------------------------------------------------------------------

const fragment = new URLSearchParams(location.hash.slice(1));
if (fragment.has("key")) {
  $("key").value = fragment.get("key");
  // Out of the address bar and the history entry: the key stays in this page only.
  history.replaceState(null, "", location.pathname + location.search);
}
$("ask").addEventListener("submit", ask);
