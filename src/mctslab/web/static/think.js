// "Watch it think": one iteration's trace (mctslab.search.trace.IterationTrace) shown phase by
// phase, as every MCTS lecture draws it:
//   1 selection:        the descent, each level's children with N, Q/N and UCT, the pick;
//   2 expansion:        the node added;
//   3 simulation:       the playout, replayed move by move on a small board, its result;
//   4 backpropagation:  N and Q/N updated from the leaf up, the reward flipping between
//                       the two players (r for the one who moved in, 1 - r above).
// Under PUCT (trace.selection_rule "puct") the children show their prior P and PUCT score,
// the expansion is the leaf's evaluation (all its children added, with the evaluator's
// priors) and phase 3 the evaluator's value (or its playout: "uniform+rollout").
// With RAVE (trace.rave > 0) the children show their all-moves-as-first N~ and Q~ and the
// RAVE score, each level its weight β, and the backpropagation counts the children whose
// AMAF statistics were updated; with progressive bias, each child's w·H.
// Means and rewards are on the engine's [0, 1] scale (win 1, draw 0.5, loss 0).

import { applyAction, canReplay, drawBoard } from "./board.js";
import { fmtMean, fmtUct, html, sleep } from "./dom.js";

const PHASES = ["selection", "expansion", "simulation", "backpropagation"];
const MAX_ROWS = 8; // children shown per level of the descent (the pick always among them)
const PLAYOUT_ENDS = 10; // moves shown at each end of a long playout, the rest counted
// What the tables' columns hold: Q/N is the engine's reward in [0, 1], not a move's value
// on the game's scale (the AI report's chart).
const HEAD_TITLES = {
  N: "visits",
  "Q/N": "Q/N: mean reward in [0, 1] for the player who moved here (win 1, draw 0.5, loss 0)",
  reward: "the playout's reward in [0, 1] for the player who moved here",
  UCT: "Q/N + c·√(ln N_parent / N)",
  P: "the evaluator's prior of the move",
  PUCT: "Q/N + c·P·√N_parent / (1 + N) (Q/N is the FPU when N = 0)",
  "N~": "all-moves-as-first visits: iterations in which the same player played this move later on",
  "Q~": "all-moves-as-first mean reward in [0, 1]",
  "w·H": "progressive bias: w times the game's heuristic of the position, in [0, 1]",
  RAVE: "(1 − β)·Q/N + β·Q~/N~ + c·√(ln N_parent / N) + w·H / (N + 1), β = √(k / (3·N_parent + k))",
  "UCT+PB": "Q/N + c·√(ln N_parent / N) + w·H / (N + 1)",
  AMAF: "children of the node whose all-moves-as-first statistics (N~, Q~) this iteration updated",
};

export class ThinkPanel {
  /**
   * @param {HTMLElement} list the <ol> whose <li data-phase=...> hold the phases
   * @param {{nodePosition: (id) => Promise<{render, text}>, highlight: (path, fresh) => void, playerName?: (p) => string}} hooks
   */
  constructor(list, hooks) {
    this.list = list;
    this.hooks = hooks;
    this.token = 0;
  }

  /** A player's name as the page says it (the board's X/O, Red/Yellow; else "player 1"). */
  who() {
    return this.hooks.playerName ?? ((p) => `player ${p + 1}`);
  }

  item(phase) {
    return this.list.querySelector(`[data-phase="${phase}"]`);
  }

  body(phase) {
    return this.item(phase).querySelector(".phase-body");
  }

  clear() {
    this.token += 1;
    for (const phase of PHASES) {
      this.item(phase).classList.remove("active", "done");
      this.body(phase).replaceChildren();
    }
    this.hooks.highlight([], null);
  }

  /**
   * Show a trace. With `animate`, the phases light up in turn, `phaseMs` apart, the
   * playout is replayed move by move and the updates climb the path; without, all at once.
   */
  async show(trace, { animate = true, phaseMs = 500 } = {}) {
    this.clear();
    this.trace = trace;
    const token = this.token;
    const alive = () => token === this.token;
    const pause = async (ms) => {
      if (animate) await sleep(ms);
      return alive();
    };
    const path = trace.path || [...trace.backpropagation].reverse().map((u) => u.node);
    const name = nodeNames(trace);
    const start = trace.simulation && canReplayKind(trace) ? this.hooks.nodePosition(trace.simulation.start).catch(() => null) : null;

    // 1 Selection: the path lights up in the tree, level by level.
    this.enter("selection");
    const selBody = this.body("selection");

    const walked = [path[0]];
    for (const level of trace.selection) {
      selBody.append(selectionLevel(level, name, trace.selection_rule === "puct", scoreRule(trace)));
      const chosen = level.children.find((c) => c.chosen);
      walked.push(level.node === "" ? String(level.chosen) : `${level.node}.${level.chosen}`);
      this.hooks.highlight(walked.slice(), null);
      if (chosen && !(await pause(phaseMs / Math.max(1, trace.selection.length)))) return;
    }
    const leaf = path[trace.selection.length];
    selBody.append(html("div", { class: "stop", "data-testid": "selection-leaf" }, [stopText(name(leaf), trace)]));
    this.hooks.highlight(path.slice(0, trace.selection.length + 1), null);
    if (!(await pause(phaseMs))) return;

    // 2 Expansion: the new node.
    this.enter("expansion");
    const exp = trace.expansion;
    const expBody = this.body("expansion");
    if (exp && exp.priors) {
      // PUCT: the leaf is evaluated; every child is added at once, with its prior.
      const priors = [...exp.priors].sort((a, b) => b.prior - a.prior || a.action - b.action);
      const shownPriors = priors.slice(0, MAX_ROWS);
      expBody.append(
        html("div", { "data-testid": "expanded-node" }, [
          `The evaluator (${trace.simulation.evaluator}) is asked about ${exp.node === "" ? "the root" : name(exp.node)}: its ${exp.added} move${exp.added === 1 ? "" : "s"} become children at once, each with its prior P.`,
        ]),
        html("table", { "data-testid": "expansion-priors" }, [
          html("tr", {}, ["move", "P"].map((h) => html("th", { title: HEAD_TITLES[h] ?? "" }, [h]))),
          ...shownPriors.map((p) => html("tr", {}, [html("td", {}, [p.label]), html("td", {}, [p.prior.toFixed(3)])])),
        ]),
        priors.length > shownPriors.length ? html("div", { class: "hint" }, [`(${priors.length - shownPriors.length} more)`]) : "",
      );
      this.hooks.highlight(path, exp.node);
    } else if (exp) {
      expBody.append(
        html("div", { "data-testid": "expanded-node" }, [
          "Added ",
          html("b", {}, [exp.label]),
          ` ${exp.parent === "" ? "at the root" : name(exp.parent)} (the new node: ${name(exp.node)}`,
          exp.added > 1 ? `, with ${exp.added - 1} siblings: ${trace.rave > 0 ? "RAVE adds every child at once, so that all gather AMAF statistics" : 'expansion "all"'}` : "",
          `); ${exp.untried_left} untried move${exp.untried_left === 1 ? "" : "s"} left there.`,
        ]),
      );
      this.hooks.highlight(path, exp.node);
    } else {
      expBody.append(html("div", { "data-testid": "expanded-node" }, [noExpansionReason(trace)]));
      this.hooks.highlight(path, null);
    }
    if (!(await pause(phaseMs))) return;

    // 3 Simulation: the playout, move by move.
    this.enter("simulation");
    const sim = trace.simulation;
    const simBody = this.body("simulation");
    const result = html("div", { class: "result", "data-testid": "playout-result" }, [resultText(sim, this.who())]);
    if (sim.kind === "evaluation") {
      const values = (sim.value || []).map((v, p) => `${this.who()(p)} ${fmtMean(v)}`).join(", ");
      simBody.append(
        html("div", { "data-testid": "evaluator-value" }, [
          `The evaluator (${sim.evaluator}) values the leaf: `,
          html("b", {}, [values]),
          " (rewards in [0, 1]), in place of a playout",
          sim.actions.length ? `, mixed with the playout below (${Math.round(100 * sim.mix)}% playout).` : ".",
        ]),
      );
    } else if (sim.evaluator) {
      simBody.append(html("div", { "data-testid": "evaluator-value" }, [`The evaluator (${sim.evaluator}) gives no value: a random playout's result is the leaf's value.`]));
    }
    if (sim.kind !== "playout" && !sim.actions.length) {
      if (sim.kind !== "evaluation") {
        simBody.append(html("div", {}, [sim.kind === "terminal" ? "The leaf ends the game: its exact result, no playout." : "MCTS-Solver knows the leaf's value: no playout."]));
      }
      simBody.append(result);
    } else {
      const moves = html("div", { class: "playout-moves", "data-testid": "playout-moves" });
      const chips = sim.labels.map((label) => html("span", { class: animate ? "later" : "" }, [label]));
      // A long playout (Pig's, to 100 points: hundreds of moves) shows its first and last
      // moves and counts those between; the board still replays every one.
      const long = chips.length > 2 * PLAYOUT_ENDS + 1;
      const gap = long ? html("span", { class: "skipped", "data-testid": "playout-skipped" }, [`… ${chips.length - 2 * PLAYOUT_ENDS} more …`]) : null;
      const shownChips = long ? [...chips.slice(0, PLAYOUT_ENDS), gap, ...chips.slice(-PLAYOUT_ENDS)] : chips;
      moves.append(html("span", { class: "from" }, [`playout ${sim.start === "" ? "from the root" : name(sim.start)}:`]), ...shownChips);
      if (chips.length === 0) moves.append(html("span", {}, ["(no moves)"]));
      const boardBox = html("div", { class: "mini-board", "data-testid": "playout-board" });
      simBody.append(html("div", { class: "playout" }, [boardBox, moves]));
      const position = start ? await start : null;
      if (!alive()) return;
      let render = position && canReplay(position.render) ? position.render : null;
      const drawMini = (highlight) => {
        if (render) boardBox.replaceChildren(drawBoard(render, { size: render.kind === "piles" ? 12 : 22, highlight }));
      };
      drawMini(null);
      const perMove = Math.min(phaseMs, 2500 / Math.max(1, chips.length));
      for (let i = 0; i < chips.length; i++) {
        if (render) render = applyAction(render, sim.actions[i]);
        chips.forEach((chip, j) => chip.classList.toggle("now", animate && j === i));
        chips[i].classList.remove("later");
        if (gap) gap.classList.toggle("now", animate && i >= PLAYOUT_ENDS && i < chips.length - PLAYOUT_ENDS);
        if (animate) {
          drawMini(sim.actions[i]);
          if (!(await pause(perMove))) return;
        }
      }
      chips.forEach((chip) => chip.classList.remove("now"));
      if (gap) gap.classList.remove("now");
      drawMini(sim.actions.length ? sim.actions[sim.actions.length - 1] : null);
      simBody.append(result);
    }
    if (!(await pause(phaseMs))) return;

    // 4 Backpropagation: leaf to root.
    this.enter("backpropagation");
    const backBody = this.body("backpropagation");
    const rave = trace.rave > 0;
    const rows = trace.backpropagation.map((u) => updateRow(u, name, this.who(), rave));
    const heads = ["node", "moved in", "reward", "N", "Q/N", ...(rave ? ["AMAF"] : [])];
    const table = html("table", { "data-testid": "backprop-table" }, [
      html("tr", {}, heads.map((h) => html("th", { title: HEAD_TITLES[h] ?? "" }, [h]))),
    ]);
    backBody.append(table);
    if (rave) backBody.append(amafNote(trace));
    const twoPlayers = (sim.rewards || []).length === 2;
    if (twoPlayers && rows.length > 2) {
      backBody.append(
        html("div", { class: "hint" }, [
          "Each node adds the reward of the player who moved into it: r for one player, 1 − r for the other, so the reward ",
          html("span", { class: "flip" }, ["flips"]),
          " at every level (negamax).",
        ]),
      );
    }
    for (const row of rows) {
      table.append(row);
      if (!(await pause(phaseMs / Math.max(1, rows.length)))) return;
    }
    this.finish();
  }

  /** Light up `phase`; the page's `phase` hook changes the tree and the counts with it. */
  enter(phase) {
    if (this.hooks.phase) this.hooks.phase(phase, this.trace);
    for (const p of PHASES) {
      const li = this.item(p);
      if (p === phase) {
        li.classList.add("active");
        li.classList.remove("done");
      } else if (li.classList.contains("active")) {
        li.classList.remove("active");
        li.classList.add("done");
      }
    }
  }

  finish() {
    for (const p of PHASES) {
      this.item(p).classList.remove("active");
      this.item(p).classList.add("done");
    }
  }
}

function canReplayKind(trace) {
  return trace.simulation.kind === "playout" || (trace.simulation.actions || []).length > 0;
}

/**
 * Names for the nodes of the iteration's path: the moves from the root by their labels
 * ("the root", "after 4·4"). Node ids are action ids, which the labels of some games
 * do not match (Connect Four's column 3 is labelled 4).
 */
function nodeNames(trace) {
  const names = new Map([["", "the root"]]);
  const labels = new Map([["", []]]);
  const add = (parent, id, label) => {
    const moves = [...(labels.get(parent) ?? [parent]), label];
    labels.set(id, moves);
    names.set(id, `after ${moves.join("·")}`);
  };
  for (const level of trace.selection) {
    const chosen = level.children.find((c) => c.chosen);
    const id = level.node === "" ? String(level.chosen) : `${level.node}.${level.chosen}`;
    add(level.node, id, chosen ? chosen.label : String(level.chosen));
  }
  // PUCT's expansion adds no node to the path (the leaf itself is evaluated).
  if (trace.expansion && !trace.expansion.priors) add(trace.expansion.parent, trace.expansion.node, trace.expansion.label);
  return (id) => names.get(id) ?? `node ${id}`;
}

function chanceLevel(level, name) {
  // A chance node (dice): the outcome is drawn by its probability, not chosen by UCT.
  const pick = level.children.find((c) => c.chosen);
  const where = name(level.node);
  return html("div", { class: "level", "data-testid": "chance-level" }, [
    html("div", { class: "level-head" }, [
      `${where === "the root" ? "At the root" : where[0].toUpperCase() + where.slice(1)} (N=${level.visits}): `,
      html("b", {}, [`chance drew ${pick ? pick.label : String(level.chosen)}`]),
      " (sampled by its probability; outcomes so far: ",
      level.children.map((c) => `${c.label} ${c.visits}`).join(", "),
      ")",
    ]),
  ]);
}

/** The selection score's name: the trace's (the rule's label: "UCT", "UCB1-Tuned", "RAVE",
 * "UCT+PB" for progressive bias alone, "PUCT"); from the options for an older trace. */
function scoreRule(trace) {
  if (trace.score_label) return trace.score_label;
  if (trace.selection_rule === "puct") return "PUCT";
  if (trace.rave > 0) return "RAVE";
  return trace.progressive_bias > 0 ? "UCT+PB" : "UCT";
}

function selectionLevel(level, name, puct = false, rule = puct ? "PUCT" : "UCT") {
  if (level.to_play === -1) return chanceLevel(level, name);
  // The most promising children by UCT (or PUCT, or RAVE's score), the pick always shown.
  const sorted = [...level.children].sort((a, b) => uctKey(b) - uctKey(a) || a.action - b.action);
  let shown = sorted.slice(0, MAX_ROWS);
  const pick = level.children.find((c) => c.chosen);
  if (pick && !shown.includes(pick)) shown = [...shown.slice(0, MAX_ROWS - 1), pick];
  const where = name(level.node);
  const rave = !puct && typeof level.beta === "number";
  const biased = !puct && level.children.some((c) => typeof c.bias === "number");
  const heads = ["move", "N", "Q/N", ...(puct ? ["P"] : []), ...(rave ? ["N~", "Q~"] : []), ...(biased ? ["w·H"] : []), rule];
  const table = html("table", {}, [
    html("tr", {}, heads.map((h) => html("th", { title: HEAD_TITLES[h] ?? "" }, [h]))),
    ...shown.map((c) =>
      html("tr", { class: c.chosen ? "chosen" : "", title: c.eligible === false ? "proven: MCTS-Solver skips it" : "" }, [
        html("td", {}, [c.label + (c.eligible === false ? " ✓" : "")]),
        html("td", {}, [String(c.visits)]),
        html("td", {}, [c.visits ? fmtMean(c.mean) : "–"]),
        ...(puct ? [html("td", { "data-testid": "selection-prior" }, [typeof c.prior === "number" ? c.prior.toFixed(3) : "–"])] : []),
        ...(rave
          ? [
              html("td", { "data-testid": "selection-amaf-visits" }, [String(c.amaf_visits ?? 0)]),
              html("td", {}, [typeof c.amaf_mean === "number" ? fmtMean(c.amaf_mean) : "–"]),
            ]
          : []),
        ...(biased ? [html("td", {}, [typeof c.bias === "number" ? fmtMean(c.bias) : "–"])] : []),
        html("td", { "data-testid": "selection-score" }, [fmtUct(c.uct)]),
      ]),
    ),
  ]);
  const more = level.children.length - shown.length;
  return html("div", { class: "level" }, [
    html("div", { class: "level-head" }, [
      `${where === "the root" ? "At the root" : where[0].toUpperCase() + where.slice(1)} (N=${level.visits}`,
      rave
        ? html("span", { "data-testid": "selection-beta", title: "RAVE's weight on Q~/N~: β = √(k / (3N + k)); it fades as N grows" }, [
            `, β = ${level.beta.toFixed(2)}`,
          ])
        : "",
      "): ",
      html("b", {}, [pick ? `${pick.label}, the highest ${rule === "UCT+PB" ? "UCT+PB score" : rule}` : String(level.chosen)]),
      more > 0 ? ` (${more} more children not shown)` : "",
    ]),
    table,
  ]);
}

function uctKey(child) {
  return child.uct === null || child.uct === undefined ? Infinity : child.uct;
}

/** Where the descent stopped, and why (the leaf is the last node of the selection). */
function stopText(name, trace) {
  const where = name === "the root" ? "at the root" : name;
  const kind = trace.simulation && trace.simulation.kind;
  if (trace.expansion && trace.expansion.priors) return `Stops ${where}: a node not evaluated yet.`;
  if (trace.expansion) return `Stops ${where}: it has untried moves.`;
  if (kind === "terminal") return `Stops ${where}: the game is over there.`;
  if (kind === "proven") return `Stops ${where}: MCTS-Solver has proven it.`;
  return `Stops ${where}: a node not simulated yet.`;
}

function noExpansionReason(trace) {
  const kind = trace.simulation && trace.simulation.kind;
  if (kind === "terminal") return "No new node: the leaf ends the game.";
  if (kind === "proven") return "No new node: MCTS-Solver has proven the leaf.";
  const why = trace.rave > 0 ? "RAVE adds every child at once" : 'expansion "all"';
  return `No new node: the leaf was just added (${why}), so it is simulated as it is.`;
}

function resultText(sim, who) {
  const rewards = sim.rewards || [];
  // A win, loss or draw with its reward in brackets; any other reward (a heuristic's
  // verdict, a score) once: "Red: 0.56 (0.56)" said the same number twice.
  const word = (r) => (r === 1 ? "win" : r === 0 ? "loss" : r === 0.5 ? "draw" : null);
  const parts = rewards.map((r, p) => `${who(p)}: ${word(r) === null ? fmtMean(r) : `${word(r)} (${fmtMean(r)})`}`);
  return `${sim.cutoff ? "Cut off, scored by the heuristic" : "Result"}: ${parts.join(", ")}`;
}

/**
 * What RAVE's update did besides N and Q/N: at each node of the path, the children whose
 * move the same player played later in the iteration (in the tree or the playout) count
 * an all-moves-as-first visit: the path's child, and siblings of it.
 */
function amafNote(trace) {
  const ups = trace.backpropagation; // leaf to root
  const total = ups.reduce((sum, u) => sum + (u.amaf_updates || 0), 0);
  // A node with a child on the path (all but the leaf) updates that child too.
  const siblings = ups.reduce((sum, u, i) => sum + Math.max(0, (u.amaf_updates || 0) - (i > 0 && u.amaf_updates ? 1 : 0)), 0);
  return html("div", { class: "hint", "data-testid": "amaf-updates" }, [
    `RAVE: ${total} AMAF update${total === 1 ? "" : "s"} (N~ + 1, the reward added to Q~), ${siblings} of them to sibling${siblings === 1 ? "" : "s"} off the path whose move the same player played later in this iteration, as if played at once.`,
  ]);
}

function updateRow(u, nodeName, who, rave = false) {
  // Nobody chose the root or a chance outcome (both player -1): they count the visit
  // but add no reward of their own.
  const root = u.node === "";
  const chance = !root && u.player < 0;
  const name = root ? "root" : nodeName(u.node).replace(/^after /, "");
  const valued = !root && !chance;
  return html("tr", {}, [
    html("td", {}, [name]),
    html("td", {}, [root ? "–" : chance ? "chance" : who(u.player)]),
    html("td", {}, [valued ? `+${fmtMean(u.reward)}` : "–"]),
    html("td", {}, [`${u.visits_before} → ${u.visits_after}`]),
    html("td", {}, [valued ? `${u.visits_before ? fmtMean(u.mean_before) : "–"} → ${fmtMean(u.mean_after)}` : "–"]),
    ...(rave ? [html("td", { title: HEAD_TITLES.AMAF }, [u.amaf_updates ? `${u.amaf_updates} child${u.amaf_updates === 1 ? "" : "ren"}` : "–"])] : []),
  ]);
}
