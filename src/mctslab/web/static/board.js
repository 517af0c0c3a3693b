// Board drawings from the server's `render` description of a position:
//   grid  (tic-tac-toe, Connect Four): rows, cols, cells (row-major, top row first:
//         "", "x", "o"), click "cell" | "column", actions {cell or column: action id}
//   piles (Nim, Bachet): piles [counts], max_take, moves [{pile, take, action}]
//   pits  (Bohnenspiel): top [pits 11..6], bottom [pits 0..5], stores [s0, s1],
//         actions {pit: action id}
//   go    (Go): size, stones (size*size: 0 empty, 1 black, 2 white; index r*size+c,
//         row 0 at the bottom), last, to_play (1 | 2 | null), captures [by black, by
//         white], komi, pass (the pass action), actions {point or pass: action id},
//         territory (per point 0 | 1 | 2, once over) and score (Black's, komi in),
//         dead (points of stones judged dead, once over) and agreed_score (without them).
//   text  (any other game): the state's text, with a button per legal move.
// The same drawing serves the main board (clickable) and the small boards of the
// step mode and of the node inspector (not clickable).

import { html, svg } from "./dom.js";

const MARK = { x: "mark-x", o: "mark-o" };

/**
 * Draw a position.
 * @param {object} render the server's render object
 * @param {object} opts
 *   interactive: clicks play moves (calls onAction(action))
 *   onAction:    called with an action id
 *   size:        cell size in pixels (grid) or stone size (piles)
 *   highlight:   the action that led here (marked on the board), or null
 *   legal:       [{action, label}] of the position (labels for buttons)
 *   text:        the state's text (for kind "text")
 *   testids:     give the clickable parts data-testid attributes (main board only)
 */
export function drawBoard(render, opts = {}) {
  const kind = render && render.kind;
  if (kind === "grid") return drawGrid(render, opts);
  if (kind === "piles") return drawPiles(render, opts);
  if (kind === "pits") return drawPits(render, opts);
  if (kind === "go") return drawGo(render, opts);
  return drawText(render, opts);
}

function actionsMap(render) {
  // JSON object keys are strings: map them back to numbers.
  const map = new Map();
  for (const [key, action] of Object.entries(render.actions || {})) map.set(Number(key), action);
  return map;
}

/** A line through the winner's cells (tic-tac-toe's three, Connect Four's four). */
function winLine(root, render, size, x0, y0) {
  const win = render.win || [];
  if (win.length < 2) return;
  const centre = (i) => [x0 + (i % render.cols) * size + size / 2, y0 + Math.floor(i / render.cols) * size + size / 2];
  const [a, b] = [centre(win[0]), centre(win[win.length - 1])];
  root.append(svg("line", { class: "win-line", x1: a[0], y1: a[1], x2: b[0], y2: b[1], "data-testid": "win-line", "data-cells": win.join(",") }));
}

function drawGrid(render, opts) {
  const { rows, cols, cells } = render;
  const size = opts.size || 64;
  const pad = render.click === "column" ? Math.round(size * 0.35) : 2;
  const width = cols * size + 4;
  const height = rows * size + pad + 2;
  const actions = actionsMap(render);
  const interactive = Boolean(opts.interactive);
  const root = svg("svg", {
    class: `board grid ${render.click === "column" ? "connect" : "ttt"}`,
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    role: "img",
    "aria-label": "board",
  });
  const x0 = 2;
  const y0 = pad;
  const highlightCell = lastMoveCell(render, opts.highlight, actions);

  if (render.click === "column") {
    root.append(svg("rect", { class: "frame", x: x0, y: y0, width: cols * size, height: rows * size, rx: 8 }));
    for (let c = 0; c < cols; c++) {
      if (size >= 40) {
        root.append(svg("text", { class: "col-label", x: x0 + c * size + size / 2, y: pad - 6 }, [String(c + 1)]));
      }
    }
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const i = r * cols + c;
        const mark = cells[i];
        root.append(
          svg("circle", {
            class: `disc ${mark ? MARK[mark] : "empty"}${i === highlightCell ? " last" : ""}`,
            cx: x0 + c * size + size / 2,
            cy: y0 + r * size + size / 2,
            r: size * 0.4,
          }),
        );
      }
    }
    winLine(root, render, size, x0, y0);
    if (interactive) {
      for (let c = 0; c < cols; c++) {
        if (!actions.has(c)) continue;
        const action = actions.get(c);
        root.append(
          svg("rect", {
            class: "column-hit",
            x: x0 + c * size,
            y: 0,
            width: size,
            height: height,
            "data-testid": opts.testids ? `column-${c}` : null,
            "data-action": action,
            onclick: () => opts.onAction(action),
            ...keyboard(`drop in column ${c + 1}`, () => opts.onAction(action)),
          }),
        );
      }
    }
    return root;
  }

  // A grid of cells to click: tic-tac-toe and the like.
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const i = r * cols + c;
      const mark = cells[i];
      const x = x0 + c * size;
      const y = y0 + r * size;
      const playable = interactive && !mark && actions.has(i);
      const group = svg("g", {
        class: `cell${playable ? " playable" : ""}${i === highlightCell ? " last" : ""}`,
        "data-testid": opts.testids ? `cell-${i}` : null,
        "data-action": actions.has(i) ? actions.get(i) : null,
      });
      group.append(svg("rect", { class: "cell-bg", x, y, width: size, height: size }));
      if (mark === "x") {
        const m = size * 0.24;
        group.append(
          svg("path", {
            class: "mark-x",
            d: `M${x + m},${y + m} L${x + size - m},${y + size - m} M${x + size - m},${y + m} L${x + m},${y + size - m}`,
          }),
        );
      } else if (mark === "o") {
        group.append(svg("circle", { class: "mark-o", cx: x + size / 2, cy: y + size / 2, r: size * 0.28 }));
      } else if (playable && opts.legal && size >= 40) {
        const label = labelOf(opts.legal, actions.get(i));
        if (label) group.append(svg("text", { class: "cell-label", x: x + size / 2, y: y + size / 2 + 5 }, [label]));
      }
      if (playable) {
        const play = () => opts.onAction(actions.get(i));
        group.addEventListener("click", play);
        const attrs = keyboard(`play ${labelOf(opts.legal, actions.get(i)) ?? i}`, play);
        for (const [k, v] of Object.entries(attrs)) {
          if (k.startsWith("on")) group.addEventListener(k.slice(2), v);
          else group.setAttribute(k, v);
        }
      }
      root.append(group);
    }
  }
  winLine(root, render, size, x0, y0);
  return root;
}

/** What makes a drawn square or column playable from the keyboard (Tab, Enter/Space). */
function keyboard(label, play) {
  return {
    tabindex: 0,
    role: "button",
    "aria-label": label,
    onkeydown: (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        play();
      }
    },
  };
}

function labelOf(legal, action) {
  const found = (legal || []).find((m) => m.action === action);
  return found ? found.label : null;
}

function lastMoveCell(render, action, actions) {
  if (action === null || action === undefined) return -1;
  if (render.click === "column") {
    const col = [...actions].find(([, a]) => a === action)?.[0] ?? action;
    for (let r = 0; r < render.rows; r++) {
      if (render.cells[r * render.cols + col]) return r * render.cols + col;
    }
    return -1;
  }
  return action; // tic-tac-toe: action = 3 * row + col = the cell index
}

function drawPiles(render, opts) {
  const size = opts.size || 26;
  const piles = render.piles;
  const most = Math.max(1, ...piles);
  const labelWidth = size >= 20 ? 64 : 28;
  const width = labelWidth + most * (size + 4) + 8;
  const height = piles.length * (size + 10) + 6;
  const interactive = Boolean(opts.interactive);
  const byPile = new Map();
  for (const move of render.moves || []) {
    if (!byPile.has(move.pile)) byPile.set(move.pile, new Map());
    byPile.get(move.pile).set(move.take, move.action);
  }
  const wrap = html("div", { class: "piles-wrap" });
  const root = svg("svg", { class: "board piles", width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": "piles" });
  const stones = [];
  piles.forEach((count, p) => {
    const y = 6 + p * (size + 10);
    root.append(svg("text", { class: "pile-label", x: 4, y: y + size * 0.7 }, [size >= 20 ? `pile ${p + 1}` : `${p + 1}`]));
    const row = [];
    for (let k = 0; k < count; k++) {
      // Stone k (from the left) is taken by the move that takes count - k stones.
      const take = count - k;
      const action = byPile.get(p)?.get(take);
      const stone = svg("circle", {
        class: `stone${interactive && action !== undefined ? " playable" : ""}`,
        cx: labelWidth + k * (size + 4) + size / 2,
        cy: y + size / 2,
        r: size / 2 - 1,
        "data-testid": opts.testids ? `stone-${p}-${k}` : null,
      });
      if (interactive && action !== undefined) {
        stone.addEventListener("click", () => opts.onAction(action));
        stone.addEventListener("mouseenter", () => markTaking(row, take));
        stone.addEventListener("mouseleave", () => markTaking(row, 0));
      }
      row.push(stone);
      root.append(stone);
    }
    stones.push(row);
  });
  wrap.append(root);
  if (interactive) {
    const buttons = html("div", { class: "take-buttons" });
    piles.forEach((count, p) => {
      const moves = byPile.get(p);
      if (!moves || moves.size === 0) return;
      const line = html("div", { class: "take-line" }, [html("span", { class: "take-pile" }, [`pile ${p + 1}:`])]);
      for (const [take, action] of [...moves].sort((a, b) => a[0] - b[0])) {
        line.append(
          html("button", {
            type: "button",
            "data-testid": opts.testids ? `take-${p}-${take}` : null,
            onclick: () => opts.onAction(action),
            onmouseenter: () => markTaking(stones[p], take),
            onmouseleave: () => markTaking(stones[p], 0),
            title: labelOf(opts.legal, action) || "",
          }, [`take ${take}`]),
        );
      }
      buttons.append(line);
    });
    wrap.append(buttons);
  }
  return wrap;
}

function markTaking(row, take) {
  row.forEach((stone, k) => stone.classList.toggle("taking", k >= row.length - take));
}

/**
 * A mancala board: player 1's pits 12..7 on top, player 0's 1..6 below (fields as
 * the course's server numbers them), player 1's store on the left, player 0's on the
 * right; beans travel counter-clockwise. A pit shows its beans as a number.
 */
function drawPits(render, opts) {
  const size = opts.size || 56;
  const labels = size >= 40; // field numbers and store names on the main board only
  const gap = Math.round(size * 0.14);
  const pad = labels ? 18 : 2;
  const storeW = Math.round(size * 0.9);
  const font = Math.max(8, Math.round(size * 0.3));
  const width = 2 * (storeW + gap) + 6 * size + 5 * gap + 4;
  const height = 2 * size + gap + 2 * pad + 4;
  const actions = actionsMap(render);
  const interactive = Boolean(opts.interactive);
  const root = svg("svg", {
    class: "board pits",
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    role: "img",
    "aria-label": "bean pits",
  });
  const x0 = 2 + storeW + gap;
  const y0 = 2 + pad;
  root.append(svg("rect", { class: "tray", x: 1, y: y0 - gap / 2, width: width - 2, height: 2 * size + 2 * gap, rx: size * 0.4 }));
  const store = (player, x) => {
    const g = svg("g", { class: `store store-${player}`, "data-testid": opts.testids ? `store-${player}` : null });
    g.append(svg("rect", { x, y: y0, width: storeW, height: 2 * size + gap, rx: storeW / 2 }));
    g.append(svg("text", { class: "count", x: x + storeW / 2, y: y0 + size + gap / 2 + size * 0.12, "font-size": font }, [String(render.stores[player])]));
    if (labels) g.append(svg("text", { class: "field", x: x + storeW / 2, y: y0 + 2 * size + gap + 14 }, [`P${player + 1}`]));
    return g;
  };
  root.append(store(1, 2), store(0, x0 + 6 * size + 5 * gap + gap));
  const rows = [
    { beans: render.top, pit: (i) => 11 - i, y: y0, labelY: y0 - 5 },
    { beans: render.bottom, pit: (i) => i, y: y0 + size + gap, labelY: y0 + 2 * size + gap + 14 },
  ];
  for (const row of rows) {
    row.beans.forEach((count, i) => {
      const pit = row.pit(i);
      const cx = x0 + i * (size + gap) + size / 2;
      const cy = row.y + size / 2;
      const playable = interactive && actions.has(pit);
      const group = svg("g", {
        class: `pit${playable ? " playable" : ""}${opts.highlight === pit ? " last" : ""}`,
        "data-testid": opts.testids ? `pit-${pit}` : null,
        "data-action": actions.has(pit) ? actions.get(pit) : null,
      });
      group.append(svg("circle", { class: "hole", cx, cy, r: size * 0.44 }));
      group.append(svg("text", { class: "count", x: cx, y: cy + size * 0.12, "font-size": font }, [String(count)]));
      if (labels) root.append(svg("text", { class: "field", x: cx, y: row.labelY }, [String(pit + 1)]));
      if (playable) {
        const play = () => opts.onAction(actions.get(pit));
        group.addEventListener("click", play);
        const attrs = keyboard(`sow field ${pit + 1} (${count} beans)`, play);
        for (const [k, v] of Object.entries(attrs)) {
          if (k.startsWith("on")) group.addEventListener(k.slice(2), v);
          else group.setAttribute(k, v);
        }
      }
      root.append(group);
    });
  }
  return root;
}

// Go's column letters: a to t without i, as on a Go board and in Go's move names.
const GO_COLUMNS = "abcdefghjklmnopqrst";
const GO_COLOUR = { 1: "black", 2: "white" };
// Star points (hoshi) of the usual boards, as (row, column) lines.
const GO_STARS = { 9: [[2, 6], 4], 13: [[3, 9], 6], 19: [[3, 9, 15], null] };

/** The star points of an n x n board: [row, col] pairs (none for unusual sizes). */
function goStars(n) {
  const spec = GO_STARS[n];
  if (!spec) return [];
  const [lines, centre] = spec;
  const points = [];
  for (const r of lines) for (const c of lines) points.push([r, c]);
  if (centre !== null) points.push([centre, centre]);
  return points;
}

/** Go's score line: "B+3.5", "W+7.5", or a tie (an integer komi). */
export function goResult(score) {
  if (score === null || score === undefined) return "";
  if (score === 0) return "Jigo (a tie)";
  return `${score > 0 ? "B" : "W"}+${Math.abs(score)}`;
}

/**
 * A Go board: lines, star points, coordinates (a-t without i along the bottom, 1-n up
 * the side), the stones, a ring on the last stone played, the legal empty points as
 * click targets (hover: the move's name and a ghost stone), and, when over, each
 * point's area owner as a small square. The main board (no `opts.size`) adds a line
 * with the captures, the komi, a pass, the score at the end, and the Pass button;
 * the small boards (node view, playout) are the drawing alone.
 */
function drawGo(render, opts) {
  const n = render.size;
  const full = !opts.size;
  // The main board about 440 px wide whatever its size; the small ones about 230 px.
  const cell = full ? Math.max(18, Math.min(44, Math.floor(440 / (n + 1)))) : Math.min(opts.size, Math.floor(230 / (n + 0.2)));
  const margin = full ? cell : cell * 0.6; // room for the coordinates on the main board
  const extent = margin * 2 + (n - 1) * cell;
  const at = (i) => {
    const r = Math.floor(i / n);
    const c = i % n;
    return [margin + c * cell, margin + (n - 1 - r) * cell]; // row 0 at the bottom
  };
  const actions = actionsMap(render);
  const interactive = Boolean(opts.interactive);
  const mover = GO_COLOUR[render.to_play] || "black";
  const root = svg("svg", {
    class: `board go${full ? "" : " small"}`,
    width: extent,
    height: extent,
    viewBox: `0 0 ${extent} ${extent}`,
    role: "img",
    "aria-label": "Go board",
  });
  root.append(svg("rect", { class: "go-wood", x: 0.5, y: 0.5, width: extent - 1, height: extent - 1, rx: full ? 6 : 3 }));
  const far = margin + (n - 1) * cell;
  for (let k = 0; k < n; k++) {
    const p = margin + k * cell;
    root.append(svg("line", { class: "go-line", x1: margin, y1: p, x2: far, y2: p }));
    root.append(svg("line", { class: "go-line", x1: p, y1: margin, x2: p, y2: far }));
  }
  for (const [r, c] of goStars(n)) {
    const [x, y] = at(r * n + c);
    root.append(svg("circle", { class: "go-star", cx: x, cy: y, r: Math.max(1.5, cell * 0.08) }));
  }
  if (full) {
    const font = Math.max(10, Math.min(13, Math.round(cell * 0.32)));
    for (let k = 0; k < n; k++) {
      const p = margin + k * cell;
      root.append(svg("text", { class: "go-coord", x: p, y: far + margin * 0.72, "font-size": font }, [GO_COLUMNS[k]]));
      root.append(svg("text", { class: "go-coord", x: margin * 0.4, y: margin + (n - 1 - k) * cell + font * 0.35, "font-size": font }, [String(k + 1)]));
    }
  }
  const territory = render.territory;
  const dead = new Set(render.dead || []);
  for (let i = 0; i < n * n; i++) {
    const colour = GO_COLOUR[render.stones[i]];
    const [x, y] = at(i);
    if (colour) {
      root.append(
        svg("circle", {
          class: `go-stone ${colour}`,
          cx: x,
          cy: y,
          r: cell * 0.47,
          "data-testid": opts.testids ? `go-stone-${i}` : null,
        }),
      );
      if (i === render.last) {
        root.append(svg("circle", { class: `go-last on-${colour}`, cx: x, cy: y, r: cell * 0.2, "data-testid": opts.testids ? "go-last" : null }));
      }
      if (dead.has(i)) {
        // A stone the end-of-game estimate calls dead: a cross of the other colour.
        const d = cell * 0.2;
        root.append(
          svg("path", {
            class: `go-dead on-${colour}`,
            d: `M${x - d} ${y - d}L${x + d} ${y + d}M${x - d} ${y + d}L${x + d} ${y - d}`,
            "data-testid": opts.testids ? `go-dead-${i}` : null,
          }),
        );
      }
      continue;
    }
    if (territory && GO_COLOUR[territory[i]]) {
      const side = cell * 0.34;
      root.append(svg("rect", { class: `go-territory ${GO_COLOUR[territory[i]]}`, x: x - side / 2, y: y - side / 2, width: side, height: side }));
    }
    if (interactive && actions.has(i) && i !== render.pass) {
      const action = actions.get(i);
      const name = labelOf(opts.legal, action) ?? `${GO_COLUMNS[i % n]}${Math.floor(i / n) + 1}`;
      const play = () => opts.onAction(action);
      const group = svg("g", {
        class: "go-point playable",
        "data-testid": opts.testids ? `point-${i}` : null,
        "data-action": action,
        onclick: play,
        ...keyboard(`play ${name}`, play),
      });
      group.append(
        svg("rect", { class: "go-hit", x: x - cell / 2, y: y - cell / 2, width: cell, height: cell }),
        svg("circle", { class: `go-ghost ${mover}`, cx: x, cy: y, r: cell * 0.45 }),
        svg("title", {}, [name]),
      );
      root.append(group);
    }
  }
  if (!full) return root;

  const [byBlack, byWhite] = render.captures || [0, 0];
  const info = html("div", { class: "go-info" }, [
    html("span", { "data-testid": "go-captures" }, [`captures: black ${byBlack}, white ${byWhite}`]),
    html("span", { "data-testid": "go-komi" }, [`komi ${render.komi}`]),
  ]);
  const over = render.territory !== null && render.territory !== undefined;
  if (!over && render.last === render.pass && render.to_play) {
    // The stone-less move is easy to miss: say who passed (the player not to move).
    info.append(html("span", { class: "go-passed", "data-testid": "go-passed" }, [`${render.to_play === 1 ? "White" : "Black"} passed`]));
  }
  if (over) {
    const owners = render.territory;
    const black = owners.filter((o) => o === 1).length;
    const white = owners.filter((o) => o === 2).length;
    info.append(
      html("span", { class: "go-score", "data-testid": "go-score", title: "Tromp-Taylor area scoring: stones plus the empty points that reach one colour only; komi to White" }, [
        `${goResult(render.score)} (area: black ${black}, white ${white} + komi ${render.komi})`,
      ]),
    );
    if (render.agreed_score === null && render.undecided) {
      // Ended by two passes early: nothing is settled, so no stone is judged dead.
      const points = render.size * render.size;
      info.append(
        html("span", { class: "go-agreed", "data-testid": "go-unsettled", title: "the Monte-Carlo estimate (mctslab.games.go.status) judges stones only on a settled board: the playouts agree on the owner of the average point three times in four" }, [
          `Not settled: ${render.undecided} of ${points} points undecided, no stones judged dead`,
        ]),
      );
    } else if (render.dead && render.dead.length) {
      // The rules count every stone; people agree to remove the dead ones first.
      info.append(
        html("span", { class: "go-agreed", "data-testid": "go-agreed", title: "stones marked × are dead by a Monte-Carlo estimate (mctslab.games.go.status); the area count without them, as players would agree; the game's result is the count above" }, [
          `${render.dead.length} dead stone${render.dead.length === 1 ? "" : "s"} (×): ${goResult(render.agreed_score)} by agreement`,
        ]),
      );
    }
  }
  const canPass = interactive && actions.has(render.pass);
  const pass = html("button", {
    type: "button",
    class: "go-pass",
    "data-testid": opts.testids ? "pass" : null,
    disabled: !canPass,
    title: canPass ? labelOf(opts.legal, render.pass) || "pass" : "",
    onclick: () => canPass && opts.onAction(render.pass),
  }, ["Pass"]);
  info.append(pass);
  return html("div", { class: "go-wrap" }, [root, info]);
}

/**
 * A Go move on a "go" drawing: the stone placed and the opponent's strings left without
 * liberties removed (suicide is illegal, so the mover's own never are); a pass changes
 * the turn alone. Only for replaying playouts (the server judged the moves, ko included).
 */
function playGo(render, action) {
  const n = render.size;
  const stones = render.stones.slice();
  const captures = (render.captures || [0, 0]).slice();
  const colour = render.to_play || 1;
  const other = 3 - colour;
  if (action !== render.pass && action >= 0 && action < n * n) {
    stones[action] = colour;
    for (const q of goNeighbours(action, n)) {
      if (stones[q] !== other) continue;
      const string = goDeadString(stones, q, n);
      for (const p of string) stones[p] = 0;
      captures[colour - 1] += string.length;
    }
  }
  return { ...render, stones, captures, last: action, to_play: other, actions: {}, territory: null, score: null, dead: null, agreed_score: null };
}

function goNeighbours(p, n) {
  const r = Math.floor(p / n);
  const c = p % n;
  const out = [];
  if (r > 0) out.push(p - n);
  if (r < n - 1) out.push(p + n);
  if (c > 0) out.push(p - 1);
  if (c < n - 1) out.push(p + 1);
  return out;
}

/** The string of the stone at `p`: its points if it has no liberty, else []. */
function goDeadString(stones, p, n) {
  const colour = stones[p];
  const seen = new Set([p]);
  const stack = [p];
  while (stack.length) {
    const q = stack.pop();
    for (const m of goNeighbours(q, n)) {
      if (stones[m] === 0) return [];
      if (stones[m] === colour && !seen.has(m)) {
        seen.add(m);
        stack.push(m);
      }
    }
  }
  return [...seen];
}

function drawText(render, opts) {
  const wrap = html("div", { class: "text-board" });
  wrap.append(html("pre", { class: "board-text" }, [opts.text || render.text || ""]));
  if (opts.interactive) {
    const buttons = html("div", { class: "move-buttons" });
    for (const move of opts.legal || []) {
      buttons.append(
        html("button", {
          type: "button",
          "data-testid": opts.testids ? `move-${move.action}` : null,
          onclick: () => opts.onAction(move.action),
        }, [move.label]),
      );
    }
    wrap.append(buttons);
  }
  return wrap;
}

/** Whether positions of this kind can be replayed in the browser (for the playout board). */
export function canReplay(render) {
  return Boolean(render) && ["grid", "piles", "pits", "go"].includes(render.kind);
}

/**
 * The position after `action`, computed here from the rules' encodings (tic-tac-toe:
 * action = cell index; Connect Four: action = column; Nim: pile + piles * (take - 1);
 * Bohnenspiel: action = pit index, sown and captured as mctslab.games.bohnenspiel does;
 * Go: action = r * size + c, or the pass).
 * Only for drawing playouts: the server stays the judge of legality.
 */
export function applyAction(render, action) {
  if (render.kind === "grid") {
    const cells = render.cells.slice();
    const xs = cells.filter((m) => m === "x").length;
    const os = cells.filter((m) => m === "o").length;
    const mark = xs <= os ? "x" : "o";
    const actions = actionsMap(render);
    if (render.click === "column") {
      let col = action;
      for (const [c, a] of actions) if (a === action) col = c;
      for (let r = render.rows - 1; r >= 0; r--) {
        const i = r * render.cols + col;
        if (!cells[i]) {
          cells[i] = mark;
          break;
        }
      }
    } else {
      let cell = action;
      for (const [i, a] of actions) if (a === action) cell = i;
      cells[cell] = mark;
    }
    // The next position's clickable map is not known here; the identity encoding holds
    // for the built-in grid games.
    return { ...render, cells, actions: {} };
  }
  if (render.kind === "piles") {
    const piles = render.piles.slice();
    const known = (render.moves || []).find((m) => m.action === action);
    const pile = known ? known.pile : action % piles.length;
    const take = known ? known.take : Math.floor(action / piles.length) + 1;
    piles[pile] = Math.max(0, piles[pile] - take);
    return { ...render, piles, moves: [] };
  }
  if (render.kind === "pits") return sow(render, action);
  if (render.kind === "go") return playGo(render, action);
  return render;
}

/** Bohnenspiel's move on a "pits" drawing: sow, capture 2, 4 or 6 backwards, end. */
function sow(render, pit) {
  const pits = [...render.bottom, ...render.top.slice().reverse()]; // index order 0..11
  const stores = render.stores.slice();
  const mover = pit < 6 ? 0 : 1;
  const beans = pits[pit];
  pits[pit] = 0;
  let at = pit;
  for (let k = 0; k < beans; k++) {
    at = (at + 1) % 12;
    pits[at] += 1;
  }
  // Only pits sown in this move are taken: the last min(beans, 12) reached.
  for (let k = 0; k < Math.min(beans, 12) && [2, 4, 6].includes(pits[at]); k++) {
    stores[mover] += pits[at];
    pits[at] = 0;
    at = (at + 11) % 12;
  }
  const side = (p) => pits.slice(6 * p, 6 * p + 6);
  if (side(1 - mover).every((n) => n === 0)) {
    for (let i = 6 * mover; i < 6 * mover + 6; i++) {
      stores[mover] += pits[i];
      pits[i] = 0;
    }
  }
  return { ...render, bottom: pits.slice(0, 6), top: pits.slice(6).reverse(), stores, actions: {} };
}
