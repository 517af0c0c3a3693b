// The web lab's JSON API (see mctslab.web.routes): every call returns parsed JSON or
// throws an ApiError: the server's `detail` as its message, the status and the request
// apart (the page's banner shows the message as a sentence, the rest in a detail line).

/** A request the server refused (or could not be sent): `status` 0 when no answer came. */
export class ApiError extends Error {
  constructor(message, { status = 0, method = "", path = "" } = {}) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.method = method;
    this.path = path;
  }

  /**
   * Whether the session the request named is gone from the server: expired after its
   * idle time, deleted, or replaced by a newer one of the same client (404 "no session").
   */
  get sessionGone() {
    return this.status === 404 && /^no session\b/.test(this.message);
  }
}

/**
 * The server's `detail` as one readable line: a string as it is; FastAPI's list of
 * validation errors (a 422 the page did not prevent) as "config.c: Input should be ...".
 */
function detailText(data, text) {
  const detail = data && data.detail !== undefined ? data.detail : text;
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) {
    return detail
      .map((e) => {
        const where = Array.isArray(e.loc) ? e.loc.filter((part) => part !== "body").join(".") : "";
        return where ? `${where}: ${e.msg}` : String(e.msg ?? JSON.stringify(e));
      })
      .join("; ");
  }
  return JSON.stringify(detail);
}

export async function request(method, path, body, extra = {}) {
  const init = { method, headers: {}, ...extra };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    throw new ApiError("the server did not answer: is `mctslab serve` still running?", { method, path });
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = text;
  }
  if (!response.ok) {
    throw new ApiError(detailText(data, text) || response.statusText, { status: response.status, method, path });
  }
  return data;
}

export const enc = encodeURIComponent;

export const api = {
  health: () => request("GET", "/api/health"),
  games: () => request("GET", "/api/games"),
  rules: () => request("GET", "/api/rules"),
  // The schema of a request's search configuration (EngineConfig, as /openapi.json has
  // it): the page's defaults come from it.
  engineConfig: () => request("GET", "/engine-config.json"),
  create: (spec) => request("POST", "/api/sessions", spec),
  remove: (id) => request("DELETE", `/api/sessions/${enc(id)}`),
  // The page is going away (pagehide): the request must outlive it, and no one reads
  // its answer. keepalive, since sendBeacon can only POST.
  leave: (id) => {
    fetch(`/api/sessions/${enc(id)}`, { method: "DELETE", keepalive: true }).catch(() => {});
  },
  session: (id) => request("GET", `/api/sessions/${enc(id)}`),
  play: (id, action) => request("POST", `/api/sessions/${enc(id)}/play`, { action }),
  ai: (id, budget) => request("POST", `/api/sessions/${enc(id)}/ai`, budget),
  iterations: (id, k) => request("POST", `/api/sessions/${enc(id)}/iterations`, { k }),
  step: (id) => request("POST", `/api/sessions/${enc(id)}/step`),
  tree: (id, { node, depth, top, path }) => {
    const q = new URLSearchParams();
    if (node !== undefined && node !== null) q.set("node", node);
    if (path) q.set("path", path);
    if (depth !== undefined && depth !== null) q.set("depth", depth);
    if (top !== undefined && top !== null) q.set("top", top);
    return request("GET", `/api/sessions/${enc(id)}/tree?${q}`);
  },
  node: (id, node) => request("GET", `/api/sessions/${enc(id)}/node?node=${enc(node)}`),
  reset: (id) => request("POST", `/api/sessions/${enc(id)}/reset`),
  cancel: (id) => request("POST", `/api/sessions/${enc(id)}/cancel`),
  sgfUrl: (id) => `/api/sessions/${enc(id)}/sgf`,
  exportUrl: (id, format, { depth, top } = {}) => {
    const q = new URLSearchParams({ format });
    if (depth !== undefined && depth !== null) q.set("depth", depth);
    if (top !== undefined && top !== null) q.set("top", top);
    return `/api/sessions/${enc(id)}/export?${q}`;
  },
};
