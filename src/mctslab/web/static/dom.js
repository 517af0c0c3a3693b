// Small DOM helpers shared by the page's modules: no framework, no build step.

const SVG_NS = "http://www.w3.org/2000/svg";

/** An SVG element with attributes and children (strings become text nodes). */
export function svg(tag, attrs = {}, children = []) {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  for (const child of children) {
    el.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return el;
}

/** An HTML element with attributes and children (strings become text nodes). */
export function html(tag, attrs = {}, children = []) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  for (const child of children) {
    if (child === null || child === undefined) continue;
    el.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return el;
}

function setAttrs(el, attrs) {
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (key === "text") {
      el.textContent = value;
    } else {
      el.setAttribute(key, value === true ? "" : String(value));
    }
  }
}

/** Format a mean return on the game's scale with its sign: +0.42, -0.10. */
export function fmtValue(v) {
  if (v === null || v === undefined || Number.isNaN(v)) return "–";
  return (v >= 0 ? "+" : "") + v.toFixed(2);
}

/** Format a mean reward in [0, 1] (the tree's Q/N): 0.53. */
export function fmtMean(v) {
  if (v === null || v === undefined || Number.isNaN(v)) return "–";
  return v.toFixed(2);
}

/** Format a UCT score; the server sends null for an unvisited child's +inf. */
export function fmtUct(u) {
  if (u === null || u === undefined) return "∞";
  if (!Number.isFinite(u)) return u > 0 ? "∞" : "-∞";
  return u.toFixed(2);
}

// ColorBrewer's RdYlGn ends and middle, as the DOT export colours its nodes.
const RED = [215, 48, 39];
const YELLOW = [255, 255, 191];
const GREEN = [26, 152, 80];

/** A fill for a mean reward in [0, 1]: red (lost) - yellow (even) - green (won); white if unvisited. */
export function meanColour(v) {
  if (v === null || v === undefined || Number.isNaN(v)) return "#ffffff";
  const x = Math.max(0, Math.min(1, v));
  const [a, b, t] = x < 0.5 ? [RED, YELLOW, x * 2] : [YELLOW, GREEN, x * 2 - 1];
  const mix = a.map((ai, i) => Math.round(ai + (b[i] - ai) * t));
  return `rgb(${mix.join(",")})`;
}

/**
 * A tree node's fill: the mean's colour (meanColour) mixed 55% toward white, so that the
 * node's dark text reads at WCAG AA contrast (4.5:1 and more) on the reddest and the
 * greenest fill alike; the hue still says the mean.
 */
export function nodeFill(v) {
  if (v === null || v === undefined || Number.isNaN(v)) return "#ffffff";
  const rgb = meanColour(v).match(/\d+/g).map(Number);
  return `rgb(${rgb.map((c) => Math.round(c + (255 - c) * 0.55)).join(",")})`;
}

/** The same scale for a mean return in [-1, 1]. */
export function valueColour(v) {
  if (v === null || v === undefined || Number.isNaN(v)) return "#ffffff";
  return meanColour((v + 1) / 2);
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
