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

// ---------------------------------------------------------------------------------------
// The banner (#error): what the last action's refusal was, as a sentence.

// The words of the statuses the API documents (docs/web.md), for the detail line.
const STATUS_WORDS = {
  400: "refused by the game",
  404: "not found",
  409: "busy",
  413: "too large",
  422: "not a valid request",
  429: "too many at once",
  500: "server error",
  503: "not available",
};

/** `text` as a sentence: its first letter capital, a full stop at the end. */
export function sentence(text) {
  const s = String(text).trim();
  if (!s) return s;
  const first = s[0].toUpperCase() + s.slice(1);
  return /[.!?…:]$/.test(first) ? first : `${first}.`;
}

/**
 * Show the banner for an action's refusal `err`: "LEAD: the reason." in full sentences,
 * `after` (what the page did about it) as a sentence of its own, and the HTTP status and
 * request in a smaller line below (for a request the server refused). kind "notice":
 * news, not a failure (a game started in place of an expired one).
 * A banner belongs to the action that caused it: the page hides it at the next action.
 */
export function showBanner(err, { lead = "", after = "", kind = "error" } = {}) {
  const box = document.getElementById("error");
  const reason = err instanceof Error ? err.message : String(err ?? "");
  const text = lead && reason ? `${lead}: ${reason}` : lead || reason;
  const lines = [html("p", { class: "banner-text", "data-testid": "banner-text" }, [sentence(text) + (after ? ` ${sentence(after)}` : "")])];
  const status = err && typeof err === "object" ? err.status : 0;
  if (status) {
    const words = STATUS_WORDS[status] ? ` (${STATUS_WORDS[status]})` : "";
    lines.push(html("p", { class: "banner-detail", "data-testid": "banner-detail" }, [`HTTP ${status}${words} · ${err.method} ${err.path.split("?")[0]}`]));
  }
  box.replaceChildren(...lines);
  box.dataset.kind = kind;
  box.setAttribute("role", kind === "error" ? "alert" : "status");
  box.hidden = false;
}

/** Hide the banner (the next action has begun). */
export function hideBanner() {
  const box = document.getElementById("error");
  box.hidden = true;
  box.replaceChildren();
}
