// The web lab's JSON API (see mctslab.web.routes): every call returns parsed JSON or
// throws an Error whose message is the server's `detail`.

export async function request(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = text;
  }
  if (!response.ok) {
    let detail = data && data.detail !== undefined ? data.detail : text;
    if (typeof detail !== "string") detail = JSON.stringify(detail);
    throw new Error(`${response.status}: ${detail}`);
  }
  return data;
}

export const enc = encodeURIComponent;

export const api = {
  health: () => request("GET", "/api/health"),
  games: () => request("GET", "/api/games"),
  rules: () => request("GET", "/api/rules"),
  create: (spec) => request("POST", "/api/sessions", spec),
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
