"use strict";
// The viewer: everything from the JSON embedded in the page; every piece of model or corpus text is set with
// textContent (never innerHTML), so a reply holding markup shows as text.
const DATA = JSON.parse(document.getElementById("data").textContent);
const PAGE = 200;  // rows rendered at a time: a 10,000-episode run draws its first page at once
const $ = (sel) => document.querySelector(sel);
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") e.textContent = v; else if (k === "cls") e.className = v; else e.setAttribute(k, v);
  }
  for (const k of kids) if (k != null) e.append(k);
  return e;
}
const fmt = (v) => (typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toFixed(3)) : String(v));
const asList = (v) => (Array.isArray(v) ? v : v == null || v === "" ? [] : [v]);

const state = {run: 0, view: "episodes", shown: [], limit: PAGE, sel: -1, filters: {}, mins: {}, query: ""};
const haystacks = DATA.runs.map(() => null);

// An episode's turns stay a JSON string in the data until it is opened: the list of a large run parses fast.
function turnsOf(e) { if (typeof e.turns === "string") e.turns = JSON.parse(e.turns); return e.turns; }
function haystack(run, i) {  // built on the first search only: the lower-cased item and turns, field names left out
  if (!haystacks[run]) haystacks[run] = DATA.runs[run].episodes.map((e) => [e.id, e.item, e.qid || "", e.gold || "",
    (typeof e.turns === "string" ? e.turns : JSON.stringify(e.turns)).replace(/"[a-z_]+":/g, " ")].join("\n").toLowerCase());
  return haystacks[run][i];
}

function facetValues(run) {  // facet -> distinct values, for the drop-downs (skipped when too many to choose from)
  const out = {};
  for (const e of run.episodes) for (const [k, v] of Object.entries(e.facets)) {
    out[k] = out[k] || new Set();
    for (const x of asList(v)) out[k].add(x);
  }
  return Object.fromEntries(Object.entries(out).filter(([, s]) => s.size > 1 && s.size <= 60)
    .map(([k, s]) => [k, [...s].sort()]));
}
function scoreNames(run) { return [...new Set(run.episodes.flatMap((e) => Object.keys(e.scores)))]; }

function matches(e, i) {
  for (const [k, want] of Object.entries(state.filters)) if (want && !asList(e.facets[k]).includes(want)) return false;
  for (const [k, min] of Object.entries(state.mins))
    if (min !== "" && !(e.scores[k] >= Number(min))) return false;
  return !state.query || haystack(state.run, i).includes(state.query);
}

function buildFilters() {
  const box = $("#filters"); box.replaceChildren();
  if (state.view !== "episodes") return;
  const run = DATA.runs[state.run];
  box.append(el("input", {id: "search", type: "search", placeholder: "search text (/)"}));
  for (const [k, values] of Object.entries(facetValues(run))) {
    const s = el("select", {"data-facet": k}, el("option", {value: "", text: `${k}: any`}),
      ...values.map((v) => el("option", {value: v, text: `${k}: ${v}`})));
    s.value = state.filters[k] || "";
    s.onchange = () => { state.filters[k] = s.value; refresh(); };
    box.append(el("label", {}, s));
  }
  for (const k of scoreNames(run)) {
    const n = el("input", {type: "number", step: "0.05", "data-score": k});
    n.value = state.mins[k] ?? "";
    n.oninput = () => { state.mins[k] = n.value; refresh(); };
    box.append(el("label", {}, `${k} ≥ `, n));
  }
  box.append(el("span", {id: "count"}));
  const search = $("#search"); search.value = state.query;
  let timer = null;
  search.oninput = () => { clearTimeout(timer); timer = setTimeout(() => { state.query = search.value.trim().toLowerCase(); refresh(); }, 150); };
}

function refresh() {
  const run = DATA.runs[state.run];
  state.shown = []; run.episodes.forEach((e, i) => { if (matches(e, i)) state.shown.push(i); });
  state.limit = PAGE; state.sel = -1;
  $("#count").textContent = `${state.shown.length} of ${run.episodes.length} episodes`;
  drawRows(true);
}

function verdictCell(e) {
  const v = e.facets.verdict; return el("td", {cls: v === "right" ? "right" : v === "wrong" ? "wrong" : "", text: asList(v).join(", ")});
}
function drawRows(fresh) {
  const run = DATA.runs[state.run], body = $("#rows");
  if (fresh) body.replaceChildren();
  const from = body.children.length, to = Math.min(state.limit, state.shown.length);
  for (let n = from; n < to; n++) {
    const e = run.episodes[state.shown[n]];
    const tr = el("tr", {"data-n": n}, el("td", {text: e.id}), el("td", {}, el("div", {cls: "clamp", text: e.item})), verdictCell(e),
      el("td", {text: Object.entries(e.scores).map(([k, v]) => `${k} ${fmt(v)}`).join(", ")}),
      el("td", {text: e.methods.join(", ")}));
    tr.onclick = () => select(n);
    body.append(tr);
  }
  $("#more").textContent = to < state.shown.length ? `${state.shown.length - to} more: scroll down` : "";
}

function select(n) {
  if (n < 0 || n >= state.shown.length) return;
  while (n >= state.limit) { state.limit += PAGE; drawRows(false); }
  const rows = $("#rows").children;
  if (rows[state.sel]) rows[state.sel].classList.remove("sel");
  state.sel = n; rows[n].classList.add("sel"); rows[n].scrollIntoView({block: "nearest"});
  showEpisode($("#transcript"), DATA.runs[state.run], DATA.runs[state.run].episodes[state.shown[n]]);
}

function highlighted(text, entities) {  // the text with the path's entities marked, as nodes
  const names = entities.filter((x) => x && x.length > 1).map((x) => x.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const out = el("div", {cls: "chunk"});
  if (!names.length) { out.textContent = text; return out; }
  const re = new RegExp(`(${names.join("|")})`, "gi");
  text.split(re).forEach((part, i) => out.append(i % 2 ? el("mark", {text: part}) : document.createTextNode(part)));
  return out;
}

function pathBox(path) {  // a knowledge path: its entities, and its chunks with the entities marked
  const p = el("details", {cls: "path", open: ""}, el("summary", {text: `knowledge path: ${path.entities.join(" → ")}`}));
  for (const c of path.chunks) p.append(el("div", {cls: "notes", text: c.id}), highlighted(c.text || "(chunk text not available)", path.entities));
  return p;
}

function turnBox(t, k) {
  const box = el("div", {cls: "turn", "data-turn": k},
    el("h3", {}, el("span", {cls: "role", text: t.role + (t.model ? ` (${t.model})` : "")}), " ",
      el("span", {cls: "step", text: t.step})));
  const notes = Object.entries(t.notes).map(([a, b]) => `${a}: ${b}`).join(" · ");
  if (notes) box.append(el("div", {cls: "notes", text: notes}));
  if (t.path) box.append(pathBox(t.path));
  box.append(el("details", {cls: "prompt"}, el("summary", {text: `prompt (${t.prompt.length} characters)`}), el("pre", {text: t.prompt})));
  box.append(el("pre", {cls: "reply", text: t.reply}));
  for (const [name, s] of Object.entries(t.scores)) box.append(el("div", {cls: "score"},
    el("b", {text: `${name}: ${fmt(s.value)}`}), ` by ${s.method}`, s.reason ? ` · ${s.reason}` : "",
    s.extracted ? ` · read as "${s.extracted}"` : ""));
  if (t.details) box.append(el("details", {cls: "reasoning"}, el("summary", {text: "judge's reasoning and other fields"}), el("pre", {text: t.details})));
  return box;
}

function showEpisode(pane, run, e) {
  pane.replaceChildren(el("h2", {text: `${e.id}: ${e.item.length > 200 ? e.item.slice(0, 200) + "…" : e.item}`}));
  if (e.gold) pane.append(el("div", {text: `gold: ${e.gold}`}));
  pane.append(el("div", {cls: "notes", text: Object.entries(e.facets).map(([k, v]) => `${k}: ${asList(v).join(", ")}`).join(" · ")}));
  if (e.path) pane.append(pathBox(e.path));
  turnsOf(e).forEach((t, k) => pane.append(turnBox(t, k)));
  pane.scrollTop = 0;
}

function showManifest() {
  const pane = $("#manifest"); pane.replaceChildren();
  for (const run of DATA.runs) {
    pane.append(el("h2", {text: `${run.title} run ${run.name}`}));
    const m = run.manifest;
    const rows = Object.entries(m.models || {}).map(([role, d]) => el("tr", {}, el("td", {text: role}), el("td", {text: d.name || ""}), el("td", {text: d.model || ""})));
    pane.append(el("table", {cls: "models"}, el("thead", {}, el("tr", {}, el("th", {text: "role"}), el("th", {text: "model"}), el("th", {text: "served as"}))), el("tbody", {}, ...rows)));
    const isolation = Object.values(m).map((v) => v && v.isolation).find((v) => v);
    if (isolation) pane.append(el("p", {cls: "isolation", text: `model-written code ran under: ${typeof isolation === "string" ? isolation : JSON.stringify(isolation)}`}));
    const plain = new Set(["format", "format_version", "status", "created_at", "finished_at", "logs", "protocol", "config_id", "models", "request"]);
    for (const [key, value] of Object.entries(m))  // config, checker, judge_calibration, graph, the protocol's own
      if (!plain.has(key) && value != null) pane.append(el("h3", {text: key}), el("pre", {text: JSON.stringify(value, null, 1)}));
    pane.append(el("details", {}, el("summary", {text: "whole manifest"}), el("pre", {text: JSON.stringify(m, null, 1)})));
  }
}

// --- two runs: the same items side by side --------------------------------------------------------------
function keyOf(e) { return e.qid || e.item; }
function compareRows() {
  const [a, b] = DATA.runs, byKey = new Map(b.episodes.map((e) => [keyOf(e), e]));
  return a.episodes.filter((e) => byKey.has(keyOf(e))).map((e) => [e, byKey.get(keyOf(e))]);
}
function differs(x, y) {
  if (JSON.stringify(x.facets.verdict) !== JSON.stringify(y.facets.verdict)) return true;
  return Object.keys({...x.scores, ...y.scores}).some((k) => Math.abs((x.scores[k] ?? NaN) - (y.scores[k] ?? NaN)) > 1e-9 || (x.scores[k] == null) !== (y.scores[k] == null));
}
function showCompare() {
  const pairs = compareRows(), body = $("#pairs");
  body.replaceChildren();
  const onlyDiff = $("#only-diff").checked;
  let n = 0;
  for (const [x, y] of pairs) {
    const diff = differs(x, y);
    if (onlyDiff && !diff) continue;
    const tr = el("tr", {cls: diff ? "diff" : ""}, el("td", {text: x.qid || ""}), el("td", {text: x.item}), verdictCell(x), verdictCell(y),
      el("td", {text: Object.entries(x.scores).map(([k, v]) => `${k} ${fmt(v)}`).join(", ")}),
      el("td", {text: Object.entries(y.scores).map(([k, v]) => `${k} ${fmt(v)}`).join(", ")}));
    tr.onclick = () => { showEpisode($("#side-a"), DATA.runs[0], x); showEpisode($("#side-b"), DATA.runs[1], y); };
    body.append(tr); n++;
  }
  $("#compare-count").textContent = `${pairs.length} items in both runs, ${pairs.filter(([x, y]) => differs(x, y)).length} differ; showing ${n}`;
}

function setView(view, run) {
  state.view = view; if (run != null && run !== state.run) { state.run = run; state.filters = {}; state.mins = {}; state.query = ""; }
  for (const b of document.querySelectorAll("nav button")) b.classList.toggle("on", b.dataset.view === view && (view !== "episodes" || Number(b.dataset.run) === state.run));
  $("#episodes-view").classList.toggle("hidden", view !== "episodes");
  $("#manifest").classList.toggle("hidden", view !== "manifest");
  $("#compare-view").classList.toggle("hidden", view !== "compare");
  buildFilters();
  if (view === "episodes") { refresh(); $("#transcript").replaceChildren(el("p", {cls: "more", text: "Choose an episode (click, or j/k then Enter)."})); }
  if (view === "manifest") showManifest();
  if (view === "compare") showCompare();
}

function init() {
  const nav = $("nav");
  DATA.runs.forEach((r, i) => { const b = el("button", {"data-view": "episodes", "data-run": i, text: DATA.runs.length > 1 ? `episodes: ${r.name}` : "episodes"}); b.onclick = () => setView("episodes", i); nav.append(b); });
  if (DATA.runs.length > 1) { const b = el("button", {"data-view": "compare", text: "compare"}); b.onclick = () => setView("compare"); nav.append(b); }
  const m = el("button", {"data-view": "manifest", text: "manifest"}); m.onclick = () => setView("manifest"); nav.append(m);
  $("#only-diff").onchange = showCompare;
  $("#list").addEventListener("scroll", () => {  // the next page of rows as the list nears its end
    const l = $("#list"); if (l.scrollTop + l.clientHeight > l.scrollHeight - 200 && state.limit < state.shown.length) { state.limit += PAGE; drawRows(false); }
  });
  document.addEventListener("keydown", (ev) => {
    if (ev.target.matches("input, select")) { if (ev.key === "Escape") ev.target.blur(); return; }
    if (state.view !== "episodes") return;
    if (ev.key === "j" || ev.key === "ArrowDown") { select(state.sel + 1); ev.preventDefault(); }
    else if (ev.key === "k" || ev.key === "ArrowUp") { select(Math.max(0, state.sel - 1)); ev.preventDefault(); }
    else if (ev.key === "/") { $("#search").focus(); ev.preventDefault(); }
    else if (ev.key === "Enter" && state.sel >= 0) select(state.sel);
    else if (ev.key === "o") for (const d of document.querySelectorAll("#transcript details.prompt")) d.open = !d.open;
  });
  setView("episodes", 0);
  document.body.dataset.ready = String(performance.now());  // read by bench/view.py: time to first render
}
init();
