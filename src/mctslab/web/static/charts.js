// Two small SVG charts: the root statistics after an AI move, and the exploration term.

import { fmtValue, svg, valueColour } from "./dom.js";

/**
 * Root statistics as horizontal bars: one per move, length = visits, colour and
 * figure = the move's value for the player to move (`moveValue`: on the game's scale
 * `scale` = [min, max], not the tree's Q/N in [0, 1]); the move played is outlined;
 * under PUCT each move's prior P follows its figures.
 * `player` names the player to move.
 */
export function rootStatsChart(children, chosen, { player = "the player to move", scale = [-1, 1] } = {}) {
  const ranked = [...children].sort((a, b) => b.visits - a.visits || a.action - b.action);
  const rows = ranked.slice(0, TOP_BARS);
  const rest = ranked.slice(TOP_BARS);
  const most = Math.max(1, ...rows.map((c) => c.visits));
  const labelW = 56;
  const barW = 220;
  const rowH = 20;
  const notes = rows.map((child) => noteText(child, chosen, scale));
  // Wide enough for the longest figure ("1,234  +0.412  P 0.25  ◀ played"): about 7 px a
  // character at the chart's font size.
  const width = labelW + barW + Math.max(150, 12 + 7 * Math.max(0, ...notes.map((n) => n.length)));
  const height = rows.length * rowH + 24 + (rest.length ? rowH : 0);
  const root = svg("svg", { class: "bars", width, height, viewBox: `0 0 ${width} ${height}`, "data-testid": "root-stats-chart" });
  const priors = rows.some((c) => typeof c.prior === "number") ? " · P: prior" : "";
  root.append(svg("text", { class: "axis-label", x: labelW, y: 12 }, [`visits (bar) · value for ${player} (${scaleText(scale)}) (colour, figure)${priors}`]));
  rows.forEach((child, i) => {
    const y = 20 + i * rowH;
    const w = Math.max(1, (barW * child.visits) / most);
    const played = child.action === chosen;
    const g = svg("g", { class: `bar${played ? " played" : ""}`, "data-action": child.action });
    g.append(svg("text", { class: "bar-label", x: labelW - 6, y: y + 13 }, [child.label ?? String(child.action)]));
    g.append(svg("rect", { x: labelW, y: y + 2, width: w, height: rowH - 5, rx: 2, fill: valueColour(toUnit(moveValue(child, scale), scale)) }));
    g.append(svg("text", { class: "bar-value", x: labelW + w + 6, y: y + 13 }, [notes[i]]));
    root.append(g);
  });
  if (rest.length) {
    // Go's 82 moves: the most visited are drawn, the others counted.
    const visits = rest.reduce((sum, c) => sum + c.visits, 0);
    const y = 20 + rows.length * rowH + 13;
    root.append(svg("text", { class: "axis-label", x: labelW, y, "data-testid": "root-stats-more" }, [`+${rest.length.toLocaleString("en")} more moves (${visits.toLocaleString("en")} visits)`]));
  }
  return root;
}

/** The bars drawn: the most visited moves. */
const TOP_BARS = 24;

/** A bar's figures: visits, the value, PUCT's prior P, and a mark on the move played. */
function noteText(child, chosen, scale) {
  let note = `${child.visits.toLocaleString("en")}  ${valueText(child, scale)}`;
  if (typeof child.prior === "number") note += `  P ${child.prior.toFixed(2)}`;
  if (child.action === chosen) note += "  ◀ played";
  return note;
}

/**
 * A move's value for the player to move, on the game's scale [min, max]: the proven
 * return once MCTS-Solver proved it (a win is max, a draw 0, a loss min), else the mean
 * return of its simulations (the CLI's `move_value`).
 */
export function moveValue(child, scale = [-1, 1]) {
  const p = child.proven;
  if (typeof p !== "number") return child.value;
  return p > 0 ? scale[1] : p < 0 ? scale[0] : 0;
}

/** A move's value as the page writes it: "+0.41", or "+1 (proven win)", "0 (proven draw)". */
export function valueText(child, scale = [-1, 1]) {
  const v = moveValue(child, scale);
  if (typeof child.proven !== "number") return fmtValue(v);
  return `${v > 0 ? "+" : ""}${Number(v.toFixed(3))} (proven ${provenText(child.proven)})`;
}

/** The scale [min, max] in words: "-1 to 1". */
export function scaleText(scale) {
  return `${Number(scale[0].toFixed(3))} to ${Number(scale[1].toFixed(3))}`;
}

/** A value on [min, max] mapped to [-1, 1], the colour scale's range. */
function toUnit(v, [lo, hi]) {
  return hi > lo ? (2 * (v - lo)) / (hi - lo) - 1 : 0;
}

/** A proof as a word: the server sends +1 / 0 / -1 (or a word already). */
export function provenText(p) {
  if (typeof p === "string") return p;
  if (p > 0) return "win";
  if (p < 0) return "loss";
  return "draw";
}

/**
 * The selection rule's exploration term against a child's visits n (log scale), one curve
 * per parent count N: UCT's c·sqrt(ln N / n), which fades as n grows and grows only slowly
 * with N, or under PUCT c·P·sqrt(N) / (1 + n) for a child of prior P, which fades as 1/n
 * and grows as sqrt(N).
 */
export function explorationChart(c, currentN = null, { rule = "uct", prior = 0.25 } = {}) {
  const term = rule === "puct" ? (N, n) => (c * prior * Math.sqrt(N)) / (1 + n) : (N, n) => c * Math.sqrt(Math.log(N) / n);
  const W = 300;
  const H = 190;
  const left = 36;
  const right = 10;
  const top = 12;
  const bottom = 30;
  const Ns = [10, 100, 1000, 10000];
  const nMax = 10000;
  const yMax = Math.max(0.05, ...[...Ns, currentN || 1].map((N) => term(N, 1)));
  const x = (n) => left + ((W - left - right) * Math.log10(n)) / Math.log10(nMax);
  const y = (v) => top + (H - top - bottom) * (1 - v / yMax);
  const root = svg("svg", { class: "explore", width: W, height: H, viewBox: `0 0 ${W} ${H}`, "data-testid": "exploration-chart" });
  // Axes and ticks.
  root.append(svg("line", { class: "axis", x1: left, y1: y(0), x2: W - right, y2: y(0) }));
  root.append(svg("line", { class: "axis", x1: left, y1: top, x2: left, y2: y(0) }));
  for (const n of [1, 10, 100, 1000, 10000]) {
    root.append(svg("line", { class: "tick", x1: x(n), y1: y(0), x2: x(n), y2: y(0) + 4 }));
    root.append(svg("text", { class: "tick-label", x: x(n), y: y(0) + 14 }, [n >= 1000 ? `${n / 1000}k` : String(n)]));
  }
  for (const v of [0, yMax / 2, yMax]) {
    root.append(svg("text", { class: "tick-label y", x: left - 4, y: y(v) + 3 }, [v.toFixed(1)]));
  }
  root.append(svg("text", { class: "axis-label", x: (left + W - right) / 2, y: H - 2 }, ["child visits n (log)"]));
  Ns.forEach((N, i) => {
    const pts = [];
    for (let k = 0; k <= 60; k++) {
      const n = Math.pow(N, k / 60);
      pts.push(`${x(n).toFixed(1)},${y(term(N, n)).toFixed(1)}`);
    }
    root.append(svg("polyline", { class: `curve curve-${i}`, points: pts.join(" ") }));
    // A legend at the top right, where the curves have already faded to the axis.
    const ly = top + 24 + i * 14;
    root.append(svg("line", { class: `curve curve-${i}`, x1: W - right - 78, y1: ly - 4, x2: W - right - 58, y2: ly - 4 }));
    root.append(svg("text", { class: "curve-label", x: W - right - 52, y: ly }, [`N = ${N}`]));
  });
  if (currentN && currentN > 1) {
    // The root's own curve: what a child of the current root would get.
    const pts = [];
    for (let k = 0; k <= 60; k++) {
      const n = Math.pow(currentN, k / 60);
      pts.push(`${x(n).toFixed(1)},${y(term(currentN, n)).toFixed(1)}`);
    }
    root.append(svg("polyline", { class: "curve current", points: pts.join(" ") }));
    const ly = top + 24 + Ns.length * 14;
    root.append(svg("line", { class: "curve current", x1: W - right - 78, y1: ly - 4, x2: W - right - 58, y2: ly - 4 }));
    root.append(svg("text", { class: "curve-label", x: W - right - 52, y: ly }, [`root: ${currentN}`]));
  }
  const title = rule === "puct" ? `c = ${Number(c).toFixed(2)}, P = ${Number(prior).toFixed(2)}` : `c = ${Number(c).toFixed(2)}`;
  root.append(svg("text", { class: "chart-title", x: W - right, y: top + 8, "data-testid": "exploration-title" }, [title]));
  return root;
}
