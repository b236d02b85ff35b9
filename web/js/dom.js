// Tiny DOM helpers. Text always goes in as text nodes (never parsed as HTML).

/** An element: h("button", {class: "x", "data-seat": 2, disabled: true}, "Sit here", child) */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === false || value === null || value === undefined) continue;
    if (name === "class") node.className = Array.isArray(value) ? value.filter(Boolean).join(" ") : value;
    else if (name === "style" && typeof value === "object") {
      for (const [prop, v] of Object.entries(value)) node.style.setProperty(prop.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`), v);
    }
    else if (value === true) node.setAttribute(name, "");
    else node.setAttribute(name, String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else if (child instanceof Node) node.appendChild(child);
    else node.appendChild(document.createTextNode(String(child)));
  }
}

/** Replace the children of ``node`` (keyboard focus is put back by ``keepFocus``). */
export function fill(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

/**
 * Re-render while keeping keyboard focus: the focused element's data-key is remembered
 * and the element with the same key gets focus back after ``render`` runs.
 */
export function keepFocus(render) {
  const active = document.activeElement;
  const key = active && active.dataset ? active.dataset.key : undefined;
  render();
  if (key && document.activeElement !== active) {
    const again = document.querySelector(`[data-key="${CSS.escape(key)}"]`);
    if (again && !again.disabled) again.focus({ preventScroll: true });
  }
}

export const $ = (selector, root = document) => root.querySelector(selector);

/** A short toast message at the bottom of the page. */
export function toast(message, kind = "info") {
  let box = $("#toasts");
  if (!box) {
    box = h("div", { id: "toasts", class: "toasts", role: "status", "aria-live": "polite" });
    document.body.appendChild(box);
  }
  const item = h("div", { class: ["toast", `toast-${kind}`] }, message);
  box.appendChild(item);
  setTimeout(() => item.remove(), 4500);
}

/** "3 min ago", in the page's language (``t`` is i18n's lookup, passed in to avoid a cycle). */
export function timeAgo(iso, t) {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return "";
  const s = Math.max(0, (Date.now() - then) / 1000);
  if (s < 60) return t("time.now");
  if (s < 3600) return t("time.min", { n: Math.floor(s / 60) });
  if (s < 86400) return t("time.h", { n: Math.floor(s / 3600) });
  return new Date(then).toLocaleDateString(document.documentElement.lang || undefined);
}
