// @ts-check
/** The screens around the capture itself: welcome, location, completion, and a link that can no longer be used. */
import { t } from "./i18n.js";
import { codeOf } from "./network.js";
import { el, icon } from "./ui.js";
import { button, heading, show, showError } from "./screen.js";

/** A permission prompt left open, or a phone that cannot find itself, must not hold the capture back. */
const LOCATION_TIMEOUT_MS = 15_000;

/** @typedef {import("./types.js").Step} Step */

/**
 * @param {Step} step
 * @param {(step: Step) => number} minimumFor
 */
function shotsText(step, minimumFor) {
  const n = Math.max(1, minimumFor(step));
  const count = t(step.kind === "video" ? (n === 1 ? "video1" : "videoN") : n === 1 ? "photo1" : "photoN", { n });
  return minimumFor(step) === 0 ? `${count} · ${t("optional")}` : count;
}

/**
 * @param {import("./types.js").Session} session
 * @param {(step: Step) => number} minimumFor
 * @param {() => unknown} start
 */
export function showWelcome(session, minimumFor, start) {
  const seconds = session.steps.reduce((sum, step) => sum + (step.kind === "video" ? 60 : 20 * Math.max(1, minimumFor(step))), 30);
  show(
    [
      heading(session.welcome.title),
      session.welcome.body ? el("p", { class: "lead" }, session.welcome.body) : null,
      el(
        "section",
        { class: "card", "aria-labelledby": "steps-title" },
        el("h2", { id: "steps-title" }, t("stepsTitle")),
        el(
          "ol",
          { class: "step-list" },
          ...session.steps.map((step) => el("li", {}, el("span", {}, step.label), el("span", { class: "muted" }, shotsText(step, minimumFor)))),
        ),
        el("p", { class: "with-icon muted" }, icon("clock"), el("span", {}, t("duration", { n: Math.ceil(seconds / 60) }))),
      ),
      el("p", { class: "with-icon trust" }, icon("shield"), el("span", {}, t("sealed"))),
    ],
    [button(t("start"), { class: "primary wide", "data-testid": "start" }, start)],
  );
}

/** Location, asked in context, never blocking: its own timeout, and "continue without" at any moment. */
/** @returns {Promise<import("./types.js").CaptureLocation | null>} */
export function askLocation() {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (/** @type {import("./types.js").CaptureLocation | null} */ value) => !settled && ((settled = true), resolve(value));
    const waiting = el("p", { class: "status", role: "status" });
    const accept = () => {
      waiting.replaceChildren(el("span", { class: "spinner" }), t("locationWaiting"));
      setTimeout(() => finish(null), LOCATION_TIMEOUT_MS);
      navigator.geolocation.getCurrentPosition(
        (position) => finish({ latitude: position.coords.latitude, longitude: position.coords.longitude, accuracy_m: position.coords.accuracy }),
        () => finish(null),
        { enableHighAccuracy: true, timeout: LOCATION_TIMEOUT_MS, maximumAge: 60_000 },
      );
    };
    show(
      [
        el(
          "div",
          { class: "center" },
          el("span", { class: "mark" }, icon("pin", "icon big")),
          heading(t("locationTitle")),
          el("p", {}, t("locationWhy")),
          waiting,
        ),
      ],
      [
        button(t("locationYes"), { class: "primary wide", "data-testid": "location-yes" }, accept),
        button(t("locationNo"), { class: "wide", "data-testid": "location-no" }, () => finish(null)),
      ],
    );
  });
}

/**
 * @param {import("./types.js").Session} session
 * @param {{ proof_id?: string, redirect_url?: string | null }} result POST /complete's answer
 */
export function showCompletion(session, result) {
  const countdown = el("p", { class: "muted", "data-testid": "redirect-countdown", "aria-live": "polite" });
  show(
    [
      el(
        "section",
        { class: "center", "data-testid": "completion" },
        el("span", { class: "mark mark-success" }, icon("check", "icon big")),
        heading(session.completion.title),
        session.completion.body ? el("p", {}, session.completion.body) : null,
        result.proof_id ? el("p", { class: "reference" }, `${t("reference")} `, el("code", {}, result.proof_id)) : null,
        // The proof is still pending when /complete answers: say what was observed, not a seal that may yet fail.
        el("p", { class: "with-icon trust" }, icon("shield"), el("span", {}, t("received"))),
        result.redirect_url ? countdown : el("p", { class: "muted" }, t("closePage")),
      ),
    ],
    [],
    { bare: true },
  );
  const redirect = result.redirect_url;
  if (!redirect) return;
  let seconds = 4;
  const tick = () => {
    countdown.textContent = t("redirect", { s: seconds });
    if (seconds-- <= 0) location.assign(redirect);
    else setTimeout(tick, 1000);
  };
  tick();
}

/** @param {unknown} error */
export function linkGone(error) {
  const code = codeOf(error);
  showError(
    code === "capture_link_expired" ? t("expired") : code === "capture_link_used" ? t("used") : code === "capture_link_not_found" ? t("notFound") : t("error"),
  );
}
