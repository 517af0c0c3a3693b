// The search tree as an interactive SVG: wheel to zoom, drag to pan, click a node to
// collapse or expand it (fetching children the server left out), click its "+N" to show
// the children outside the top-k, click its move label to see its position. Each node shows N, Q/N (the mean reward in [0, 1] of the player
// who moved into it) and its UCT score from its parent (under PUCT: its prior P and its
// PUCT score; with RAVE its all-moves-as-first N~ and Q~ on a line of their own and the
// RAVE score, with progressive bias its w·H beside the score); it is filled on the exports'
// red - yellow - green scale of Q/N; a thick border and a mark show a proven node.

import { fmtMean, fmtUct, html, svg, nodeFill } from "./dom.js";

export const BOX_W = 104;
// The width of a character of a node's "+N" mark (bold 11 px): the room it takes.
const MARK_CHAR_W = 7.5;
export const BOX_H = 56;
// A RAVE tree's boxes have one more line: the AMAF statistics.
export const AMAF_LINE = 16;
export const GAP_X = 10;
export const GAP_Y = 40;
const MARGIN = 20;
// The view never shrinks the boxes below their size: the smallest text (11 px in
// style.css) stays 11 px on screen. What does not fit is panned to, or left out by Fit
// choosing a smaller depth and top-k (treeFits), never drawn smaller.
const MIN_SCALE = 1;
const MAX_SCALE = 1.25;

export class TreeView {
  /**
   * @param {HTMLElement} container
   * @param {{loadSubtree: (id) => Promise<object>, loadChildren: (id) => Promise<object>,
   *   openNode: (node) => void}} hooks
   */
  constructor(container, hooks) {
    this.container = container;
    this.hooks = hooks;
    this.root = null;
    this.collapsed = new Set();
    this.widened = new Set(); // nodes whose children are all shown ("+N more" clicked)
    this.path = new Set();
    this.fresh = null;
    this.staged = null; // a step's changes held back while its phases play (stage())
    this.view = null; // {x, y, w, h}: the viewBox
    this.boxH = BOX_H; // the boxes' height: one line more for a tree with AMAF statistics
    this.userMoved = false;
    this.fitted = false;
    this.svg = svg("svg", { class: "tree", "data-testid": "tree-svg", role: "img", "aria-label": "search tree" });
    this.layer = svg("g");
    this.svg.append(this.layer);
    container.append(this.svg);
    this.empty = html("div", { class: "tree-empty" }, ["No tree yet: ask the AI to move, or step."]);
    container.append(this.empty);
    this.installZoomPan();
  }

  /** Show a new tree (nested nodes from /tree); keeps collapsed nodes and the view. */
  setTree(root, emptyText = "No tree yet: ask the AI to move, or step.") {
    this.root = root;
    this.empty.textContent = emptyText;
    this.draw();
    if (root && this.widened.size) return this.rewiden(root);
    return Promise.resolve();
  }

  /**
   * Hold back a step's changes while the panel plays its phases, so that the tree does
   * not give the ending away: at "selection" the tree as it was before the iteration
   * (the nodes it added hidden; N, Q/N and UCT as the selection saw them), at
   * "expansion" the new node too (N 0), and with no trace the tree as it is now (the
   * backpropagation's counts).
   */
  stage(trace, phase) {
    this.staged = trace ? heldBack(trace, phase) : null;
    if (this.root) this.draw();
  }

  /** Mark the selection path (node ids, root first) and the node just added. */
  highlight(pathIds, freshId) {
    this.path = new Set(pathIds || []);
    this.fresh = freshId ?? null;
    for (const el of this.layer.querySelectorAll("[data-node]")) {
      const id = el.getAttribute("data-node");
      el.classList.toggle("on-path", this.path.has(id));
      el.classList.toggle("fresh", this.fresh !== null && String(this.fresh) === id);
    }
    for (const el of this.layer.querySelectorAll("[data-edge]")) {
      const [a, b] = el.getAttribute("data-edge").split(">");
      el.classList.toggle("on-path", this.path.has(a) && this.path.has(b));
    }
    // A fitted view too: a step's path is drawn outside the fitted depth and top-k, so
    // it can leave the fitted tree's edges (the view then pans to it, the root kept).
    if (!this.userMoved) this.showNodes([...this.path]);
  }

  /**
   * Pan the automatic view sideways so that these nodes are in sight, as far as they fit
   * with the root: the root never leaves the view (a path that is wider than the panel
   * is shown from the root's end).
   */
  showNodes(ids) {
    const xs = ids.filter((id) => this.pos && this.pos.has(id)).map((id) => this.pos.get(id).x);
    if (!xs.length || !this.view) return;
    const lo = Math.min(...xs) - 10;
    const hi = Math.max(...xs) + BOX_W + 10;
    const v = this.view;
    if (lo >= v.x && hi <= v.x + v.w) return;
    const b = this.bounds;
    let x = (lo + hi) / 2 - v.w / 2;
    if (v.w < b.w) x = Math.max(b.x, Math.min(x, b.x + b.w - v.w));
    this.view = { ...v, x: this.keepRoot(x, v.w) };
    this.applyView();
  }

  /** The nearest left edge to `x` of a view `w` wide that shows the root's box whole. */
  keepRoot(x, w) {
    const left = this.rootX - BOX_W / 2;
    const lo = left + BOX_W + 10 - w;
    const hi = left - 10;
    return lo > hi ? (lo + hi) / 2 : Math.max(lo, Math.min(x, hi));
  }

  /**
   * The Fit button: the whole tree in view at a readable scale. The page chooses the
   * depth and top-k that fit (treeFits) and redraws; this draws it centred.
   */
  fit() {
    this.userMoved = false;
    this.fitted = true;
    this.view = null;
    this.collapsed.clear();
    this.widened.clear();
    this.draw();
  }

  /** The panel's size in tree units at the smallest readable scale. */
  room() {
    const rect = this.svg.getBoundingClientRect();
    return { w: rect.width / MIN_SCALE, h: rect.height / MIN_SCALE };
  }

  /** Back to the automatic view (a new game). */
  reset() {
    this.userMoved = false;
    this.fitted = false;
    this.view = null;
    this.collapsed.clear();
    this.widened.clear();
  }

  /**
   * The automatic view: the whole tree if it fits at a readable scale (boxes between
   * MIN_SCALE and MAX_SCALE of their size), else the top of it around the root.
   */
  readable() {
    const rect = this.svg.getBoundingClientRect();
    const b = this.bounds;
    if (!rect.width || !rect.height) return { ...b };
    const fitScale = Math.min(rect.width / b.w, rect.height / b.h);
    const scale = Math.max(MIN_SCALE, Math.min(MAX_SCALE, fitScale));
    const w = rect.width / scale;
    const h = rect.height / scale;
    // Centred on the root, but never past the tree's edges when the tree is wider.
    let x = this.rootX - w / 2;
    if (w < b.w) x = Math.max(b.x, Math.min(x, b.x + b.w - w));
    else x = b.x + (b.w - w) / 2;
    const y = b.y; // the root at the top
    return { x: this.keepRoot(x, w), y, w, h };
  }

  draw() {
    this.layer.replaceChildren();
    this.empty.hidden = Boolean(this.root);
    if (!this.root) return;
    this.boxH = boxHeight(this.root);
    const boxH = this.boxH;
    // Tidy enough layout: leaves side by side, a parent centred over its children.
    let nextX = 0;
    let maxDepth = 0;
    const placed = [];
    const place = (node, depth) => {
      maxDepth = Math.max(maxDepth, depth);
      const held = this.staged ? this.staged.hidden : null;
      const kids = this.collapsed.has(String(node.id)) ? [] : (node.children || []).filter((k) => !held || !held(String(k.id)));
      let x;
      if (kids.length === 0) {
        x = nextX;
        nextX += 1;
      } else {
        const xs = kids.map((k) => place(k, depth + 1));
        x = (xs[0] + xs[xs.length - 1]) / 2;
      }
      placed.push({ node, depth, x, kids });
      return x;
    };
    place(this.root, 0);
    const pos = new Map();
    for (const p of placed) pos.set(p.node, { x: p.x * (BOX_W + GAP_X), y: p.depth * (boxH + GAP_Y) });
    this.pos = new Map([...pos].map(([node, xy]) => [String(node.id), xy]));
    // Edges first, under the boxes.
    for (const p of placed) {
      const a = pos.get(p.node);
      for (const kid of p.kids) {
        const b = pos.get(kid);
        this.layer.append(
          svg("path", {
            class: "edge",
            "data-edge": `${p.node.id}>${kid.id}`,
            d: `M${a.x + BOX_W / 2},${a.y + boxH} C${a.x + BOX_W / 2},${a.y + boxH + GAP_Y / 2} ${b.x + BOX_W / 2},${b.y - GAP_Y / 2} ${b.x + BOX_W / 2},${b.y}`,
          }),
        );
      }
    }
    for (const p of placed) this.layer.append(this.drawNode(p.node, pos.get(p.node), p.depth));
    const width = nextX * (BOX_W + GAP_X);
    const height = (maxDepth + 1) * (boxH + GAP_Y);
    this.bounds = { x: -MARGIN, y: -MARGIN, w: width - GAP_X + 2 * MARGIN, h: height - GAP_Y + 2 * MARGIN };
    this.rootX = pos.get(this.root).x + BOX_W / 2;
    if (!this.userMoved || !this.view) this.view = this.readable();
    this.applyView();
    this.highlight([...this.path], this.fresh);
  }

  drawNode(node, { x, y }, depth) {
    const id = String(node.id);
    const boxH = this.boxH;
    // What the node showed before the step being played, if it is held back.
    const shown = this.staged ? { ...node, ...this.staged.before(id) } : node;
    const proof = proofWord(shown);
    const proven = proof !== null;
    const kids = node.children || [];
    const collapsed = this.collapsed.has(id);
    const g = svg("g", {
      class: `node${proven ? " proven" : ""}${node.terminal ? " terminal" : ""}`,
      "data-node": id,
      "data-testid": `tree-node-${id === "" ? "root" : id}`,
      transform: `translate(${x},${y})`,
    });
    g.append(
      svg("rect", {
        class: "node-box",
        width: BOX_W,
        height: boxH,
        rx: 6,
        fill: node.player === null || node.player === undefined ? "#e4e7ee" : nodeFill(shown.value),
      }),
    );
    const label = depth === 0 && (node.label === null || node.label === undefined) ? "root" : node.label ?? String(node.action);
    const labelEl = svg("text", { class: "node-label", x: 6, y: 15, "data-testid": `node-label-${id === "" ? "root" : id}` }, [label]);
    labelEl.append(svg("title", {}, ["show this position"]));
    labelEl.addEventListener("click", (event) => {
      event.stopPropagation();
      if (!this.dragged) this.hooks.openNode(node);
    });
    g.append(labelEl);
    // A chance outcome (player -1: the dice moved into it) is sampled, not chosen: no Q/N, no UCT.
    const chance = node.player === -1;
    g.append(svg("text", { class: "node-stat", x: 6, y: 31 }, [depth === 0 || chance ? `N ${shown.visits}` : `N ${shown.visits}  Q/N ${fmtMean(shown.value)}`]));
    const puct = typeof node.prior === "number" && !chance && depth > 0;
    // The room left on the last line by its "+N" (or folded "▸N") mark, as wide as its
    // digits: a fixed room let "+78" run into "P 0.01 PUCT 0.76".
    const markText = collapsed && kids.length ? `▸${kids.length + (node.hidden || 0)}` : node.hidden ? `+${node.hidden}` : "";
    const room = BOX_W - 12 - (markText ? markText.length * MARK_CHAR_W + 4 : 0);
    if (puct) {
      // PUCT: the evaluator's prior P beside the score (Q/N + c·P·√N_parent / (1 + N)),
      // squeezed to the box (left of a "+N" mark).
      const line = svg(
        "text",
        { class: "node-stat", x: 6, y: 47, textLength: room, lengthAdjust: "spacingAndGlyphs", "data-testid": `prior-${id}` },
        [`P ${fmtMean(node.prior)} PUCT ${fmtUct(shown.uct)}`],
      );
      line.append(svg("title", {}, [`prior P ${node.prior.toFixed(3)} (the evaluator's); PUCT score ${fmtUct(shown.uct)} = Q/N + c·P·√N_parent / (1 + N)`]));
      g.append(line);
    } else if (!chance && depth > 0 && (typeof node.amaf_visits === "number" || typeof node.bias === "number")) {
      this.drawRave(g, node, shown, id, room);
    } else {
      g.append(svg("text", { class: "node-stat", x: 6, y: 47, "data-testid": chance ? `chance-${id}` : null }, [depth === 0 ? (id === "" ? "" : `node ${id}`) : chance ? "chance outcome" : `UCT ${fmtUct(shown.uct)}`]));
    }
    if (proven) {
      const mark = proof === "win" ? "✓" : proof === "loss" ? "✗" : "=";
      g.append(svg("text", { class: `proof ${proof}`, x: BOX_W - 6, y: 15 }, [mark, svg("title", {}, [`proven ${proof}`])]));
    }
    const hidden = node.hidden || 0;
    // A chance outcome's last line ("chance outcome") fills the box: its mark goes on the
    // line of N, which is short there (no Q/N). Otherwise on the last line (the score's).
    const markY = chance ? 31 : boxH - 9;
    if (collapsed && kids.length) {
      g.append(svg("text", { class: "more", x: BOX_W - 5, y: markY }, [`▸${kids.length + hidden}`, svg("title", {}, ["folded: click to unfold"])]));
    } else if (hidden) {
      const more = svg("text", { class: "more", x: BOX_W - 5, y: markY, "data-testid": `more-${id === "" ? "root" : id}` }, [
        `+${hidden}`,
        svg("title", {}, [`${hidden} more children: click to show`]),
      ]);
      // Its own click: show the children left out (a click on the box folds the node).
      more.addEventListener("click", (event) => {
        event.stopPropagation();
        if (!this.dragged) this.showAll(node).catch(() => {});
      });
      g.append(more);
    }
    g.addEventListener("click", () => {
      if (this.dragged) return;
      this.toggle(node);
    });
    return g;
  }

  /**
   * The lines of a node under RAVE or progressive bias: its all-moves-as-first statistics
   * (RAVE: "AMAF N~ 37 Q~ 0.55"), then its score from rave_score ("RAVE 0.71"; with
   * progressive bias alone "UCT+PB", with w·H beside it), squeezed left of a "+N" mark.
   */
  drawRave(g, node, shown, id, room) {
    const rave = typeof node.amaf_visits === "number";
    // Squeezed only when a line would not fit (about 6.2 px a character at 11 px).
    const fit = (text, room) => (text.length * 6.2 > room ? { textLength: room, lengthAdjust: "spacingAndGlyphs" } : {});
    let y = 47;
    if (rave) {
      const text = `AMAF N~ ${shown.amaf_visits} Q~ ${fmtMean(shown.amaf_value)}`;
      const amaf = svg("text", { class: "node-stat amaf", x: 6, y, "data-testid": `amaf-${id}`, ...fit(text, BOX_W - 12) }, [text]);
      amaf.append(svg("title", {}, ["all-moves-as-first: N~ iterations played this move later on (by the same player), Q~ their mean reward in [0, 1]"]));
      g.append(amaf);
      y += AMAF_LINE;
    }
    const biased = typeof node.bias === "number";
    const text = `${rave ? "RAVE" : "UCT+PB"} ${fmtUct(shown.uct)}${biased ? ` w·H ${fmtMean(node.bias)}` : ""}`;
    const line = svg("text", { class: "node-stat", x: 6, y, "data-testid": `score-${id}`, ...fit(text, room) }, [text]);
    const formula = "(1 − β)·Q/N + β·Q~/N~ + c·√(ln N_parent / N) + w·H / (N + 1), β = √(k / (3·N_parent + k))";
    line.append(svg("title", {}, [`${rave ? "RAVE" : "UCT with progressive bias"} score ${fmtUct(shown.uct)} = ${formula}${biased ? `; w·H = ${node.bias.toFixed(3)}` : ""}`]));
    g.append(line);
  }

  /**
   * Show all of a node's children ("+N more"): its children fetched again without the
   * top-k, those already shown keeping their subtrees. Remembered across redraws (a step,
   * a new top-k) until a new game.
   */
  async showAll(node) {
    const id = String(node.id);
    this.widened.add(id);
    this.collapsed.delete(id);
    if (await this.widen(node)) {
      this.userMoved = true; // keep the view where the user is looking
      this.draw();
    }
  }

  async widen(node) {
    if (!node.hidden) return false;
    const sub = await this.hooks.loadChildren(node.id);
    const had = new Map((node.children || []).map((ch) => [String(ch.id), ch]));
    node.children = (sub.children || []).map((ch) => had.get(String(ch.id)) ?? ch);
    node.hidden = sub.hidden || 0;
    return true;
  }

  /** Widen again, in a tree just received, the nodes the user asked all children of. */
  async rewiden(root) {
    const found = [];
    const walk = (n) => {
      if (this.widened.has(String(n.id)) && n.hidden) found.push(n);
      (n.children || []).forEach(walk);
    };
    walk(root);
    const changed = await Promise.all(found.map((n) => this.widen(n).catch(() => false)));
    if (changed.some(Boolean) && this.root === root) this.draw();
  }

  async toggle(node) {
    const id = String(node.id);
    if ((node.children || []).length && !this.collapsed.has(id)) {
      this.collapsed.add(id);
    } else if (this.collapsed.has(id)) {
      this.collapsed.delete(id);
    } else if (node.hidden) {
      const sub = await this.hooks.loadSubtree(node.id);
      node.children = sub.children || [];
      node.hidden = sub.hidden || 0;
    } else {
      return;
    }
    this.userMoved = true; // keep the view where the user is looking
    this.draw();
  }

  applyView() {
    const v = this.view;
    this.svg.setAttribute("viewBox", `${v.x} ${v.y} ${v.w} ${v.h}`);
  }

  installZoomPan() {
    const el = this.svg;
    el.addEventListener(
      "wheel",
      (event) => {
        if (!this.view) return;
        event.preventDefault();
        const rect = el.getBoundingClientRect();
        const factor = Math.exp(event.deltaY * 0.0015);
        // Zoom about the pointer: the point under it stays put.
        const p = this.toView(event.clientX - rect.left, event.clientY - rect.top, rect);
        const v = this.view;
        this.view = { x: p.x - (p.x - v.x) * factor, y: p.y - (p.y - v.y) * factor, w: v.w * factor, h: v.h * factor };
        this.userMoved = true;
        this.applyView();
      },
      { passive: false },
    );
    let start = null;
    el.addEventListener("pointerdown", (event) => {
      if (!this.view || event.button !== 0) return;
      start = { x: event.clientX, y: event.clientY, view: { ...this.view } };
      this.dragged = false;
    });
    el.addEventListener("pointermove", (event) => {
      if (!start) return;
      const dx = event.clientX - start.x;
      const dy = event.clientY - start.y;
      if (!this.dragged && Math.hypot(dx, dy) < 4) return;
      if (!this.dragged) el.setPointerCapture(event.pointerId);
      this.dragged = true;
      const rect = el.getBoundingClientRect();
      const scale = this.scale(rect);
      this.view = { ...start.view, x: start.view.x - dx * scale, y: start.view.y - dy * scale };
      this.userMoved = true;
      this.applyView();
    });
    const end = () => {
      start = null;
      // The click that ends a drag must not toggle a node: clear the flag after it.
      setTimeout(() => (this.dragged = false), 0);
    };
    el.addEventListener("pointerup", end);
    el.addEventListener("pointercancel", end);
  }

  // preserveAspectRatio="xMidYMid meet": one scale for both axes.
  scale(rect) {
    return Math.max(this.view.w / rect.width, this.view.h / rect.height);
  }

  toView(px, py, rect) {
    const s = this.scale(rect);
    const v = this.view;
    const ox = v.x - (rect.width * s - v.w) / 2;
    const oy = v.y - (rect.height * s - v.h) / 2;
    return { x: ox + px * s, y: oy + py * s };
  }
}

/**
 * What a step's trace (mctslab.search.trace) held back at `phase`: `stats`, the N, Q/N,
 * UCT and proof of the nodes it changed as they were before it (node id -> fields of a
 * tree node), and `hidden`, whether a node id was added by it and is not drawn yet.
 */
function heldBack(trace, phase) {
  const stats = new Map();
  const childId = (parent, action) => (parent === "" ? String(action) : `${parent}.${action}`);
  for (const level of trace.selection) {
    for (const c of level.children) {
      const held = { visits: c.visits, value: c.visits ? c.mean : null, uct: c.uct, proven: c.proven };
      // RAVE: the AMAF statistics as the selection saw them (the backpropagation updates
      // siblings of the path too).
      if (typeof c.amaf_visits === "number") Object.assign(held, { amaf_visits: c.amaf_visits, amaf_value: c.amaf_mean });
      stats.set(childId(level.node, c.action), held);
    }
  }
  for (const u of trace.backpropagation) {
    const before = { visits: u.visits_before, value: u.visits_before ? u.mean_before : null, proven: u.proven_before };
    stats.set(u.node, { ...stats.get(u.node), ...before });
    // The new node is unvisited (under PUCT the leaf was reached by selection, which scored it).
    if (trace.expansion && !trace.expansion.priors && u.node === trace.expansion.node) stats.get(u.node).uct = null;
  }
  const exp = phase === "selection" ? trace.expansion : null;
  // Expansion "all" adds every child of the leaf: all of them are new.
  const parentOf = (id) => (id.includes(".") ? id.slice(0, id.lastIndexOf(".")) : "");
  // PUCT's expansion adds every child of the leaf (exp.node = exp.parent: the leaf itself).
  const hidden = (id) =>
    Boolean(exp) && id !== "" && (exp.priors ? parentOf(id) === exp.parent : id === exp.node || (exp.added > 1 && parentOf(id) === exp.parent));
  // The nodes this iteration added (UCT's expansion): unvisited, no AMAF statistic yet,
  // until the backpropagation (RAVE updates the new siblings too).
  const e = trace.expansion;
  const added = (id) => Boolean(e) && !e.priors && id !== "" && (id === e.node || (e.added > 1 && parentOf(id) === e.parent));
  const fresh = { visits: 0, value: null, uct: null, amaf_visits: 0, amaf_value: null };
  const before = (id) => stats.get(id) ?? (added(id) ? fresh : undefined);
  return { stats, hidden, before };
}

/** The boxes' height: one line more when the tree has AMAF statistics (RAVE). */
export function boxHeight(root) {
  const stack = [root];
  while (stack.length) {
    const n = stack.pop();
    if (typeof n.amaf_visits === "number") return BOX_H + AMAF_LINE;
    stack.push(...(n.children || []));
  }
  return BOX_H;
}

/**
 * The layout of `node` cut to `depth` levels and each node's `top` children (the server
 * sends them most visited first): its columns (leaves side by side), levels and nodes.
 */
export function shownSize(node, depth, top) {
  const kids = depth > 0 ? (node.children || []).slice(0, top) : [];
  if (!kids.length) return { cols: 1, levels: 1, nodes: 1 };
  const size = { cols: 0, levels: 0, nodes: 1 };
  for (const kid of kids) {
    const s = shownSize(kid, depth - 1, top);
    size.cols += s.cols;
    size.levels = Math.max(size.levels, s.levels + 1);
    size.nodes += s.nodes;
  }
  return size;
}

/**
 * Whether a layout of this size fits `room` (TreeView.room()) at the readable scale;
 * `boxH`: the boxes' height (TreeView.boxH: taller with AMAF statistics).
 */
export function sizeFits(size, room, boxH = BOX_H) {
  const w = size.cols * (BOX_W + GAP_X) - GAP_X + 2 * MARGIN;
  const h = size.levels * (boxH + GAP_Y) - GAP_Y + 2 * MARGIN;
  return w <= room.w && h <= room.h;
}

/**
 * MCTS-Solver's proof (the server's 1 / 0 / -1 for player 0) as a word for the player
 * who moved into the node (at the root: the player to move), as the exports write it.
 */
export function proofWord(node) {
  if (node.proven === null || node.proven === undefined) return null;
  const who = node.player ?? node.to_play;
  const p = who === 0 ? node.proven : -node.proven;
  return p > 0 ? "win" : p < 0 ? "loss" : "draw";
}
