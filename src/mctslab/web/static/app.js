// The web lab's page: settings, the board, the AI's decisions, the step mode and the
// tree, wired to the JSON API. Plain ES modules, no build step, no dependencies.

import { ApiError, api } from "./api.js";
import { drawBoard } from "./board.js";
import { explorationChart, rootStatsChart, scaleText, valueText } from "./charts.js";
import { fmtValue, hideBanner, html, showBanner, sleep } from "./dom.js";
import { ThinkPanel } from "./think.js";
import { TreeView, boxHeight, shownSize, sizeFits } from "./tree.js";

const $ = (id) => document.getElementById(id);

// The player of a chance outcome (mctslab.core.game.CHANCE): a die's throw.
const CHANCE = -1;

const FINAL_RULES = {
  robust: "robust child (most visits)",
  max: "max child (highest mean)",
  "robust-max": "robust-max child (most visits and highest mean)",
  solver: "MCTS-Solver (a proven result)",
};

// Steps per second for each position of the speed slider; phases are animated at
// the slower speeds only.
const SPEEDS = [0.5, 1, 3, 10, 30];

const app = {
  games: [],
  models: [], // the trained networks of the chosen game (GET /api/games: its models): network:NAME evaluators
  caps: null, // the server's budget caps (GET /api/health): max_iterations, max_time
  view: null, // the last SessionView
  spec: null, // the request that made the game shown (POST /api/sessions), without its moves
  form: null, // the form's fields as they were for the game shown (snapshotForm)
  human: 0, // the human's player index, or null: the human plays both sides
  busy: false,
  treeDrawn: Promise.resolve(), // the tree of the view shown last, once drawn (showView)
  playing: false,
  tree: null,
  think: null,
  treePath: "", // the node id whose path the tree always shows: the last step's
  userSized: false, // a depth or top-k chosen by hand: new trees are not fitted
  position: "", // the session and moves of the tree shown: another one resets the tree's view
  rates: {}, // iterations a second of the last AI move, by game|engine|simulation|selection (drawEngineNote)
};

// ---------------------------------------------------------------------------------------
// Start-up

async function main() {
  app.tree = new TreeView($("tree"), {
    loadSubtree: (id) => api.tree(app.view.id, { node: id, depth: 2, top: topK() }),
    loadChildren: (id) => api.tree(app.view.id, { node: id, depth: 1 }),
    openNode: (node) => openNode(node).catch((err) => showError(err, "The position could not be shown")),
  });
  app.think = new ThinkPanel(document.querySelector(".phases"), {
    nodePosition: (id) => api.node(app.view.id, id),
    highlight: (path, fresh) => app.tree.highlight(path, fresh),
    phase: (phase, trace) => stepPhase(phase, trace),
    playerName: (p) => playerName(p),
  });
  wireControls();
  // Module scripts run before DOMContentLoaded: by then optimize.js has wired the tabs,
  // and the tab of the URL opens without waiting for the lab's first requests.
  document.addEventListener("DOMContentLoaded", followTabInUrl);
  try {
    app.games = await api.games();
    app.caps = await api.health();
    addRules(await api.rules());
    applyDefaults(await api.engineConfig());
  } catch (err) {
    showError(err, "The lab could not start");
    setStatus("The server did not answer: is `mctslab serve` running?");
    return;
  }
  drawExploration();
  const select = $("game");
  for (const game of app.games) {
    select.append(html("option", { value: game.name }, [prettyName(game.name)]));
  }
  // ?game=NAME picks the game; tic-tac-toe by default (everyone knows its board).
  const preferred = new URLSearchParams(location.search).get("game") || "tic_tac_toe";
  if (app.games.some((g) => g.name === preferred)) select.value = preferred;
  drawParams();
  setBudgetLimit();
  loadModels();
  await newGame();
}

/**
 * The tab shown is in the URL (#optimize, #play), so that a reload, a bookmark or a
 * shared link opens it; the tabs themselves are optimize.js's (which also reads
 * ?mode=optimize). Called at DOMContentLoaded, once both modules have wired them.
 */
function followTabInUrl() {
  for (const mode of ["play", "optimize"]) {
    $(`mode-${mode}`).addEventListener("click", () => history.replaceState(null, "", `${location.pathname}${location.search}#${mode}`));
  }
  if (location.hash === "#optimize") $("mode-optimize").click();
}

/**
 * The selection rules the lab offers (GET /api/rules: those with a `choice`), each an
 * option of the Selection menu with its formula as the tooltip; the page's own UCT and
 * PUCT options stay first and last.
 */
function addRules(rules) {
  const select = $("selection");
  const puct = select.querySelector('option[value="puct"]');
  for (const rule of rules) {
    if (!rule.choice || select.querySelector(`option[value="${rule.choice}"]`)) continue;
    const option = html("option", { value: rule.choice, title: `${rule.label}: ${rule.formula}` }, [rule.label]);
    select.insertBefore(option, puct);
  }
}

/**
 * The search options of a request: EngineConfig's properties (GET /engine-config.json,
 * the model /openapi.json describes `config` with), which the server generates from the
 * library's declarations (SearchConfig's and PuctConfig's options the lab offers). Each
 * is read from the form's control of its name (readConfig) and starts at the schema's
 * default: the configuration the API, the library's SearchConfig, the CLI and the
 * lessons start from (c = √2, not a rounded 1.41), so that the same seed grows the same
 * tree everywhere. A select's words are the schema's enum (the page's labels kept for
 * the words it knows); an option the page has no control for gets one
 * (addOptionControls), so that an option declared in the library is on the page.
 */
app.options = {};

/** The request's own fields that the page's budget controls set (readBudget). */
const BUDGET_FIELDS = ["iterations", "time"];
/**
 * The options whose start the page chooses itself: FPU 0.5 (a draw) for an unvisited
 * child, where the API's 0 (a loss) makes PUCT's first visits less even.
 */
const PAGE_DEFAULTS = ["fpu"];

/** The form's control of a request field, by its name (null where the page has none). */
function optionControl(name) {
  const control = $("config").elements.namedItem(name);
  return control instanceof HTMLElement && !control.closest("#game-params") ? control : null;
}

function applyDefaults(schema) {
  app.options = schema.properties || {};
  addOptionControls(app.options);
  for (const [name, prop] of Object.entries(app.options)) {
    const input = optionControl(name);
    if (!input || BUDGET_FIELDS.includes(name)) continue;
    if (input.tagName === "SELECT" && Array.isArray(prop.enum)) setChoices(input, prop.enum);
    const value = prop.default;
    if (value === undefined || value === null || PAGE_DEFAULTS.includes(name)) continue;
    if (input.type === "checkbox") input.checked = Boolean(value);
    else if (typeof value === "number") setNumber(input, value);
    else input.value = String(value);
  }
  syncC($("c").value);
  syncSelection();
  drawEngineNote();
}

/** A select's options: the words of `words`, in their order, with the page's labels where it has them. */
function setChoices(select, words) {
  const known = new Map([...select.options].map((option) => [option.value, option]));
  select.replaceChildren(...words.map((word) => known.get(word) || html("option", { value: word }, [word])));
}

/**
 * A control for each search option the page has none of (#search-options): a checkbox,
 * a menu of its enum, or a number field within its bounds, the schema's description as
 * its tooltip.
 */
function addOptionControls(options) {
  const box = $("search-options");
  for (const [name, prop] of Object.entries(options)) {
    if (optionControl(name) || BUDGET_FIELDS.includes(name)) continue;
    const id = name.replace(/_/g, "-");
    const attrs = { id, name, "data-testid": id };
    let control;
    if (prop.type === "boolean") control = html("input", { ...attrs, type: "checkbox" });
    else if (Array.isArray(prop.enum)) control = html("select", attrs, prop.enum.map((word) => html("option", { value: word }, [word])));
    else if (prop.type === "number" || prop.type === "integer") {
      const min = prop.minimum ?? prop.exclusiveMinimum;
      control = html("input", { ...attrs, type: "number", min, max: prop.maximum ?? prop.exclusiveMaximum, step: prop.type === "integer" ? 1 : "any" });
    } else control = html("input", { ...attrs, type: "text" });
    const label = prop.type === "boolean" ? html("label", { class: "check", title: prop.description }, [control, ` ${prettyName(name)}`]) : html("label", { title: prop.description }, [prettyName(name), control]);
    box.append(label);
  }
}

/** A request field's value as its control holds it (a number's exact default: readNumber). */
function readOption(input) {
  if (input.type === "checkbox") return input.checked;
  if (input.type === "number") return readNumber(input);
  return input.value;
}

/**
 * A number field set to `value`, shown short (√2 as 1.4142) but sent exact while the
 * field shows it (readNumber): a default keeps its every digit without a field 18
 * characters wide.
 */
function setNumber(input, value) {
  const shown = Number.isInteger(value) ? String(value) : String(Number(value.toFixed(4)));
  input.value = shown;
  input.dataset.exact = String(value);
  input.dataset.shown = shown;
}

/** A number field's value: the exact default while it shows that default (setNumber). */
function readNumber(input) {
  if (input.dataset.shown !== undefined && input.value === input.dataset.shown) return Number(input.dataset.exact);
  return Number(input.value);
}

function prettyName(name) {
  return name.replace(/_/g, " ").replace(/\b\w/g, (c) => c.toUpperCase());
}

/**
 * PUCT's options show under PUCT; UCT's c, RAVE, progressive bias and expansion apply to
 * UCT only (RAVE adds a node's children at once, as expansion "all"). RAVE and
 * progressive bias extend UCT's own rule (not UCB1-Tuned's).
 */
function syncSelection() {
  const puct = $("selection").value === "puct";
  const plain = $("selection").value === "uct";
  $("puct-options").hidden = !puct;
  $("uct-c").hidden = puct;
  $("uct-options").hidden = puct;
  $("rave").disabled = !plain;
  $("progressive-bias").disabled = !plain;
  $("expansion").disabled = puct || uctOption("rave", false) > 0;
}

/** c's slider, field and figure at `value` (the field keeps its text: an exact default). */
function syncC(value) {
  if ($("c").value !== value) $("c").value = value;
  $("c-range").value = value;
  $("c-out").textContent = Number(value).toFixed(2);
  drawExploration();
}

function wireControls() {
  $("config").addEventListener("submit", (event) => {
    event.preventDefault();
    newGame();
  });
  // A new game of the game chosen, at once (its parameters' fields show its defaults).
  $("game").addEventListener("change", () => {
    drawParams();
    loadModels();
    drawEngineNote();
    newGame();
  });
  $("evaluator").addEventListener("change", () => drawEvaluatorNote());
  $("simulation").addEventListener("change", () => drawEngineNote());
  $("engine").addEventListener("change", () => drawEngineNote());
  $("budget").addEventListener("input", () => drawEngineNote());
  $("rave").addEventListener("input", () => (syncSelection(), drawExploration()));
  $("selection").addEventListener("change", () => (syncSelection(), drawExploration(), drawEngineNote()));
  $("c-puct").addEventListener("input", () => drawExploration());
  syncSelection();
  $("budget-kind").addEventListener("change", () => {
    $("budget").value = $("budget-kind").value === "time" ? "0.5" : "2000";
    setBudgetLimit();
    drawEngineNote();
  });
  $("c").addEventListener("input", () => syncC($("c").value));
  $("c-range").addEventListener("input", () => syncC($("c-range").value));
  $("ai-move").addEventListener("click", () => aiMove());
  $("cancel").addEventListener("click", () => app.view && api.cancel(app.view.id).catch((err) => showError(err, "The search could not be stopped")));
  $("restart").addEventListener("click", () => restart());
  $("step").addEventListener("click", () => guarded(() => step(false), "The step did not run"));
  $("play").addEventListener("click", togglePlay);
  $("speed").addEventListener("input", () => {
    $("speed-out").textContent = `${SPEEDS[$("speed").value]}/s`;
  });
  for (const button of document.querySelectorAll("[data-run]")) {
    button.addEventListener("click", () => guarded(() => runIterations(Number(button.dataset.run)), "The iterations did not run"));
  }
  // A depth or top-k chosen by hand stays; Fit goes back to fitting each new tree.
  $("depth").addEventListener("change", () => ((app.userSized = true), refreshTree()));
  $("top").addEventListener("change", () => ((app.userSized = true), refreshTree()));
  $("fit").addEventListener("click", () => ((app.userSized = false), fitTree().catch((err) => showError(err, "The tree could not be fitted"))));
  $("node-view-close").addEventListener("click", () => ($("node-view").hidden = true));
  // The session the page leaves is deleted: else each reload, closed tab or link
  // followed leaves one on the server, at the client's cap, for 30 minutes.
  window.addEventListener("pagehide", () => app.view && api.leave(app.view.id));
  clearOnNextAction();
}

/**
 * A banner belongs to the action that caused it: the next action (a click on a button,
 * a tab, a move, a change of a setting, in either tab) hides it, before its own
 * refusal, if any, is shown. Listened for in the capture phase, so that it runs before
 * the action's own handler.
 */
function clearOnNextAction() {
  const acts = "button, a, [role=tab], .playable, [data-action], #board [data-testid]";
  document.addEventListener("click", (event) => {
    if (event.target instanceof Element && event.target.closest(acts) && !event.target.closest("#error")) hideBanner();
  }, true);
  // A menu or a box ticked is an action; a text field's change is not: it fires on
  // blur, at the mousedown of the next click, and the banner going then would move the
  // button being clicked from under the pointer (that click hides it in its turn).
  document.addEventListener("change", (event) => {
    if (event.target instanceof Element && event.target.matches("select, input[type=checkbox], input[type=range]")) hideBanner();
  }, true);
  document.addEventListener("submit", () => hideBanner(), true);
}

/**
 * What the engine and playouts chosen cost, before the user waits for a move.
 *
 * - Heavy playouts (a rule-based policy in each playout step) run in Python on the
 *   reference engine. Measured (connect_four, 2,000 iterations, 2-core machine,
 *   2026-12-01): reference 2.0 s with random playouts and 66 s with heavy ones, compiled
 *   0.95 s heavy. The compiled engine is offered wherever the game has rule kernels.
 * - An iteration budget at the pace of this game's last AI move with the same engine,
 *   playouts and selection (app.rates): "about 40 s a move" when that is 3 s or more.
 */
function drawEngineNote() {
  const note = $("engine-note");
  const lines = [];
  if ($("simulation").value === "heavy" && $("engine").value === "reference") {
    lines.push(
      "Heavy playouts are slow on the reference engine (Python): about 30 times a random playout's cost, so a " +
        "move of 2,000 iterations can take a minute (Connect Four: 66 s measured, against 0.95 s on the compiled " +
        "engine). For heavy playouts choose compiled, or auto; or a budget in seconds.",
    );
  }
  const rate = app.rates[rateKey()];
  const iterations = Number($("budget").value);
  if ($("budget-kind").value === "iterations" && rate && iterations / rate >= 3) {
    const secs = iterations / rate;
    const pace = `${Math.round(rate).toLocaleString("en")} iterations/s`;
    lines.push(
      `At the pace of the last AI move with these settings (${pace}), a move of ${iterations.toLocaleString("en")} ` +
        `iterations takes about ${secs >= 90 ? `${Math.round(secs / 60)} min` : `${Math.round(secs)} s`}.`,
    );
  }
  note.hidden = lines.length === 0;
  note.textContent = lines.join(" ");
}

/** The settings an AI move's pace depends on: the game, engine, playouts and selection. */
function rateKey() {
  return [$("game").value, $("engine").value, $("simulation").value, $("selection").value].join("|");
}

/** Remember the pace of an AI move (iterations a second) for drawEngineNote. A move of
 * under 10 ms is too short to time (the engines count only their search's own seconds:
 * 200 reference iterations of Connect Four take about 30 ms). */
function notePace(last) {
  if (!last || !app.spec || !(last.seconds > 0.01) || !(last.iterations > 0)) return;
  const c = app.spec.config;
  app.rates[[app.spec.game, c.engine, c.simulation, c.selection].join("|")] = last.iterations / last.seconds;
  drawEngineNote();
}

/** One input per game parameter, prefilled with its default: a menu for a parameter that
 * takes one of a few words (the game's `choices`), a box for a flag, text otherwise. */
function drawParams() {
  const box = $("game-params");
  box.replaceChildren();
  const game = currentGame();
  if (!game) return;
  for (const [name, value] of paramEntries(game.parameters)) {
    const text = Array.isArray(value) ? value.join(";") : value === null ? "" : String(value);
    const words = (game.choices || {})[name];
    const input = words
      ? html("select", { name, "data-default": text }, words.map((w) => html("option", { value: w, selected: w === text }, [w])))
      : typeof value === "boolean"
        ? html("input", { type: "checkbox", name, "data-default": text, checked: value })
        : html("input", { type: "text", name, value: text, "data-default": text, placeholder: value === null ? "the game's default" : "" });
    input.dataset.kind = Array.isArray(value) ? "list" : value === null ? "null" : typeof value;
    input.setAttribute("data-testid", `param-${name}`);
    const label =
      typeof value === "boolean"
        ? html("label", { class: "check" }, [input, ` ${name}`])
        : html("label", {}, [name, input]);
    box.append(label);
  }
}

/**
 * The chosen game's trained networks as evaluator options ("network: NAME (...)"), after
 * the built-in ones; a network chosen for another game falls back to the default. Without
 * networks (none for this game, or no PyTorch on the server) the built-ins alone.
 */
function loadModels() {
  const select = $("evaluator");
  const chosen = select.value;
  app.models = (currentGame() || {}).models || [];
  for (const option of [...select.querySelectorAll("option[data-network]")]) option.remove();
  for (const model of app.models) {
    // The menu says which network ("network: connect_four"), short enough for its
    // width (the whole label was cut off there); the label in full is its tooltip, and
    // what it is and how it was trained the note below (drawEvaluatorNote).
    const option = html("option", { value: model.evaluator, title: model.label, "data-network": model.name }, [`network: ${model.name}`]);
    select.append(option);
  }
  select.value = [...select.options].some((o) => o.value === chosen) ? chosen : "uniform+rollout";
  drawEvaluatorNote();
}

/**
 * What the chosen evaluator is, when it is a trained network: its model card in a few
 * readable lines (size, training, scores with their intervals), the rest (what it is in
 * words, the command that trained it, the machine) behind "details".
 */
function drawEvaluatorNote() {
  const note = $("evaluator-note");
  const model = app.models.find((m) => m.evaluator === $("evaluator").value);
  note.hidden = !model;
  if (!model) {
    note.replaceChildren();
    return;
  }
  const card = model.card || {};
  const net = card.network || {};
  const size = [];
  if (typeof net.parameters === "number") size.push(`${net.parameters.toLocaleString("en")} parameters`);
  if (net.kind === "resnet" && net.blocks && net.channels) size.push(`${net.blocks} residual blocks of ${net.channels} channels`);
  const trained = [];
  if (typeof model.generations === "number") trained.push(`${model.generations} generation${model.generations === 1 ? "" : "s"} of self-play`);
  if (typeof model.wall_seconds === "number") trained.push(model.wall_seconds >= 60 ? `${Math.round(model.wall_seconds / 60)} min` : `${Math.round(model.wall_seconds)} s`);
  const lines = [
    html("div", {}, [html("b", {}, [model.name]), size.length ? `: ${size.join(", ")}` : ""]),
    html("div", {}, ["Its priors P weight the search and its value replaces the playout (AlphaZero's search)."]),
  ];
  if (trained.length) lines.push(html("div", {}, [`Trained: ${trained.join(", ")}.`]));
  const scored = scoresText(model.evaluation, model.card);
  if (scored) lines.push(html("div", { "data-testid": "evaluator-scores" }, [scored]));
  const details = [
    html("summary", {}, ["details"]),
    html("p", { "data-testid": "evaluator-description" }, [model.description || `A policy-value network trained for ${prettyName(model.game)}.`]),
  ];
  if (model.command) details.push(html("p", {}, ["Trained by: ", html("code", { class: "wrap" }, [model.command])]));
  lines.push(html("details", { "data-testid": "evaluator-details" }, details));
  note.replaceChildren(...lines);
}

/**
 * Why a card's scores are at a generation other than its count of generations: a run
 * started from another network's weights (train --init) counts its own generations,
 * the card the whole lineage's (its earlier runs under `lineage`).
 */
function lineageNote(card, generation) {
  const runs = card && Array.isArray(card.lineage) ? card.lineage : [];
  const before = runs.reduce((n, run) => n + (run && typeof run.generations === "number" ? run.generations : 0), 0);
  return before > 0 ? ` of its last run (${before + generation} in all)` : "";
}

/**
 * A model card's last evaluation as one line: each fixed opponent's score with its 95%
 * interval and games ("uct100 0.85 [0.54, 0.96]"); the Elo table and the rest stay in the
 * card. A card of another shape is shown as text, cut at 200 characters.
 */
function scoresText(evaluation, card) {
  if (evaluation === null || evaluation === undefined) return "";
  if (typeof evaluation !== "object") return String(evaluation);
  const scores = evaluation.scores;
  if (scores && typeof scores === "object") {
    const parts = Object.entries(scores)
      .filter(([name, v]) => !name.startsWith("gen-") && v && typeof v.score === "number")
      .map(([name, v]) => `${name} ${v.score.toFixed(2)}` + (typeof v.low === "number" && typeof v.high === "number" ? ` [${v.low.toFixed(2)}, ${v.high.toFixed(2)}]` : ""));
    const games = Object.values(scores).find((v) => v && typeof v.games === "number");
    const when = typeof evaluation.generation === "number" ? `generation ${evaluation.generation}${lineageNote(card, evaluation.generation)}` : "its last evaluation";
    if (parts.length) return `Scores at ${when}${games ? `, ${games.games} games each` : ""} (95% intervals): ${parts.join(", ")}.`;
  }
  const text = Object.entries(evaluation)
    .map(([k, v]) => `${k} ${v !== null && typeof v === "object" ? JSON.stringify(v) : v}`)
    .join(", ");
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

function paramEntries(parameters) {
  if (!parameters) return [];
  if (Array.isArray(parameters)) {
    return parameters.map((p) => (Array.isArray(p) ? p : [p.name, p.default ?? p.value ?? null]));
  }
  return Object.entries(parameters);
}

function currentGame() {
  return app.games.find((g) => g.name === $("game").value);
}

/** The game parameters the user changed (the others keep the game's defaults). */
function readParams() {
  const params = {};
  for (const input of $("game-params").querySelectorAll("input, select")) {
    if (input.type === "checkbox") {
      if (String(input.checked) !== input.dataset.default) params[input.name] = input.checked;
      continue;
    }
    const text = input.value.trim();
    if (text === input.dataset.default) continue;
    const kind = input.dataset.kind;
    if (kind === "number" && text !== "" && !Number.isNaN(Number(text))) params[input.name] = Number(text);
    else if (text === "" && kind === "null") continue;
    else params[input.name] = text;
  }
  return params;
}

/** The budget field's maximum: the server's cap on the kind of budget chosen. */
function setBudgetLimit() {
  if (!app.caps) return;
  const time = $("budget-kind").value === "time";
  $("budget").max = String(time ? app.caps.max_time : app.caps.max_iterations);
  // The form's own validation refuses what the server would: a step of 1 counts from
  // the minimum, so iterations start at 1.
  $("budget").min = time ? "0.001" : "1";
  $("budget").step = time ? "any" : "1";
}

/**
 * The budget of the AI's moves. Checked against the server's caps here, so that a
 * budget the server would refuse (422) is never sent: the message says the same.
 */
function readBudget() {
  const value = Number($("budget").value);
  const time = $("budget-kind").value === "time";
  const budget = time ? value : Math.round(value);
  if (!Number.isFinite(budget) || budget <= 0) {
    throw new Error(`Budget: ${$("budget").value || "nothing"} is not a positive number of ${time ? "seconds" : "iterations"}`);
  }
  const cap = app.caps && (time ? app.caps.max_time : app.caps.max_iterations);
  if (cap && budget > cap) {
    const [field, unit] = time ? ["time", " s"] : ["iterations", " iterations"];
    throw new Error(`Budget: ${field}=${budget} is over the server's cap of ${cap}${unit} per move`);
  }
  return time ? { time: budget } : { iterations: budget };
}

/**
 * A UCT option's number field (RAVE k, progressive bias w): 0 under another rule than
 * UCT's own (they do not apply there). `strict`: a value that is not a number >= 0 is an error (the server
 * would refuse it: 422), else it counts as 0.
 */
function uctOption(id, strict = true) {
  if ($("selection").value !== "uct") return 0;
  const input = $(id);
  const text = input.value.trim();
  const value = text === "" ? 0 : Number(text);
  if (Number.isFinite(value) && value >= 0) return value;
  if (!strict) return 0;
  const name = id === "rave" ? "RAVE k" : "Progressive bias w";
  throw new Error(`${name}: ${text} is not a number >= 0 (0: off)`);
}

/** The options read otherwise than from their control: UCT's extensions are 0 under another rule. */
const READERS = {
  rave: () => uctOption("rave"),
  progressive_bias: () => uctOption("progressive-bias"),
};

/** The request's configuration: every search option of the schema (app.options), and the budget. */
function readConfig() {
  const budget = readBudget();
  const config = {};
  for (const name of Object.keys(app.options)) {
    const input = optionControl(name);
    if (name in READERS) config[name] = READERS[name]();
    else if (input && !BUDGET_FIELDS.includes(name)) config[name] = readOption(input);
  }
  return { ...config, iterations: budget.iterations ?? null, time: budget.time ?? null };
}

// ---------------------------------------------------------------------------------------
// Playing

/**
 * A new game with the form's settings. Only once the server has made it does the page
 * leave the game shown: its session is then deleted (the server holds one game per
 * page, not one per click), its tree and report cleared. A refused new game changes
 * nothing: the board still shows the previous game, and the form gets its settings
 * back, so that what the form says is what the game plays (the banner says so).
 */
async function newGame() {
  stopPlay();
  const humanValue = $("human").value;
  const human = humanValue === "none" ? null : Number(humanValue);
  const ok = await guarded(async () => {
    const spec = { game: $("game").value, params: readParams(), config: readConfig(), human_player: human };
    const view = await api.create(spec);
    const left = app.view;
    app.human = human;
    app.spec = spec;
    app.form = snapshotForm();
    clearThink();
    $("ai-report").hidden = true;
    $("node-view").hidden = true;
    app.tree.reset();
    showView(view);
    if (left && left.id !== view.id) api.remove(left.id).catch(() => {}); // it may have expired
  }, "The new game was not started", () => refusedNewGame());
  if (ok && aiToMove()) await aiMove();
}

/** After a refused new game: the game shown stays, with its settings in the form. */
function refusedNewGame() {
  if (!app.view) {
    setStatus("No game yet: change the settings and press New game.");
    return "No game is being played.";
  }
  restoreForm(app.form);
  return "The board still shows the previous game, and the form its settings.";
}

/** The form's fields as they are (a game's parameters by name, the others by id). */
function snapshotForm() {
  const fields = {};
  for (const el of $("config").elements) {
    const key = el.closest("#game-params") ? `param:${el.name}` : el.id;
    if (!key || el.tagName === "BUTTON") continue;
    fields[key] = el.type === "checkbox" ? el.checked : el.value;
  }
  return { game: $("game").value, fields };
}

/** Put a snapshot's fields back (the game's, then its parameters' fields, then the rest). */
function restoreForm(snap) {
  if (!snap) return;
  if ($("game").value !== snap.game) {
    $("game").value = snap.game;
    drawParams();
    loadModels();
  }
  for (const el of $("config").elements) {
    const key = el.closest("#game-params") ? `param:${el.name}` : el.id;
    if (!key || !(key in snap.fields)) continue;
    if (el.type === "checkbox") el.checked = snap.fields[key];
    else el.value = snap.fields[key];
  }
  syncSelection();
  syncC($("c").value);
  drawEngineNote();
  setBudgetLimit();
  drawEvaluatorNote();
}

async function restart() {
  if (!app.view) return;
  stopPlay();
  await guarded(async () => {
    let view;
    try {
      view = await api.reset(app.view.id);
    } catch (err) {
      if (!(err instanceof ApiError && err.sessionGone)) throw err;
      view = await replaceLostGame(err, []); // a restart starts from the start anyway
    }
    clearThink();
    $("ai-report").hidden = true;
    showView(view);
  }, "The game was not restarted");
  if (aiToMove()) await aiMove();
}

/**
 * `fn(id)` on the shown game's session. A session the server no longer has (expired
 * after its idle time, or deleted) is no dead end: a new game of the same settings is
 * made in its place at the same position, the moves so far replayed, the page says so,
 * and `fn` runs again on it.
 */
async function onSession(fn) {
  try {
    return await fn(app.view.id);
  } catch (err) {
    if (!(err instanceof ApiError && err.sessionGone)) throw err;
    const view = await replaceLostGame(err, app.view.state.actions || []);
    showView(view);
    return fn(view.id);
  }
}

/**
 * The game made in place of one whose session is gone (`err`: the 404), at the position
 * after `actions` (from the start if they cannot be replayed), and the banner that says so.
 */
async function replaceLostGame(err, actions) {
  let view;
  let replayed = actions.length > 0;
  try {
    view = await api.create({ ...app.spec, actions });
  } catch (again) {
    if (!replayed) throw again;
    replayed = false;
    view = await api.create({ ...app.spec, actions: [] });
  }
  clearThink();
  app.tree.reset();
  // The 404 says how long a session may stay idle ("expired after 1800 s idle").
  const idle = /expired after ([\d.]+) s idle/.exec(err.message);
  const ttl = idle ? ` after ${Number(idle[1]) >= 120 ? `${Math.round(Number(idle[1]) / 60)} minutes` : `${idle[1]} s`} idle` : "";
  const where = replayed
    ? `at the same position (its ${actions.length} move${actions.length === 1 ? "" : "s"} replayed; the search tree starts afresh)`
    : "from the start";
  showBanner(`The server no longer had this game (it expires${ttl}, or was deleted): a new game with the same settings was started in its place, ${where}`, { kind: "notice" });
  return view;
}

function aiToMove() {
  const v = app.view;
  return Boolean(v) && !v.state.terminal && app.human !== null && v.state.current_player !== app.human;
}

function humanToMove() {
  const v = app.view;
  return Boolean(v) && !v.state.terminal && (app.human === null || v.state.current_player === app.human);
}

async function playMove(action) {
  if (app.busy || !humanToMove()) return;
  stopPlay();
  const ok = await guarded(async () => {
    const view = await onSession((id) => api.play(id, action));
    clearThink();
    showView(view);
  }, "The move was not played");
  if (ok && aiToMove()) await aiMove();
}

async function aiMove() {
  if (!app.view || app.view.state.terminal) return;
  stopPlay();
  // "Stop thinking" for a search that lasts: shown at once, it flashed for every quick
  // answer, after "Your turn" too.
  const showCancel = setTimeout(() => ($("cancel").hidden = false), 400);
  setStatus(app.view.engine_ready === false
    ? "The AI is thinking… (its first move of this game in the server compiles the engine, or loads it from numba's cache: up to a minute the first time after installing)"
    : "The AI is thinking…");
  let stopped = false;
  const ok = await guarded(async () => {
    let view;
    try {
      const budget = readBudget();
      view = await onSession((id) => api.ai(id, budget));
    } catch (err) {
      // "Stop thinking": the server answers 409 and plays no move.
      if (!(err instanceof ApiError && err.status === 409 && /^the search was cancelled/.test(err.message))) throw err;
      stopped = true;
      view = await api.session(app.view.id);
    }
    clearThink();
    showView(view);
    if (!stopped) notePace(view.last_ai);
  }, "The AI did not move");
  clearTimeout(showCancel);
  $("cancel").hidden = true;
  if (stopped) setStatus('The AI was stopped before it moved: press "AI move" to let it think again.');
  // Refused (the error bar says why): the status says again whose turn it is.
  else if (!ok && app.view) setStatus(statusText());
  // In some games a player moves again (Pig: roll after roll): the AI plays on.
  else if (ok && aiToMove()) await aiMove();
}

/**
 * Run `fn` with the page marked busy. Its refusal goes to the banner as "LEAD: why.",
 * with `after()`'s sentence (what the page did about it) if given. Returns success
 * (false also when another request was running: nothing was done).
 */
async function guarded(fn, lead = "", after = null) {
  if (app.busy) return false;
  app.busy = true;
  updateButtons();
  try {
    await fn();
    await app.treeDrawn;
    return true;
  } catch (err) {
    showError(err, lead, after ? after() : "");
    return false;
  } finally {
    app.busy = false;
    updateButtons();
  }
}

// ---------------------------------------------------------------------------------------
// Drawing the session

function showView(view) {
  // A new position (a move, another game) is a new tree: a zoom or pan of the last
  // one, made for its nodes, would show the new one off its edges; it is fitted afresh.
  const position = `${view.id}:${(view.state.actions || []).join(",")}`;
  if (position !== app.position) app.tree.reset();
  app.position = position;
  app.view = view;
  drawMainBoard();
  setStatus(statusText());
  $("status").classList.toggle("over", view.state.terminal);
  const moves = moveList(view.state);
  $("history").textContent = moves.length ? `Moves: ${moves.join(", ")}` : "";
  // Go games can be saved as SGF (the moves so far; the result once over).
  const go = view.state.render && view.state.render.kind === "go";
  $("sgf-row").hidden = !go;
  if (go) $("save-sgf").href = api.sgfUrl(view.id);
  drawAiReport(view.last_ai);
  // Once the game is over the reference tree is empty, and the panel shows the last
  // search's (kept_tree): the counts are that tree's, not "Tree: 0 nodes" beside it.
  const kept = view.state.terminal ? view.kept_tree : null;
  setCounts(kept ? { nodes: kept.nodes, root_visits: kept.root_visits } : view.tree);
  updateButtons();
  // The request that showed this view stays busy until its tree is drawn (guarded).
  app.treeDrawn = autoFitOrRefresh().catch(() => {});
}

/**
 * The tree of a new position: fitted to the panel (the depth and top-k whose tree fits,
 * as Fit chooses them) before it is drawn, so that the root and a step's path stay in
 * view whatever the selection rule; as the user set it once they chose a depth or top-k
 * or moved the view.
 */
async function autoFitOrRefresh() {
  if (app.userSized || app.tree.userMoved || !treeToShow()) return refreshTree();
  await fitTree(true).catch(() => refreshTree());
}

/** Whether the tree panel has a tree to draw: this position's, or a kept search's. */
function treeToShow() {
  const searched = Number($("root-visits").dataset.n) > 0;
  return (searched && !app.view.state.terminal) || Boolean(app.view.kept_tree);
}

function drawMainBoard() {
  const v = app.view;
  const board = drawBoard(v.state.render, {
    interactive: humanToMove(),
    onAction: (action) => playMove(action),
    legal: v.state.legal,
    text: v.state.text,
    highlight: v.last_ai ? lastPlayed() : null,
    testids: true,
  });
  $("board").replaceChildren(board);
}

/**
 * The move list: each move's name; a chance outcome (a die) follows the move that
 * called for it, with what it did to the turn: "roll → 4", "roll → 1 (turn over)".
 */
function moveList(state) {
  const moves = state.moves || [];
  const items = [];
  for (let i = 0; i < moves.length; i++) {
    const move = moves[i];
    if (move.player !== CHANCE) {
      items.push(move.label);
      continue;
    }
    const caller = moves[i - 1];
    if (!caller || caller.player === CHANCE) {
      items.push(`(${move.label})`);
      continue;
    }
    // "roll" then "Roll 4": the outcome's name without the word the move already said.
    const words = move.label.split(" ");
    const outcome = words.length > 1 && words[0].toLowerCase() === caller.label.toLowerCase() ? words.slice(1).join(" ") : move.label;
    // Who decides next: the next move's player, or the player to move now.
    const next = i + 1 < moves.length ? moves[i + 1].player : state.terminal ? caller.player : state.current_player;
    const over = next !== CHANCE && next !== caller.player ? " (turn over)" : "";
    items[items.length - 1] += ` → ${outcome}${over}`;
  }
  return items;
}

/** The last action played, when the AI played it (it gets marked on the board). */
function lastPlayed() {
  const actions = app.view.state.actions || [];
  const last = actions[actions.length - 1];
  return app.view.last_ai && app.view.last_ai.action === last ? last : null;
}

/** A player as people name it (the server's player_names: X/O, Red/Yellow, player 1...). */
function playerName(p) {
  const names = (app.view && app.view.state.player_names) || [];
  return names[p] ?? `player ${p + 1}`;
}

function statusText() {
  const s = app.view.state;
  if (s.terminal) {
    const returns = s.returns || [];
    const best = Math.max(...returns);
    const winners = returns.map((r, i) => (r === best ? i : -1)).filter((i) => i >= 0);
    // How it ended, where the game says (Go: at the move limit, counted as the board stands).
    const over = s.ending ? `Game over ${s.ending}` : "Game over";
    if (winners.length !== 1) return `${over}: a draw.`;
    const w = winners[0];
    if (app.human === null) return `${over}: ${playerName(w)} wins.`;
    return w === app.human ? `${over}: you win (${playerName(w)})!` : `${over}: the AI wins (${playerName(w)}).`;
  }
  const p = s.current_player;
  if (app.human === null) return `${playerName(p)} to move: click a move, or "AI move".`;
  return p === app.human ? `Your turn (${playerName(p)}).` : `The AI (${playerName(p)}) is to move.`;
}

function setStatus(text) {
  $("status").textContent = text;
}

function drawAiReport(last) {
  if (!last) {
    $("ai-report").hidden = true;
    return;
  }
  $("ai-report").hidden = false;
  const rule = FINAL_RULES[last.final_rule] ?? last.final_rule;
  let secs = last.seconds !== undefined ? `, ${last.seconds.toFixed(2)} s` : "";
  // The engine's first move in the server compiles its code: said apart, never as search time.
  if (last.compile_seconds >= 0.5) secs += ` (+ ${last.compile_seconds.toFixed(1)} s compiling the engine for this game, first time only)`;
  // The move's value (its bar's figure: the mean return of its simulations, or its proven
  // return), for the player who played it; the position's mean (AiReport.value) apart.
  const scale = app.view.state.value_scale || [-1, 1];
  const player = playerName(last.player);
  const chosen = (last.children || []).find((c) => c.action === last.action);
  const how = !chosen ? "" : typeof chosen.proven === "number" ? " (proven by MCTS-Solver)" : ` (the mean of its ${chosen.visits} simulations)`;
  $("ai-summary").replaceChildren(
    html("span", {}, [`Played `]),
    html("b", { "data-testid": "ai-move-label" }, [last.label ?? String(last.action)]),
    html("span", {}, [": value "]),
    html("b", { "data-testid": "ai-move-value" }, [chosen ? valueText(chosen, scale) : "–"]),
    html("span", {}, [` for ${player}${how}; position `]),
    html("span", { "data-testid": "ai-position-value" }, [fmtValue(last.value)]),
    html("span", {}, [
      ` (the mean of every simulation from the root), both on the game's scale ${scaleText(scale)}. ${last.iterations.toLocaleString("en")} iterations${secs}${keptText(last)}. Picked by the final-move rule: `,
    ]),
    html("b", { "data-testid": "final-rule" }, [rule]),
    html("span", {}, ["."]),
  );
  $("root-stats").replaceChildren(rootStatsChart(last.children || [], last.action, { player, scale }));
}

/** Why the moves' visits can add up to more than the search's iterations: the kept tree. */
function keptText(last) {
  const visits = (last.children || []).reduce((sum, c) => sum + c.visits, 0);
  if (visits <= last.iterations) return "";
  return ` (the moves' ${visits.toLocaleString("en")} visits include earlier searches': the tree is kept from move to move)`;
}

function setCounts(tree) {
  if (!tree) return;
  // Thousands separators on the page ("3,243,229"); the number itself in data-n.
  if (tree.nodes !== undefined) {
    $("node-count").textContent = tree.nodes.toLocaleString("en");
    $("node-count").dataset.n = String(tree.nodes);
    $("node-word").textContent = tree.nodes === 1 ? "node" : "nodes";
  }
  if (tree.root_visits !== undefined) {
    $("root-visits").textContent = tree.root_visits.toLocaleString("en");
    $("root-visits").dataset.n = String(tree.root_visits);
  }
  drawExploration();
}

/** The exploration chart and its line for the selection rule chosen in the settings. */
function drawExploration() {
  const rule = $("selection").value;
  const puct = rule === "puct";
  const c = Number($(puct ? "c-puct" : "c").value) || 0;
  const n = Number($("root-visits").dataset.n) || null;
  // PUCT's prior as the page's evaluators give it: uniform over the legal moves.
  const legal = app.view && app.view.state.legal ? app.view.state.legal.length : 0;
  const prior = legal > 0 ? 1 / legal : 0.25;
  $("explore-chart").replaceChildren(explorationChart(c, n, { rule: puct ? "puct" : "uct", prior }));
  const k = Number($("rave").value) || 0;
  let hint;
  if (puct) {
    hint = `c·P·√N / (1 + n): PUCT's bonus for a child of prior P (here the evaluators' uniform prior, 1/${legal || 4} of the moves) with n visits under a parent with N. It shrinks as 1/n and grows as √N, much faster than UCT's; a strong prior pulls visits to its move.`;
  } else if (rule !== "uct") {
    hint = "UCT's c·√(ln N / n), for comparison: UCB1-Tuned replaces c² by a bound on the child's variance, min(1/4, V + √(2 ln N / n)), so its bonus follows the rewards' spread.";
  } else if (k > 0) {
    const beta = n ? Math.sqrt(k / (3 * n + k)) : 1;
    hint = `c·√(ln N / n) as under UCT; with RAVE the value beside it blends Q/N with the all-moves-as-first mean, weighted β = √(k / (3N + k)): β = ${beta.toFixed(2)} at the root's N = ${n ? n.toLocaleString("en") : 0}, falling as N grows.`;
  } else {
    hint = "c·√(ln N / n): the bonus a child with n visits gets under a parent with N. It shrinks as the child is visited and grows only slowly with N.";
  }
  $("explore-hint").textContent = hint;
}

function updateButtons() {
  const over = !app.view || app.view.state.terminal;
  const idle = !app.busy;
  $("ai-move").disabled = !idle || over || !(app.human === null || aiToMove());
  $("step").disabled = !idle || over || app.playing;
  $("play").disabled = over;
  for (const b of document.querySelectorAll("[data-run]")) b.disabled = !idle || over || app.playing;
  $("restart").disabled = !idle || !app.view;
  $("new-game").disabled = !idle;
  $("game").disabled = !idle; // choosing a game starts one: not while a request runs
  $("board").classList.toggle("busy", app.busy);
  document.body.dataset.busy = String(app.busy || app.playing);
  for (const a of document.querySelectorAll(".exports a")) a.setAttribute("aria-disabled", String(!app.view));
}

// ---------------------------------------------------------------------------------------
// The tree

let treeRequest = 0;

/** Draw the tree again; `searched`: whether the reference tree has a search (its root visits). */
async function refreshTree(searched = Number($("root-visits").dataset.n) > 0) {
  if (!app.view) return;
  const ticket = ++treeRequest;
  // The exports give the tree as shown: the same depth and top-k.
  for (const format of ["dot", "svg", "json", "text"]) {
    $(`export-${format}`).href = api.exportUrl(app.view.id, format, { depth: $("depth").value, top: topK() });
  }
  // The reference tree at the current position once it has a search (a step, a run,
  // the reference engine's move); else the earlier search the server kept: a compiled
  // AI move's tree, or the last search before the end (the view's kept_tree).
  const current = searched && !app.view.state.terminal;
  const kept = current ? null : app.view.kept_tree;
  setTreeNote(kept);
  if (!current && !kept) {
    // No tree: the game is over, or nothing has been searched here yet.
    app.tree.setTree(null, app.view.state.terminal ? "The game is over: no tree." : undefined);
    return;
  }
  const depth = Number($("depth").value);
  try {
    // The step's path is drawn whatever the depth and top-k (the server adds its nodes).
    const tree = await api.tree(app.view.id, { depth, top: topK(), path: app.treePath });
    if (ticket !== treeRequest) return; // a newer request has been made
    await app.tree.setTree(tree.visits > 0 || (tree.children || []).length ? tree : null);
  } catch {
    // No tree yet (a fresh session): nothing to draw.
    if (ticket === treeRequest) app.tree.setTree(null);
  }
}

/**
 * The line above the tree: which engine's tree it is and from which position when it is
 * a kept search's (an earlier position: the moves since are not in it); for a compiled
 * session showing the reference tree, that the AI's own tree is another.
 */
function setTreeNote(kept) {
  const note = $("tree-note");
  note.dataset.reference ??= note.textContent;
  if (!kept) {
    note.textContent = note.dataset.reference;
    note.hidden = app.view.engine !== "compiled";
    return;
  }
  const moves = app.view.state.moves || [];
  const at = kept.actions.length;
  const where = at === 0 ? "the start of the game" : `the position after ${at} move${at === 1 ? "" : "s"}`;
  const next = moves[at] ? `, where ${moves[at].label} was played` : "";
  const what = `the ${kept.engine} engine's tree of the last search${app.view.state.terminal ? " before the end" : ""}`;
  note.textContent = `${app.view.state.terminal ? "The game is over: this is " : "This is "}${what}, searched from ${where}${next} (N=${kept.root_visits}).`;
  note.hidden = false;
}

/**
 * Fit: the depth and top-k whose tree fits the panel with its text at full size (the
 * most nodes; ties: the deeper), chosen from one request, then the tree redrawn.
 */
/**
 * Choose the largest depth and top-k whose tree fits the panel. An automatic fit (of a
 * new tree) gives way to a depth or top-k the user chose while it was asking the server.
 */
async function fitTree(auto = false) {
  if (!app.view || (!auto && !app.tree.root)) return app.tree.fit();
  const room = app.tree.room();
  const options = (id) => [...$(id).options].map((o) => o.value).filter((v) => v !== "").map(Number);
  const depths = options("depth");
  const tops = options("top");
  // The largest tree that could fit, at the boxes' smallest height; then the boxes of
  // the tree fetched (taller in a RAVE tree: a line of AMAF statistics).
  const tall = depths.filter((d) => sizeFits({ cols: 1, levels: d + 1 }, room));
  const wide = tops.filter((k) => sizeFits({ cols: k, levels: 1 }, room));
  const depth = Math.max(depths[0], ...tall);
  const top = Math.max(tops[0], ...wide);
  const tree = await api.tree(app.view.id, { depth, top });
  if (auto && (app.userSized || app.tree.userMoved)) return refreshTree();
  const boxH = boxHeight(tree);
  let best = { depth: depths[0], top: tops[0], nodes: 0 };
  for (const d of depths.filter((d) => d <= depth)) {
    for (const k of tops.filter((k) => k <= top)) {
      const size = shownSize(tree, d, k);
      if (sizeFits(size, room, boxH) && size.nodes >= best.nodes) best = { depth: d, top: k, nodes: size.nodes };
    }
  }
  $("depth").value = String(best.depth);
  $("top").value = String(best.top);
  app.tree.fit();
  await refreshTree();
}

function topK() {
  const v = $("top").value;
  return v === "" ? undefined : Number(v);
}

async function openNode(node) {
  const position = await api.node(app.view.id, node.id);
  // The moves from the searched position, as the board names them ("after e5, d4, c3").
  const path = (position.moves || []).join(", ");
  const title = node.id === "" ? "The searched position" : `After ${path || node.label || node.action}`;
  $("node-view-title").textContent = title;
  $("node-view-board").replaceChildren(
    drawBoard(position.render, { size: position.render.kind === "piles" ? 16 : 32, text: position.text, interactive: false }),
  );
  $("node-view-text").textContent = position.text;
  $("node-view").hidden = false;
}

// ---------------------------------------------------------------------------------------
// Watch it think

function setCountsFrom(data) {
  const counts = data.tree ?? data;
  setCounts({ nodes: counts.nodes, root_visits: counts.root_visits });
}

/**
 * Run one iteration and show its trace. A click on Step returns once the tree and the
 * counts are updated and lets the phases play out on their own (the next step cancels
 * them); the play loop waits for them (`wait`).
 */
async function step(wait) {
  const trace = await onSession((id) => api.step(id));
  app.treePath = lastNode(trace);
  // The tree and the counts change with the panel's phases (stepPhase): until then, they
  // are those from before the iteration.
  app.tree.stage(trace, "selection");
  const added = trace.expansion ? trace.expansion.added : 0;
  setCounts({ nodes: trace.nodes - added, root_visits: trace.root_visits - 1 });
  await refreshTree(true);
  const rate = SPEEDS[$("speed").value];
  const shown = app.think.show(trace, { animate: rate <= 3, phaseMs: Math.min(900, 1000 / rate / 4) });
  if (wait) await shown;
}

/**
 * The tree and the counts as the step panel reaches `phase` of `trace`: the new node
 * appears at the expansion, N and Q/N and the counts change at the backpropagation.
 */
function stepPhase(phase, trace) {
  if (phase === "expansion") app.tree.stage(trace, "expansion");
  if (phase === "backpropagation") {
    app.tree.stage(null);
    setCountsFrom(trace);
  }
}

/** No iteration shown: the phases emptied, the tree no longer held to a step's path. */
function clearThink() {
  app.think.clear();
  app.tree.stage(null);
  app.treePath = "";
}

/** The deepest node of an iteration: the node added, or the leaf the descent stopped at. */
function lastNode(trace) {
  if (trace.expansion) return trace.expansion.node;
  const path = trace.path || [...trace.backpropagation].reverse().map((u) => u.node);
  return path[path.length - 1] || "";
}

async function runIterations(k) {
  const result = await onSession((id) => api.iterations(id, k));
  setCountsFrom(result);
  clearThink();
  // A batch makes a tree of another size: fitted again, as a new position's is.
  await autoFitOrRefresh();
}

function togglePlay() {
  if (app.playing) stopPlay();
  else startPlay();
}

async function startPlay() {
  if (app.playing || app.busy || !app.view || app.view.state.terminal) return;
  app.playing = true;
  $("play").textContent = "❚❚ Pause";
  $("play").setAttribute("aria-pressed", "true");
  updateButtons();
  while (app.playing) {
    const started = performance.now();
    const rate = SPEEDS[$("speed").value];
    try {
      await step(true);
    } catch (err) {
      showError(err, "The step did not run");
      break;
    }
    const wait = 1000 / rate - (performance.now() - started);
    if (wait > 0) await sleep(wait);
  }
  stopPlay();
}

function stopPlay() {
  if (!app.playing) return;
  app.playing = false;
  $("play").textContent = "▶ Play";
  $("play").setAttribute("aria-pressed", "false");
  updateButtons();
}

// ---------------------------------------------------------------------------------------
// Errors

/** The banner for a refusal of the action `lead` names (dom.js showBanner). */
function showError(err, lead = "", after = "") {
  showBanner(err, { lead, after });
}

main();
