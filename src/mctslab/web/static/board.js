// Board drawings from the server's `render` description of a position:
//   grid  (tic-tac-toe, Connect Four): rows, cols, cells (row-major, top row first:
//         "", "x", "o"), click "cell" | "column", actions {cell or column: action id}
//   piles (Nim, Bachet): piles [counts], max_take, moves [{pile, take, action}]
//   pits  (Bohnenspiel): top [pits 11..6], bottom [pits 0..5], stores [s0, s1],
//         actions {pit: action id}
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
  return drawText(render, opts);
}

function actionsMap(render) {
  // JSON object keys are strings: map them back to numbers.
  const map = new Map();
  for (const [key, action] of Object.entries(render.actions || {})) map.set(Number(key), action);
  return map;
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
  return Boolean(render) && ["grid", "piles", "pits"].includes(render.kind);
}

/**
 * The position after `action`, computed here from the rules' encodings (tic-tac-toe:
 * action = cell index; Connect Four: action = column; Nim: pile + piles * (take - 1);
 * Bohnenspiel: action = pit index, sown and captured as mctslab.games.bohnenspiel does).
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
