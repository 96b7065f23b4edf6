// @ts-check
/** The screens around the capture itself: welcome, location, completion, and a link that can no longer be used. */
import { t, WESTERN_DIGITS } from "./i18n.js";
import { codeOf, HttpError } from "./network.js";
import { el, icon } from "./ui.js";
import { button, heading, show, showEnding, templateText } from "./screen.js";
import { expiryTime } from "./expiry.js";
import { shotsOf } from "./store.js";
import { state, token } from "./state.js";
import { showNotices } from "./progress.js";

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
 * @param {boolean} resuming the person was already capturing (a reload, Back past the first step): Continue
 */
export function showWelcome(session, minimumFor, start, resuming) {
  const seconds = session.steps.reduce((sum, step) => sum + (step.kind === "video" ? 60 : 20 * Math.max(1, minimumFor(step))), 30);
  show(
    [
      heading(session.welcome.title, templateText),
      session.welcome.body ? el("p", { class: "lead", ...templateText }, session.welcome.body) : null,
      el(
        "section",
        { class: "card", "aria-labelledby": "steps-title" },
        el("h2", { id: "steps-title" }, t("stepsTitle")),
        el(
          "ol",
          { class: "step-list" },
          ...session.steps.map((step) => el("li", {}, el("span", {}, el("bdi", {}, step.label)), el("span", { class: "muted" }, shotsText(step, minimumFor)))),
        ),
        el("p", { class: "with-icon muted" }, icon("clock"), el("span", {}, t("duration", { n: Math.ceil(seconds / 60) }))),
        el("p", { class: "with-icon muted", "data-testid": "valid-until" }, icon("clock"), el("span", {}, t("validUntil", { time: expiryTime() }))),
      ),
      resuming && state.shots.length > 0
        ? el("p", { class: "with-icon resume", role: "status" }, icon("check"), el("span", {}, t("resumeKept", { n: state.shots.length })))
        : null,
      el("p", { class: "with-icon trust" }, icon("shield"), el("span", {}, t("sealed"))),
    ],
    [button(resuming ? t("continue") : t("start"), { class: "primary wide", "data-testid": "start" }, start)],
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
  const files = state.shots.length;
  const steps = new Set(state.shots.map((shot) => shot.stepId)).size;
  const now = new Intl.DateTimeFormat(document.documentElement.lang || undefined, { ...WESTERN_DIGITS, dateStyle: "medium", timeStyle: "short" }).format(
    new Date(),
  );
  show(
    [
      el(
        "section",
        { class: "center", "data-testid": "completion" },
        el("span", { class: "mark mark-success" }, icon("check", "icon big")),
        heading(session.completion.title, templateText),
        // The proof is still pending when /complete answers: say what was observed, not a seal that may yet fail
        // (once: the template's own text when it has one, else the page's).
        el("p", session.completion.body ? templateText : {}, session.completion.body ?? t("received")),
        el(
          "dl",
          { class: "receipt card", "data-testid": "receipt", "aria-label": t("receipt") },
          session.organization_name ? [el("dt", {}, t("receiptFor")), el("dd", {}, session.organization_name)] : null,
          el("dt", {}, t("receiptWhen")),
          el("dd", {}, now),
          el("dt", {}, t("receiptFiles")),
          el("dd", {}, steps > 1 ? t("receiptCount", { files, steps }) : String(files)),
          result.proof_id ? [el("dt", {}, t("reference")), el("dd", {}, el("code", {}, result.proof_id))] : null,
        ),
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

/**
 * Every way a capture can end without a proof, said plainly: what happened, what became of the shots, and who
 * to ask (the organisation the session names; the way back to it when the session has a return address).
 * @param {unknown} error the server's refusal, or null when the page saw the link expire itself
 */
export async function linkGone(error) {
  state.ending = true;
  // No more "finish now": the notices say only what still holds (offline).
  showNotices();
  const code = error === null ? "capture_link_expired" : codeOf(error);
  const body = error instanceof HttpError ? error.body : null;
  const organization = state.session?.organization_name ?? body?.organization_name ?? null;
  const returnUrl = state.session?.return_url ?? body?.return_url ?? null;
  const ask = organization ? t("askOrganization", { organization }) : t("askSender");
  const back = returnUrl
    ? el("a", { class: "button-link", href: withSession(returnUrl), "data-testid": "return" }, t("backTo", { organization: organization ?? "" }))
    : null;
  if (code === "capture_link_expired") {
    const kept = (state.shots.length > 0 ? state.shots : await shotsOf(token)).filter((shot) => shot.blob.size > 0);
    const time = expiryTime();
    return showEnding({
      kind: "expired",
      title: t("expiredTitle"),
      lines: [time ? t("expiredAt", { time }) : t("expired"), kept.length > 0 ? t("expiredKept", { n: kept.length }) : null, ask],
      extra: kept.length > 0 ? savedShots(kept) : null,
      actions: [back],
    });
  }
  if (code === "compare_to_already_used") {
    // A new link would not help: the item already has its "after". Who sent it can say what happens now.
    const next = organization ? t("nextStepsOrganization", { organization }) : t("nextStepsSender");
    return showEnding({ kind: "error", title: t("notAcceptedTitle"), lines: [t("notAccepted"), next], actions: [back] });
  }
  if (code === "capture_link_used") return showEnding({ kind: "done", title: t("usedTitle"), lines: [t("used")], actions: [back] });
  if (code === "capture_link_not_found") return showEnding({ kind: "error", title: t("notFoundTitle"), lines: [t("notFound"), t("askSender")], actions: [] });
  return showEnding({ kind: "error", title: t("errorTitle"), lines: [t("error")], actions: [] });
}

/** @param {string} url */
function withSession(url) {
  const target = new URL(url);
  if (state.session) target.searchParams.append("session_id", state.session.session_id);
  return target.toString();
}

/**
 * The shots kept on the phone, each one saved to the phone's files with a tap.
 * @param {{ id: string, blob: Blob, kind?: string }[]} kept
 */
function savedShots(kept) {
  return el(
    "ul",
    { class: "kept", "data-testid": "kept-shots" },
    ...kept.map((shot, index) => {
      const url = URL.createObjectURL(shot.blob);
      const name = t("shotNumber", { n: index + 1 });
      const extension = (shot.blob.type.split("/")[1] ?? "bin").replace("jpeg", "jpg").replace("quicktime", "mov");
      return el(
        "li",
        {},
        shot.kind === "video"
          ? el("video", { src: url, muted: true, playsinline: true, preload: "metadata", "aria-hidden": "true" })
          : el("img", { src: url, alt: "" }),
        el("a", { href: url, download: `${name}.${extension}`, class: "button-link" }, t("saveShot", { n: index + 1 })),
      );
    }),
  );
}
