// @ts-check
/** The page's frame: one screen at a time (content, actions in the thumb zone, focus), and its alerts. */
import { t } from "./i18n.js";
import { el, icon } from "./ui.js";

export const $ = (id) => /** @type {any} */ (document.getElementById(id));
const main = $("main");
const dock = $("dock-actions");
let firstScreen = true;
let leaving = () => {};

/** What must stop when a screen is left (the camera). */
export function onLeavingScreen(stop) {
  leaving = stop;
}

/** Runs an event handler so that nothing it throws goes unseen (no unhandled rejection, an alert instead). */
export const safely =
  (handler) =>
  (...args) =>
    Promise.resolve()
      .then(() => handler(...args))
      .catch((error) => alertOnScreen(t("error"), error));

export function clearAlerts() {
  const area = $("alerts");
  if (!area) return;
  area.replaceChildren();
  delete area.dataset.refused;
}

export function alertOnScreen(message, error, action = null) {
  if (error) console.warn(error);
  const area = $("alerts");
  const alert = el("p", { class: "alert", role: "alert", "data-testid": "error" }, icon("alert"), el("span", {}, message));
  if (area) area.replaceChildren(...[alert, action].filter(Boolean));
  else show([alert], []);
}

/** Replaces the screen: its content, the actions in the thumb zone, and where focus goes. */
export function show(content, actions, options = { steps: false, bare: false }) {
  leaving();
  main.className = options.steps ? "step-screen" : "";
  main.replaceChildren(...content.filter(Boolean));
  dock.replaceChildren(...actions.filter(Boolean));
  dock.hidden = actions.length === 0;
  $("steps").hidden = !options.steps;
  $("footer").hidden = Boolean(options.bare);
  // Focus moves to the new heading for screen readers, but not on arrival: no ring round anything on load.
  if (!firstScreen) main.querySelector("h1")?.focus();
  firstScreen = false;
}

export const heading = (text) => el("h1", { tabindex: "-1" }, text);
export const button = (label, attributes, handler) => el("button", { type: "button", ...attributes, onclick: safely(handler) }, label);

export function showError(message, actions = []) {
  show(
    [
      el(
        "div",
        { class: "center" },
        el("span", { class: "mark mark-error" }, icon("alert", "icon big")),
        el("p", { class: "lead", role: "alert", "data-testid": "error" }, message),
      ),
    ],
    actions,
    { bare: actions.length === 0 },
  );
}
