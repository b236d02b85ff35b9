// A question before a step that cannot be undone: a modal <dialog> in the top layer (the page
// behind is inert, focus starts on the safe answer, Esc or "Cancel" says no, focus goes back
// where it was), never the browser's window.confirm.
import { h } from "./dom.js";
import { t } from "./i18n.js";

let made = 0;

/** Ask ``title`` / ``text``; resolves true when the person chose ``yes`` (the button's words). */
export function confirmStep({ title, text, yes, no = t("confirm.cancel") }) {
  const id = `confirm-${++made}`;
  const cancel = h("button", { type: "button", class: "btn", "data-confirm": "no" }, no);
  const ok = h("button", { type: "button", class: "btn btn-danger", "data-confirm": "yes" }, yes);
  const dialog = h("dialog", { class: "confirm-dialog", role: "alertdialog", "aria-modal": "true",
    "aria-labelledby": `${id}-title`, "aria-describedby": `${id}-text` },
  h("h2", { id: `${id}-title` }, title),
  h("p", { id: `${id}-text` }, text),
  h("div", { class: "confirm-actions" }, cancel, ok));
  const back = document.activeElement;
  document.body.appendChild(dialog);
  return new Promise((resolve) => {
    cancel.addEventListener("click", () => dialog.close("no"));
    ok.addEventListener("click", () => dialog.close("yes"));
    dialog.addEventListener("close", () => {
      dialog.remove();
      if (back && back.isConnected) back.focus({ preventScroll: true });
      resolve(dialog.returnValue === "yes");
    });
    dialog.showModal();
    cancel.focus();
  });
}
