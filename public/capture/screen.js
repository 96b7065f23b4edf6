// @ts-check
/** The page's frame: one screen at a time (content, actions in the thumb zone, focus), and its alerts. */
import { t } from "./i18n.js";
import { el, icon } from "./ui.js";

/**
 * One of the page's elements by id. Typed as present: an element of another screen is null at run time, and the
 * callers that may run then check (`$("alerts")?.…`, `if (counter)`).
 * @param {string} id
 */
export const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
const main = $("main");
const dock = $("dock-actions");
let firstScreen = true;
let leaving = () => {};

/**
 * @template T
 * @param {T} node
 * @returns {node is NonNullable<Exclude<T, false>>}
 */
const present = (node) => Boolean(node);

/** What must stop when a screen is left (the camera). */
/** @param {() => void} stop */
export function onLeavingScreen(stop) {
  leaving = stop;
}

/** Runs an event handler so that nothing it throws goes unseen (no unhandled rejection, an alert instead). */
/**
 * @template {unknown[]} A
 * @param {(...args: A) => unknown} handler
 * @returns {(...args: A) => Promise<unknown>}
 */
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

/**
 * @param {string} message
 * @param {unknown} [error] logged to the console
 * @param {HTMLElement | null} [action] a button offered beside the alert
 */
export function alertOnScreen(message, error, action = null) {
  if (error) console.warn(error);
  const area = $("alerts");
  const alert = el("p", { class: "alert", role: "alert", "data-testid": "error" }, icon("alert"), el("span", {}, message));
  if (area) area.replaceChildren(...[alert, action].filter(present));
  else show([alert], []);
}

/** Replaces the screen: its content, the actions in the thumb zone, and where focus goes. */
/**
 * `capture`: a capture step's screen, laid out around the viewfinder (style.css); `steps`: the steps bar shows.
 * @param {(HTMLElement | null)[]} content
 * @param {(HTMLElement | null)[]} actions
 * @param {{ capture?: boolean, steps?: boolean, bare?: boolean }} [options]
 */
export function show(content, actions, options = {}) {
  leaving();
  main.className = options.capture ? "step-screen" : "";
  document.body.dataset.screen = options.capture ? "capture" : "";
  main.replaceChildren(...content.filter(present));
  dock.replaceChildren(...actions.filter(present));
  dock.hidden = actions.length === 0;
  $("steps").hidden = !options.steps;
  $("footer").hidden = Boolean(options.bare);
  // Focus moves to the new heading for screen readers, but not on arrival: no ring round anything on load.
  if (!firstScreen) main.querySelector("h1")?.focus();
  firstScreen = false;
}

/**
 * @param {string} text
 * @param {Record<string, string>} [attributes]
 */
export const heading = (text, attributes = {}) => el("h1", { tabindex: "-1", ...attributes }, text);
/**
 * The attributes of a text the template gives, which may be in another language than the page's (its default
 * language when it has none in the person's): its own direction, so an English label on an Arabic page reads left
 * to right with its full stop at its end, and an Arabic one on an English page right to left.
 */
export const templateText = { dir: "auto" };
/**
 * @param {string | Node | (string | Node)[]} label
 * @param {Record<string, unknown>} attributes
 * @param {() => unknown} handler
 */
export const button = (label, attributes, handler) => el("button", { type: "button", ...attributes, onclick: safely(handler) }, label);

/**
 * A screen that ends or interrupts the capture: a mark (a problem, a clock, or done), a heading, what happened
 * and what to do, line by line; the page's brand stays above it.
 * @param {{ kind: "error" | "expired" | "done", title: string, lines: (string | null)[], extra?: HTMLElement | null, actions: (HTMLElement | null)[] }} ending
 */
export function showEnding({ kind, title, lines, extra = null, actions }) {
  const mark = { error: ["mark mark-error", "alert"], expired: ["mark mark-warning", "clock"], done: ["mark", "check"] }[kind];
  const shown = actions.filter(present);
  show(
    [
      el(
        "section",
        { class: "center ending", "data-testid": "ending", "data-ending": kind },
        el("span", { class: mark[0] }, icon(mark[1] ?? "alert", "icon big")),
        heading(title),
        el(
          "div",
          { role: kind === "done" ? "status" : "alert", "data-testid": "error" },
          ...lines.filter(present).map((line) => el("p", { class: "lead" }, line)),
        ),
        extra,
      ),
    ],
    shown,
    { bare: shown.length === 0 },
  );
}

/**
 * @param {string} message
 * @param {HTMLElement[]} [actions]
 */
export function showError(message, actions = []) {
  showEnding({ kind: "error", title: t("errorTitle"), lines: [message], actions });
}
