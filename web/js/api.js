// HTTP helpers and the guest identity kept in localStorage.
import { t } from "./i18n.js";

const KEY = "felt.player";

export const identity = {
  get() {
    try {
      const p = JSON.parse(localStorage.getItem(KEY) || "null");
      return p && typeof p.token === "string" && typeof p.id === "string" ? p : null;
    } catch {
      return null;
    }
  },
  set(player) {
    localStorage.setItem(KEY, JSON.stringify({ id: player.id, name: player.name, token: player.token }));
  },
  clear() {
    localStorage.removeItem(KEY);
  },
};

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** Call the JSON API; throws ApiError with the server's sentence on failure. */
export async function api(path, { method = "GET", body, auth = false } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (auth) {
    const me = identity.get();
    if (me) headers.Authorization = `Bearer ${me.token}`;
  }
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, "network", t("error.network"));
  }
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) {
    const err = data && data.error;
    throw new ApiError(res.status, err?.code || "error", err?.message || t("error.status", { n: res.status }));
  }
  return data;
}

/** The stored player, created when needed; a new name renames it (on every device). */
export async function ensurePlayer(name) {
  const clean = (name || "").trim();
  const me = identity.get();
  if (me && (!clean || clean === me.name)) return me;
  if (!clean) throw new ApiError(0, "name", t("error.name"));
  if (me) {
    try {
      const renamed = await api("/api/players/me", { method: "PATCH", auth: true, body: { name: clean } });
      const player = { ...me, name: renamed.name };
      identity.set(player);
      return player;
    } catch (err) {
      if (err.status !== 401) throw err; // a token no longer known (revoked): a new player below
    }
  }
  const player = await api("/api/players", { method: "POST", body: { name: clean } });
  identity.set(player);
  return player;
}

/** A device link code as people read it: "ABCD-2345" (the server ignores case and dashes). */
export const formatLinkCode = (code) => {
  const clean = String(code).toUpperCase().replace(/[^0-9A-Z]/g, "");
  return clean.length === 8 ? `${clean.slice(0, 4)}-${clean.slice(4)}` : clean;
};

// A room code as the server takes it: without spaces, in upper case (docs/protocol.md).
export const canonicalCode = (text) => text.trim().toUpperCase();
export const roomUrl = (code) => `/r/${encodeURIComponent(canonicalCode(code))}`;
export const matchUrl = (id) => `/matches/${encodeURIComponent(id)}`;
