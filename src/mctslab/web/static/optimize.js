// The lab's "Optimize" tab: single-player search (GET /api/optimize/games, POST
// /api/optimize/runs, polled every 300 ms, POST .../stop) and SP-MCTS's traced step mode
// (POST /api/optimize/step). The mode switch in the header shows this tab or the
// two-player lab (app.js), which go on side by side.

import { enc, request } from "./api.js";
import { hideBanner, html, showBanner, svg } from "./dom.js";

const $ = (id) => document.getElementById(id);
const POLL_MS = 300;

const opt = {
  catalog: null, // GET /api/optimize/games
  run: null, // the last run's view
  polling: null, // the poll's timer
  step: null, // the step session's id
  stepKey: "", // the configuration the step session was made with
};

// ---------------------------------------------------------------------------------------
// Requests

const optApi = {
  games: () => request("GET", "/api/optimize/games"),
  start: (body) => request("POST", "/api/optimize/runs", body),
  run: (id) => request("GET", `/api/optimize/runs/${enc(id)}`),
  stop: (id) => request("POST", `/api/optimize/runs/${enc(id)}/stop`),
  step: (body) => request("POST", "/api/optimize/step", body),
};

/** The banner for an Optimize action's refusal, as the lab's tab writes its own: "LEAD:
 * the reason." as a sentence, the HTTP status and request in the detail line (dom.js). */
const showError = (lead) => (err) => showBanner(err, { lead });
const hideError = hideBanner;

// ---------------------------------------------------------------------------------------
// The mode switch

function setMode(mode) {
  const optimize = mode === "optimize";
  $("lab-main").hidden = optimize;
  $("optimize-main").hidden = !optimize;
  $("mode-play").setAttribute("aria-selected", String(!optimize));
  $("mode-optimize").setAttribute("aria-selected", String(optimize));
  document.body.dataset.mode = mode;
  if (optimize && !opt.catalog) loadCatalog().catch(showError("The problems could not be loaded"));
}

async function loadCatalog() {
  opt.catalog = await optApi.games();
  const select = $("opt-game");
  select.replaceChildren(...opt.catalog.games.map((g) => html("option", { value: g.name }, [g.title])));
  $("opt-time").max = String(opt.catalog.max_time);
  drawParams();
  document.body.dataset.optimizeReady = "true";
}

function currentGame() {
  return opt.catalog.games.find((g) => g.name === $("opt-game").value);
}

// ---------------------------------------------------------------------------------------
// The problem's parameters and the search's options

function drawParams() {
  const game = currentGame();
  const box = $("opt-params");
  box.replaceChildren();
  for (const p of game.parameters) {
    if (p.kind === "choice") {
      const select = html("select", { "data-param": p.name, "data-testid": `opt-param-${p.name}` });
      for (const choice of p.choices) {
        const inst = game.instances.find((i) => i.name === choice);
        const label = inst ? `${choice} (${inst.cities} cities${inst.optimum ? `, optimum ${inst.optimum}` : ""})` : choice;
        select.append(html("option", { value: choice }, [label]));
      }
      select.value = p.default;
      box.append(html("label", { title: p.note }, [p.name, select]));
      if (p.pattern) {
        // tsp: random:N:SEED instead of a shipped instance.
        select.append(html("option", { value: "" }, ["random:N:SEED…"]));
        const other = html("input", {
          type: "text", value: "random:20:1", "data-other": p.name, "data-testid": `opt-param-${p.name}-other`,
          title: p.pattern, hidden: true,
        });
        select.addEventListener("change", () => { other.hidden = select.value !== ""; });
        box.append(other);
      }
    } else {
      box.append(html("label", { title: p.note }, [p.name, html("input", {
        type: "number", step: "1", min: p.minimum, max: p.maximum, value: p.default,
        "data-param": p.name, "data-testid": `opt-param-${p.name}`,
      })]));
    }
  }
  const searches = $("opt-search");
  searches.replaceChildren(...opt.catalog.searches
    .filter((s) => s.games.includes(game.name))
    .map((s) => html("option", { value: s.kind, title: s.title }, [s.kind])));
  // A new game starts from its suggested search, the one behind the documented figures.
  const [kind] = game.suggested.search.split(":");
  searches.value = kind;
  $("opt-suggested").textContent = `Suggested: ${game.suggested.search}. ${game.suggested.note}.`;
  drawOptions();
  limitSearches();
}

/** The suggested search's options ({level: "2", bias: "4", ...}) where `kind` is its kind. */
function suggestedOptions(kind) {
  const [sKind, rest] = currentGame().suggested.search.split(":");
  if (sKind !== kind || !rest) return {};
  return Object.fromEntries(rest.split(",").map((kv) => kv.split("=")));
}

function drawOptions() {
  const search = opt.catalog.searches.find((s) => s.kind === $("opt-search").value);
  $("opt-search-title").textContent = search ? search.title : "";
  const box = $("opt-options");
  box.replaceChildren();
  const values = search ? suggestedOptions(search.kind) : {};
  for (const o of search ? search.options : []) {
    box.append(html("label", {}, [o.name, html("input", {
      type: "number", step: o.type === "number" ? "any" : "1", placeholder: o.type === "flag" ? "1 or 0" : (o.default ?? ""),
      min: o.type === "flag" ? 0 : null, max: o.type === "flag" ? 1 : null, value: values[o.name] ?? "",
      "data-option": o.name, "data-testid": `opt-option-${o.name}`,
    })]));
  }
  showSpec();
}

/** The cities of the chosen tsp instance (a shipped one's, or N of random:N:SEED), or null. */
function instanceCities() {
  const game = currentGame();
  if (game.name !== "tsp") return null;
  const value = params().instance;
  const shipped = game.instances.find((i) => i.name === value);
  if (shipped) return shipped.cities;
  const m = /^random:(\d+)(?::\d+)?$/.exec(String(value).trim());
  return m ? Number(m[1]) : null;
}

/** Searches that always refuse this instance (exact over its cities) disabled, the reason
 * in their label; a disabled choice falls back to the suggested search. */
function limitSearches() {
  const cities = instanceCities();
  for (const option of $("opt-search").options) {
    const search = opt.catalog.searches.find((s) => s.kind === option.value);
    const over = search.max_cities !== null && search.max_cities !== undefined && cities !== null && cities > search.max_cities;
    option.disabled = over;
    option.textContent = over ? `${search.kind} (up to ${search.max_cities} cities; this instance has ${cities})` : search.kind;
    option.title = over ? `${search.title}: it solves up to ${search.max_cities} cities exactly, this instance has ${cities}` : search.title;
  }
  const select = $("opt-search");
  if (select.selectedOptions[0] && select.selectedOptions[0].disabled) {
    select.value = currentGame().suggested.search.split(":")[0];
    drawOptions();
  }
}

function params() {
  const out = {};
  for (const el of $("opt-params").querySelectorAll("[data-param]")) {
    let value = el.value;
    if (value === "" && el.tagName === "SELECT") {
      value = $("opt-params").querySelector(`[data-other="${el.dataset.param}"]`).value.trim();
    }
    out[el.dataset.param] = el.type === "number" ? Number(value) : value;
  }
  return out;
}

function spec() {
  const opts = [...$("opt-options").querySelectorAll("[data-option]")]
    .filter((el) => el.value.trim() !== "")
    .map((el) => `${el.dataset.option}=${el.value.trim()}`);
  const kind = $("opt-search").value;
  return opts.length ? `${kind}:${opts.join(",")}` : kind;
}

function showSpec() {
  $("opt-spec").textContent = `spec: ${spec()}`;
}

// ---------------------------------------------------------------------------------------
// Runs

async function start(event) {
  event.preventDefault();
  stopPolling();
  try {
    const view = await optApi.start({
      game: $("opt-game").value,
      params: params(),
      search: spec(),
      seed: Number($("opt-seed").value) || 0,
      time: Number($("opt-time").value),
    });
    hideError();
    opt.run = view;
    drawRun(view);
    poll();
  } catch (err) {
    showError("The run was not started")(err);
  }
}

/** A new problem (game or parameters): the previous problem's run is stopped and its
 * board, curve, figures and step trace cleared, so that nothing of it shows under the
 * new problem's title. */
function problemChanged() {
  stopPolling();
  const run = opt.run;
  opt.run = null;
  if (run && run.status === "running") optApi.stop(run.id).catch(() => {});
  opt.step = null;
  $("opt-stop").disabled = true;
  $("opt-status").textContent = "Choose a problem and a search, then Start.";
  delete $("opt-status").dataset.status;
  for (const id of ["opt-best", "opt-gap", "opt-found"]) $(id).textContent = "–";
  $("opt-playouts").textContent = "0";
  $("opt-counts").textContent = "playouts";
  $("opt-count-part").hidden = false;
  $("opt-solution").replaceChildren();
  $("opt-board-text").hidden = true;
  $("opt-board-text").textContent = "";
  $("opt-curve").replaceChildren();
  $("opt-trace").replaceChildren();
  limitSearches();
  showSpec();
}

function stopPolling() {
  if (opt.polling !== null) clearTimeout(opt.polling);
  opt.polling = null;
}

function poll() {
  opt.polling = setTimeout(async () => {
    opt.polling = null;
    if (!opt.run) return;
    try {
      const view = await optApi.run(opt.run.id);
      opt.run = view;
      drawRun(view);
      if (view.status === "running") poll();
    } catch (err) {
      showError("The run could not be followed")(err);
    }
  }, POLL_MS);
}

async function stop() {
  if (!opt.run) return;
  try {
    drawRun(await optApi.stop(opt.run.id));
  } catch (err) {
    showError("The run could not be stopped")(err);
  }
}

const fmt = (v, digits = 6) => (v === null || v === undefined ? "–" : String(Number(v.toPrecision(digits))));

/** "nrpa:level=2 on SameGame (seed 0, rows 15, columns 15, colors 5)". */
function runTitle(view) {
  const game = opt.catalog.games.find((g) => g.name === view.game);
  const values = Object.entries(view.params).map(([k, v]) => `${k} ${v}`).join(", ");
  return `${view.search} on ${game ? game.title : view.game}${values ? ` (${values})` : ""}`;
}

// What compiles: numba specializes the compiled search for each game's rules and each
// combination of the knowledge options (bias, polish), once per server process.
const COMPILING = "compiling a new kernel variant (the compiled search for this game and these options: each new combination compiles once in the server, or loads from numba's disk cache)";

/** The run's status: the search's own seconds and the compile time apart, each counted once. */
function runStatus(view) {
  const words = { running: "running", done: "done", stopped: "stopped", error: "failed" };
  const title = runTitle(view);
  if (view.compiling) return `${title}: ${COMPILING}, ${view.elapsed.toFixed(1)} s so far; the search's ${view.time} s start after.`;
  let status = `${title}: ${words[view.status]}, searched ${view.search_seconds.toFixed(1)} s of ${view.time} s`;
  if (view.compile_seconds >= 0.5) status += `, after ${view.compile_seconds.toFixed(1)} s compiling a new kernel variant for this game and these options`;
  if (view.error) status += ` (${view.error})`;
  return `${status}.`;
}

function drawRun(view) {
  const running = view.status === "running";
  $("opt-stop").disabled = !running;
  $("opt-status").textContent = runStatus(view);
  $("opt-status").dataset.status = view.status;
  $("opt-best").textContent = view.game === "tsp" && view.score !== null ? `${fmt(-view.score)} (length)` : fmt(view.score);
  $("opt-gap").textContent = view.gap === null ? (view.optimum === null ? "unknown" : "–") : `${(view.gap * 100).toFixed(2)}%`;
  $("opt-found").textContent = view.found_seconds === null ? "–" : view.found_seconds.toFixed(2);
  const search = opt.catalog.searches.find((s) => s.kind === view.search.split(":")[0]);
  const counts = search ? search.counts : "playouts";
  $("opt-playouts").textContent = counts ? view.playouts.toLocaleString("en") : "";
  $("opt-counts").textContent = counts || "";
  $("opt-count-part").hidden = !counts; // nn, 2opt, exact, greedy: one tour, nothing counted
  drawSolution(view.solution);
  $("opt-curve").replaceChildren(curveChart(view.improvements, view.optimum, Math.max(view.search_seconds, view.time), view.game === "tsp"));
}

function drawSolution(solution) {
  const box = $("opt-solution");
  const text = $("opt-board-text");
  if (!solution) {
    box.replaceChildren(html("p", { class: "hint" }, ["The best solution shows as soon as the search has one."]));
    text.hidden = true;
    return;
  }
  if (solution.kind === "tour") {
    box.replaceChildren(tourChart(solution));
    text.hidden = true;
    return;
  }
  // A board: the game's own drawing (made by the server from the game's state), and its text.
  const doc = new DOMParser().parseFromString(solution.svg || "<svg xmlns='http://www.w3.org/2000/svg'/>", "image/svg+xml");
  const drawing = document.importNode(doc.documentElement, true);
  drawing.setAttribute("data-testid", "opt-board-svg");
  drawing.classList.add("opt-board-svg");
  box.replaceChildren(drawing);
  text.textContent = solution.text || "";
  text.hidden = !solution.text;
}

/** The cities as dots and the tour as a closed polyline (north up). */
function tourChart(solution) {
  const W = 460;
  const H = 380;
  const pad = 12;
  const xs = solution.cities.map((c) => c[0]);
  const ys = solution.cities.map((c) => c[1]);
  const [x0, x1, y0, y1] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const k = Math.min((W - 2 * pad) / Math.max(x1 - x0, 1e-9), (H - 2 * pad) / Math.max(y1 - y0, 1e-9));
  const px = (x) => pad + (x - x0) * k;
  const py = (y) => H - pad - (y - y0) * k;
  const root = svg("svg", { class: "opt-tour", width: W, height: H, viewBox: `0 0 ${W} ${H}`, "data-testid": "opt-tour", role: "img", "aria-label": `tour of length ${solution.length}` });
  const points = solution.tour.map(([x, y]) => `${px(x).toFixed(1)},${py(y).toFixed(1)}`);
  root.append(svg("polyline", { class: "tour-line", points: points.join(" "), "data-testid": "opt-tour-line", "data-points": solution.tour.length }));
  solution.cities.forEach(([x, y], i) => {
    root.append(svg("circle", { class: i === 0 ? "city start" : "city", cx: px(x).toFixed(1), cy: py(y).toFixed(1), r: i === 0 ? 4.5 : 3 }, [svg("title", {}, [`city ${i + 1}`])]));
  });
  root.append(svg("text", { class: "tour-label", x: W - pad, y: pad + 4 }, [`length ${solution.length}`]));
  return root;
}

/** The best score against time: a step line, with the proven optimum dashed where known.
 * `lengths`: the scores are negated tour lengths (tsp), plotted as the lengths they are,
 * lower is better, so that no tick reads a negative length. */
function curveChart(scored, scoreOptimum, seconds, lengths = false) {
  const sign = lengths ? -1 : 1;
  const points = scored.map(([t, n, v]) => [t, n, sign * v]);
  const optimum = scoreOptimum === null ? null : sign * scoreOptimum;
  const W = 460;
  const H = 220;
  const [left, right, top, bottom] = [60, 12, 12, 32];
  const root = svg("svg", { class: "opt-curve", width: W, height: H, viewBox: `0 0 ${W} ${H}`, "data-testid": "opt-curve-chart" });
  if (!points.length) {
    root.append(svg("text", { class: "axis-label", x: W / 2, y: H / 2 }, ["no score yet"]));
    return root;
  }
  const scores = points.map((p) => p[2]).concat(optimum === null ? [] : [optimum]);
  let [lo, hi] = [Math.min(...scores), Math.max(...scores)];
  if (hi === lo) [lo, hi] = [lo - 1, hi + 1];
  const tMax = Math.max(seconds, points[points.length - 1][0], 1e-3);
  const x = (t) => left + ((W - left - right) * t) / tMax;
  const y = (v) => top + (H - top - bottom) * (1 - (v - lo) / (hi - lo));
  root.append(svg("line", { class: "axis", x1: left, y1: H - bottom, x2: W - right, y2: H - bottom }));
  root.append(svg("line", { class: "axis", x1: left, y1: top, x2: left, y2: H - bottom }));
  for (const v of [lo, (lo + hi) / 2, hi]) {
    root.append(svg("text", { class: "tick-label y", x: left - 4, y: y(v) + 3 }, [fmt(v, 5)]));
  }
  for (const t of [0, tMax / 2, tMax]) {
    root.append(svg("text", { class: "tick-label", x: x(t), y: H - bottom + 14 }, [t.toFixed(1)]));
  }
  root.append(svg("text", { class: "axis-label", x: (left + W - right) / 2, y: H - 2 }, [lengths ? "seconds of search · best tour length (lower is better)" : "seconds of search · best score (higher is better)"]));
  if (optimum !== null) {
    root.append(svg("line", { class: "optimum", x1: left, y1: y(optimum), x2: W - right, y2: y(optimum) }));
    root.append(svg("text", { class: "curve-label", x: W - right - 4, y: y(optimum) - 4, "text-anchor": "end" }, [`optimum ${fmt(optimum)}`]));
  }
  const pts = [];
  points.forEach(([t, , v], i) => {
    if (i > 0) pts.push(`${x(t).toFixed(1)},${y(points[i - 1][2]).toFixed(1)}`);
    pts.push(`${x(t).toFixed(1)},${y(v).toFixed(1)}`);
  });
  pts.push(`${x(tMax).toFixed(1)},${y(points[points.length - 1][2]).toFixed(1)}`);
  root.append(svg("polyline", { class: "best-line", points: pts.join(" "), "data-testid": "opt-curve-line", "data-points": points.length }));
  return root;
}

// ---------------------------------------------------------------------------------------
// SP-MCTS's step mode

function stepConfig() {
  return {
    game: $("opt-game").value,
    params: params(),
    seed: Number($("opt-seed").value) || 0,
    c: Number($("opt-step-c").value),
    d: Number($("opt-step-d").value),
    iterations: Number($("opt-step-iterations").value),
  };
}

async function step(skip = 0) {
  const config = stepConfig();
  const key = JSON.stringify(config);
  try {
    let trace;
    if (opt.step && opt.stepKey === key) {
      trace = await optApi.step({ session: opt.step, skip });
    } else {
      trace = await optApi.step({ ...config, skip });
      opt.step = trace.session;
      opt.stepKey = key;
    }
    hideError();
    drawTrace(trace);
  } catch (err) {
    showError("The step was refused")(err);
  }
}

const num = (v) => (Math.abs(v) >= 1000 ? v.toFixed(0) : v.toFixed(3));

function drawTrace(t) {
  const box = $("opt-trace");
  const parts = [];
  let head = `Iteration ${t.iteration} (run ${t.run}, ${t.at_root} at this root`;
  if (t.prefix.length) head += `, after ${t.prefix.length} move${t.prefix.length > 1 ? "s" : ""} played`;
  head += `) · lo ${num(t.lo)}, width ${num(t.width)} · best ${num(t.best)}`;
  parts.push(html("p", { class: "trace-head", "data-testid": "opt-trace-head" }, [head]));
  if (t.played) {
    parts.push(html("p", { class: "hint" }, [t.played.restart
      ? `The game ended after move ${t.played.label}: a new run from a fresh tree.`
      : `Top-score rule: move ${t.played.label} played (the best sequence's first), its subtree kept.`]));
  }
  // The path in the game's move names (node ids are the moves' numbers).
  const names = t.selection.map((level) => level.children.find((ch) => ch.action === level.chosen).label);
  if (t.expansion) names.push(t.expansion.label);
  const pathName = (depth) => (depth === 0 ? "root" : names.slice(0, depth).join("."));
  parts.push(html("h3", {}, ["1 Selection"]));
  if (!t.selection.length) parts.push(html("p", { class: "hint" }, ["The root has untried moves: no selection."]));
  t.selection.forEach((level, depth) => {
    const rows = [...level.children].sort((a, b) => b.score - a.score).slice(0, 8).map((ch) => html("tr", { class: ch.action === level.chosen ? "chosen" : "" }, [
      html("td", {}, [ch.label]),
      html("td", {}, [String(ch.visits)]),
      html("td", {}, [num(ch.mean)]),
      html("td", {}, [num(ch.exploitation)]),
      html("td", {}, [num(ch.exploration)]),
      html("td", {}, [num(ch.deviation)]),
      html("td", {}, [num(ch.score)]),
    ]));
    const more = level.children.length > 8 ? ` (the 8 best of ${level.children.length})` : "";
    parts.push(html("p", { class: "trace-level" }, [`depth ${depth}, node ${pathName(depth)}, N = ${level.visits}, ln N = ${level.log_parent.toFixed(3)}${more}`]));
    parts.push(html("table", { class: "trace-table", "data-testid": "opt-trace-selection" }, [
      html("thead", {}, [html("tr", {}, ["move", "n", "mean", "x", "c·√(ln N/n)", "√(σ²+D/n)", "score"].map((h) => html("th", {}, [h])))]),
      html("tbody", {}, rows),
    ]));
  });
  parts.push(html("h3", {}, ["2 Expansion"]));
  parts.push(html("p", { "data-testid": "opt-trace-expansion" }, [t.expansion
    ? `move ${t.expansion.label} drawn from ${t.expansion.untried} untried at node ${pathName(t.selection.length)}`
    : "the leaf is terminal: nothing to expand"]));
  parts.push(html("h3", {}, ["3 Playout"]));
  parts.push(html("p", { "data-testid": "opt-trace-playout" }, [`${t.playout.moves.length} random moves, score ${num(t.playout.score)}${t.new_best ? " (a new best)" : ""}`]));
  parts.push(html("h3", {}, ["4 Backup"]));
  parts.push(html("p", { "data-testid": "opt-trace-backup" }, [t.backup.map((b, depth) => `${pathName(depth)}: n ${b.visits}, mean ${num(b.value_sum / b.visits)}`).join(" · ")]));
  box.replaceChildren(...parts);
}

// ---------------------------------------------------------------------------------------
// Wiring

function wire() {
  $("mode-play").addEventListener("click", () => setMode("play"));
  $("mode-optimize").addEventListener("click", () => setMode("optimize"));
  $("opt-game").addEventListener("change", () => { drawParams(); problemChanged(); });
  // A parameter's change is a new problem too (eil51 to berlin52, another SameGame seed).
  $("opt-params").addEventListener("change", problemChanged);
  $("opt-search").addEventListener("change", drawOptions);
  $("opt-options").addEventListener("input", showSpec);
  $("opt-form").addEventListener("submit", start);
  $("opt-stop").addEventListener("click", stop);
  $("opt-step").addEventListener("click", () => step(0));
  $("opt-step-10").addEventListener("click", () => step(9));
  $("opt-step-new").addEventListener("click", () => {
    opt.step = null;
    step(0);
  });
  if (new URLSearchParams(location.search).get("mode") === "optimize") setMode("optimize");
}

wire();
