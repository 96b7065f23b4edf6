// @ts-check
/** What the page says about progress: the overall bar and line, the notices, a step's counter and the steps bar. */
import { t } from "./i18n.js";
import { el, icon } from "./ui.js";
import { $ } from "./screen.js";
import { drawExpiry, expiresSoon, expiryTime } from "./expiry.js";
import { loadedSession, minimumFor, state, usable } from "./state.js";

const overall = /** @type {HTMLProgressElement} */ ($("overall"));
const overallLabel = $("overall-label");

export function updateOverall() {
  const live = state.shots.filter((shot) => shot.state !== "refused");
  const total = live.reduce((sum, shot) => sum + shot.blob.size, 0);
  const sent = live.reduce((sum, shot) => sum + (shot.state === "uploaded" ? shot.blob.size : (shot.sent ?? 0)), 0);
  const done = live.filter((shot) => shot.state === "uploaded").length;
  overall.hidden = live.length === 0;
  overall.max = Math.max(1, total);
  overall.value = sent;
  showNotices();
  overallLabel.textContent =
    state.retryNotice || (live.length === 0 ? "" : done === live.length ? t("uploaded") : t("uploading", { done, total: live.length }));
  $("sealing-progress")?.replaceChildren(
    done === live.length ? icon("check") : el("span", { class: "spinner" }),
    el("span", {}, t("sealingSending", { done, total: live.length })),
  );
}

export function showNotices() {
  const offline = !navigator.onLine;
  // "Keep this page open" only while something is still to send.
  const unsent = !state.persisted && state.shots.some((shot) => shot.state !== "uploaded" && shot.state !== "refused");
  // The link's last five minutes, while the capture is not finished.
  const hurry = state.session !== null && !state.ending && expiresSoon();
  $("notice").hidden = !offline && !unsent && !hurry;
  $("notice").replaceChildren(
    icon(offline ? "wifiOff" : hurry ? "clock" : "alert"),
    el("span", {}, offline ? t("offline") : hurry ? t("expiresSoon", { time: expiryTime() }) : t("keepOpen")),
  );
  drawExpiry();
}

/** @param {import("./types.js").Step} step */
export function updateCounter(step) {
  const taken = usable(step.id).length;
  const missing = minimumFor(step) - taken;
  const word = step.kind === "video" ? "Video" : "Photo";
  const sentence =
    missing > 0
      ? t(missing === 1 ? `more${word}1` : `more${word}N`, { n: missing })
      : taken >= step.max_count
        ? t("stepFull")
        : taken === 0
          ? t("stepOptional")
          : t("canAdd", { n: step.max_count - taken });
  const counter = $("counter");
  if (counter) counter.textContent = sentence;
  const next = /** @type {HTMLButtonElement | null} */ ($("next"));
  if (next) next.disabled = missing > 0;
  const shutter = /** @type {HTMLButtonElement | null} */ ($("shutter"));
  if (shutter && !shutter.dataset.recording) shutter.disabled = !state.stream || taken >= step.max_count;
  const chooser = /** @type {HTMLButtonElement | null} */ ($("use-file"));
  if (chooser) chooser.disabled = taken >= step.max_count;
}

export function drawStepsProgress() {
  const { steps } = loadedSession();
  $("steps-label").hidden = $("steps-bar").hidden = steps.length === 1;
  $("steps-label").textContent = t("step", { i: state.stepIndex + 1, n: steps.length });
  drawExpiry();
  $("steps-bar").replaceChildren(
    ...steps.map((_, index) => el("span", { class: index < state.stepIndex ? "done" : index === state.stepIndex ? "current" : "" })),
  );
}
