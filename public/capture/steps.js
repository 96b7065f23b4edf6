// @ts-check
/**
 * The capture steps, one screen each (viewfinder, shutter or file chooser, the step's shots), and finishing:
 * waiting for every shot, then completing. One module because each leads to the other (the last step's button
 * finishes; a refusal found while finishing goes back to its step).
 */
import { t } from "./i18n.js";
import { api, codeOf, HttpError, retrying } from "./network.js";
import { deleteShot } from "./store.js";
import { canRecord, closeCamera, openCamera, startRecording, still } from "./camera.js";
import { el, icon } from "./ui.js";
import { $, alertOnScreen, button, heading, safely, show, showError, templateText } from "./screen.js";
import { askLocation, linkGone, showCompletion } from "./screens.js";
import { base, loadedSession, minimumFor, state, usable } from "./state.js";
import { drawStepsProgress, updateCounter, updateOverall } from "./progress.js";
import { addShot, renderShots, upload } from "./shots.js";

/** @typedef {import("./types.js").Step} Step */

/**
 * Where the person is, kept in the browser's history: one entry per step, so Back goes to the previous step
 * and a reload comes back to this one (with where the phone said it was, so location is asked only once).
 * @typedef {{ step: number, located: boolean, geolocation: import("./types.js").CaptureLocation | null }} Place
 */

/** The step a reload or a reopened link comes back to, or null to begin: the history's, else the last shot's. */
export function resumeStep() {
  const place = /** @type {Place | null} */ (history.state);
  const steps = loadedSession().steps;
  if (place && Number.isInteger(place.step) && place.step >= 0 && place.step < steps.length) return place.step;
  const last = state.shots.at(-1);
  const index = last ? steps.findIndex((step) => step.id === last.stepId) : -1;
  return index >= 0 ? index : null;
}

/** Asked on this page already (Back to the welcome screen, then Continue: not again). */
let locationAsked = false;

/** Start, or Continue: location once (unless already answered), then the step. */
export async function start() {
  const place = /** @type {Place | null} */ (history.state);
  if (place?.located) state.geolocation = place.geolocation;
  else if (!locationAsked && loadedSession().ask_location && "geolocation" in navigator) state.geolocation = await askLocation();
  locationAsked = true;
  await goTo(resumeStep() ?? 0);
}

/**
 * @param {number} index
 * @param {{ push?: boolean }} [options] false when the history already stands there (Back, Forward, reload)
 */
function goTo(index, { push = true } = {}) {
  state.stepIndex = index;
  /** @type {Place} */
  const place = { step: index, located: true, geolocation: state.geolocation };
  if (push && history.state?.step !== index) history.pushState(place, "");
  else history.replaceState(place, "");
  return renderStep();
}

/** Back and Forward move between the steps; before the first step, the welcome screen offers Continue. */
export function followHistory(/** @type {() => unknown} */ welcome) {
  window.addEventListener(
    "popstate",
    safely(() => {
      if (state.ending) return;
      const place = /** @type {Place | null} */ (history.state);
      if (place && Number.isInteger(place.step)) return goTo(place.step, { push: false });
      return welcome();
    }),
  );
}

/** No more than this per clip: far below the 500 MB a video may weigh at the recorder's bit rate. */
const MAX_RECORDING_MS = 120_000;
/** @param {number} ms */
const clock = (ms) => new Date(ms).toISOString().slice(15, 19);

async function renderStep() {
  const session = loadedSession();
  const step = /** @type {Step} */ (session.steps[state.stepIndex]);
  const last = state.stepIndex === session.steps.length - 1;
  const camera = step.kind === "photo" || canRecord();
  const video = /** @type {HTMLVideoElement} */ (
    el("video", { class: "viewfinder", playsinline: true, muted: true, autoplay: true, "aria-label": step.label, "data-testid": "viewfinder" })
  );
  const status = el("p", { class: "frame-status", id: "camera-status" }, t("cameraStarting"));
  // A video step shows its maximum length on the viewfinder, then the time recorded against it.
  const idle = t("maxLength", { t: clock(MAX_RECORDING_MS) });
  const recording = el("p", { class: "rec idle", id: "recording", hidden: step.kind !== "video", "aria-live": "off", "data-testid": "recording" }, idle);
  const frame = el(
    "div",
    { class: "frame", "data-testid": "frame" },
    video,
    beforeOverlay(step),
    el(
      "div",
      { class: "frame-top" },
      heading(step.label, templateText),
      step.instruction ? el("p", { class: "instruction", ...templateText }, step.instruction) : null,
      beforeShots(step),
    ),
    status,
    recording,
    el(
      "div",
      { class: "frame-bottom" },
      el("div", { id: "toast" }),
      el("div", { id: "alerts" }),
      el("ul", { id: "shots", class: "shots", hidden: true }),
      el("p", { id: "counter", class: "counter", "aria-live": "polite" }),
    ),
  );
  video.addEventListener("playing", () => $("camera-status")?.remove(), { once: true });
  const fileInput = /** @type {HTMLInputElement} */ (
    el("input", {
      type: "file",
      id: "file",
      hidden: true,
      accept: step.kind === "video" ? "video/*" : "image/*",
      multiple: step.kind === "photo",
      "aria-label": t("useFile"),
    })
  );
  fileInput.addEventListener(
    "change",
    safely(() => {
      for (const file of fileInput.files ?? []) addShot(step, file, { method: "file" });
      fileInput.value = "";
    }),
  );
  /** @type {(() => Promise<{ blob: Blob, durationMs: number }>) | null} */
  let stopRecording = null;
  let timer = 0;
  const shutter = el(
    "button",
    {
      type: "button",
      id: "shutter",
      class: `shutter ${step.kind}`,
      "data-testid": "shutter",
      "aria-label": step.kind === "video" ? `${t("record")} (${t("maxLength", { t: clock(MAX_RECORDING_MS) })})` : t("shutter"),
      disabled: true,
    },
    el("span", { class: "shutter-core" }),
  );
  const stop = async () => {
    const stopping = stopRecording;
    if (!stopping) return;
    stopRecording = null;
    clearInterval(timer);
    recording.classList.add("idle");
    recording.textContent = idle;
    delete shutter.dataset.recording;
    shutter.setAttribute("aria-label", t("record"));
    const { blob, durationMs } = await stopping();
    addShot(step, blob, { method: "camera", duration_ms: durationMs, width: video.videoWidth || undefined, height: video.videoHeight || undefined });
  };
  shutter.addEventListener(
    "click",
    safely(async () => {
      if (!state.stream) return;
      if (step.kind === "photo") {
        const { blob, width, height, fault } = await still(video);
        return fault ? confirmFaulty(step, fault, blob, { method: "camera", width, height }) : addShot(step, blob, { method: "camera", width, height });
      }
      if (stopRecording !== null) return stop();
      stopRecording = startRecording(state.stream);
      shutter.dataset.recording = "true";
      shutter.setAttribute("aria-label", t("stop"));
      const started = Date.now();
      const tick = () => {
        const elapsed = Date.now() - started;
        recording.textContent = `${clock(elapsed)} / ${clock(MAX_RECORDING_MS)}`;
        if (elapsed >= MAX_RECORDING_MS) void stop().catch((error) => alertOnScreen(t("error"), error));
      };
      recording.classList.remove("idle");
      tick();
      timer = window.setInterval(tick, 250);
    }),
  );
  const next = last
    ? button(t("finish"), { class: "primary", id: "next", "data-testid": "finish" }, finish)
    : button(t("next"), { class: "primary", id: "next", "data-testid": "next-step" }, () => goTo(state.stepIndex + 1));
  const back =
    state.stepIndex > 0 ? button([icon("back", "icon flip"), t("back")], { class: "quiet", "data-testid": "back" }, () => history.back()) : el("span");
  show([frame, fileInput], [el("div", { class: "controls" }, back, el("div", { class: "shutter-zone" }, shutter), next)], {
    capture: true,
    steps: true,
  });
  drawStepsProgress();
  renderShots();
  if (!camera) return cameraUnavailable(frame, shutter, step, null);
  try {
    const opened = await openCamera(video, step.kind === "video");
    if (session.steps[state.stepIndex] !== step || !video.isConnected) return closeCamera(opened);
    state.stream = opened;
    frame.classList.add("live");
    $("camera-status")?.remove();
    updateCounter(step);
  } catch (error) {
    if (video.isConnected) cameraUnavailable(frame, shutter, step, error);
    else if (error) console.warn(error);
  }
}

/**
 * A black, blank or blurred still: not taken until the person says so (a retake is one tap, keeping it two).
 * @param {Step} step
 * @param {import("./quality.js").FrameFault} fault
 * @param {Blob} blob
 * @param {import("./types.js").Capture} capture
 */
function confirmFaulty(step, fault, blob, capture) {
  const keep = button(t("keepAnyway"), { class: "alert-action", "data-testid": "keep-anyway" }, () => addShot(step, blob, capture));
  alertOnScreen(t(fault === "black" ? "faultBlack" : fault === "blank" ? "faultBlank" : "faultBlurred"), undefined, keep);
}

/**
 * An "after": the before's shots of this step, to match the angles, and a ghost of one over the viewfinder.
 * @param {Step} step
 */
function beforeShots(step) {
  const session = loadedSession();
  const count = session.before_shots?.[step.id];
  if (!count) return null;
  const thumbnails = (session.before_thumbnails ?? []).filter((thumbnail) => thumbnail.step_id === step.id);
  const toggle =
    thumbnails.length > 0
      ? button(t("ghost"), { class: "ghost-toggle", "aria-pressed": "false", "data-testid": "ghost" }, () => {
          const ghost = $("ghost");
          if (!ghost) return;
          ghost.hidden = !ghost.hidden;
          toggle?.setAttribute("aria-pressed", String(!ghost.hidden));
        })
      : null;
  return el(
    "div",
    { class: "before-note" },
    el("span", {}, t("beforeShots", { n: count })),
    thumbnails.length > 0
      ? el(
          "ul",
          { class: "befores", "data-testid": "before-shots", "aria-label": t("beforeTitle") },
          ...thumbnails.map((thumbnail, index) => el("li", {}, el("img", { src: thumbnail.url, alt: t("beforeShot", { n: index + 1 }) }))),
        )
      : null,
    toggle,
  );
}

/** @param {Step} step */
function beforeOverlay(step) {
  const first = (loadedSession().before_thumbnails ?? []).find((thumbnail) => thumbnail.step_id === step.id);
  return first ? el("img", { class: "ghost", id: "ghost", src: first.url, alt: "", hidden: true }) : null;
}

/**
 * No camera: says why (blocked, absent, busy) and what to do; choosing a file is always a way.
 * @param {HTMLElement} frame
 * @param {HTMLElement} shutter
 * @param {Step} step
 * @param {unknown} error what getUserMedia threw, or null when this browser cannot record
 */
function cameraUnavailable(frame, shutter, step, error) {
  shutter.hidden = true;
  const name = error instanceof DOMException || error instanceof Error ? error.name : "";
  const why =
    name === "NotAllowedError" || name === "SecurityError"
      ? [t("cameraBlocked"), t("cameraHowTo")]
      : name === "NotFoundError" || name === "OverconstrainedError"
        ? [t("cameraAbsent")]
        : name === "NotReadableError" || name === "AbortError"
          ? [t("cameraBusy")]
          : [t("cameraDenied")];
  frame.querySelector("video")?.remove();
  $("camera-status")?.remove();
  frame.querySelector(".frame-top")?.after(
    el(
      "div",
      { class: "frame-status", role: "status", "data-testid": "camera-unavailable" },
      ...why.map((text) => el("p", {}, text)),
      el(
        "p",
        {},
        error ? button(t("cameraRetry"), { "data-testid": "camera-retry" }, renderStep) : null,
        " ",
        button([icon("file"), t("useFile")], { id: "use-file", class: "primary", "data-testid": "use-file" }, () => $("file").click()),
      ),
    ),
  );
  frame.classList.add("no-camera");
  updateCounter(step);
}

function canFinish() {
  const incomplete = loadedSession().steps.findIndex((step) => usable(step.id).length < minimumFor(step));
  if (incomplete >= 0) return void alertOnScreen(t("incomplete"));
  if (state.shots.some((shot) => shot.state === "refused")) return void alertOnScreen(t("fixRefused"));
  return true;
}

/** Waits for every shot, then completes; never loops: a refusal goes back to the shots, with its reason. */
async function finish() {
  if (!canFinish()) return;
  const session = loadedSession();
  state.ending = true;
  show(
    [
      el(
        "div",
        { class: "center" },
        el("span", { class: "mark" }, el("span", { class: "spinner big" })),
        heading(t("sealingTitle")),
        el(
          "ol",
          { class: "stages" },
          el("li", { id: "sealing-progress" }),
          el("li", { id: "sealing-stage", class: "muted" }, icon("clock"), el("span", {}, t("sealingSealing"))),
        ),
        el("p", { class: "muted" }, t("sealingWhy")),
      ),
    ],
    [],
  );
  updateOverall();
  await Promise.all(state.shots.map(upload));
  const refused = state.shots.find((shot) => shot.state === "refused");
  if (refused) {
    state.ending = false;
    return goTo(session.steps.findIndex((step) => step.id === refused.stepId));
  }
  $("sealing-stage")?.classList.remove("muted");
  $("sealing-stage")?.replaceChildren(el("span", { class: "spinner" }), el("span", {}, t("sealingSealing")));
  try {
    const result = await retrying(
      async () => {
        await dropFilesNotShown();
        return api(`${base}/complete`, { method: "POST", body: {} });
      },
      { onWait: (seconds) => $("sealing-stage")?.replaceChildren(el("span", { class: "spinner" }), el("span", {}, t("retrying", { s: seconds }))) },
    );
    await Promise.all(state.shots.map((shot) => deleteShot(shot.id)));
    showCompletion(session, result);
  } catch (error) {
    const code = codeOf(error);
    // Every ending the server gives is the page's too: a losing "after" says it was not accepted, and why.
    if (code === "compare_to_already_used" || (error instanceof HttpError && error.status === 410)) return linkGone(error);
    state.ending = false;
    if (code === "missing_required_steps" || code === "upload_incomplete")
      return showError(t("missingSteps"), [button(t("backToShots"), { class: "primary wide" }, renderStep)]);
    if (!(error instanceof HttpError)) console.warn(error);
    showError(t("error"), [button(t("tryAgain"), { class: "primary wide", "data-testid": "try-again" }, finish)]);
  }
}

/**
 * What the person sees is what gets sealed: a file the server holds that no shot on screen stands for (a
 * delete lost with the connection, a declaration from a closed tab) is removed before completing.
 */
async function dropFilesNotShown() {
  const shown = new Set(state.shots.map((shot) => shot.fileId));
  /** @type {import("./types.js").ServerFile[]} */
  let files;
  try {
    ({ files } = await api(`${base}/session`));
  } catch (error) {
    // Already completed (an earlier attempt went through, its answer was lost): /complete answers again.
    if (codeOf(error) === "capture_link_used") return;
    throw error;
  }
  for (const file of files) if (!shown.has(file.file_id)) await api(`${base}/files/${file.file_id}`, { method: "DELETE" });
}
