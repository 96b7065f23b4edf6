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
import { $, alertOnScreen, button, heading, safely, show, showError } from "./screen.js";
import { askLocation, linkGone, showCompletion } from "./screens.js";
import { base, loadedSession, minimumFor, state, usable } from "./state.js";
import { drawStepsProgress, updateCounter, updateOverall } from "./progress.js";
import { addShot, renderShots, upload } from "./shots.js";

/** @typedef {import("./types.js").Step} Step */

export async function start() {
  if (loadedSession().ask_location && "geolocation" in navigator) state.geolocation = await askLocation();
  state.stepIndex = 0;
  await renderStep();
}

async function renderStep() {
  const session = loadedSession();
  const step = /** @type {Step} */ (session.steps[state.stepIndex]);
  const last = state.stepIndex === session.steps.length - 1;
  const camera = step.kind === "photo" || canRecord();
  const video = /** @type {HTMLVideoElement} */ (
    el("video", { class: "viewfinder", playsinline: true, muted: true, autoplay: true, "aria-label": step.label })
  );
  const frame = el("div", { class: "frame" }, video, el("p", { class: "frame-status", id: "camera-status" }, t("cameraStarting")));
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
      "aria-label": step.kind === "video" ? t("record") : t("shutter"),
      disabled: true,
    },
    el("span", { class: "shutter-core" }),
  );
  const elapsed = el("span", { class: "elapsed", "aria-live": "off" });
  shutter.addEventListener(
    "click",
    safely(async () => {
      if (!state.stream) return;
      if (step.kind === "photo") {
        const { blob, width, height } = await still(video);
        return addShot(step, blob, { method: "camera", width, height });
      }
      if (stopRecording === null) {
        stopRecording = startRecording(state.stream);
        shutter.dataset.recording = "true";
        shutter.setAttribute("aria-label", t("stop"));
        const started = Date.now();
        timer = window.setInterval(() => (elapsed.textContent = new Date(Date.now() - started).toISOString().slice(15, 19)), 250);
        return;
      }
      const stop = stopRecording;
      stopRecording = null;
      clearInterval(timer);
      elapsed.textContent = "";
      delete shutter.dataset.recording;
      shutter.setAttribute("aria-label", t("record"));
      const { blob, durationMs } = await stop();
      addShot(step, blob, { method: "camera", duration_ms: durationMs, width: video.videoWidth || undefined, height: video.videoHeight || undefined });
    }),
  );
  const next = last
    ? button(t("finish"), { class: "primary", id: "next", "data-testid": "finish" }, finish)
    : button(t("next"), { class: "primary", id: "next", "data-testid": "next-step" }, () => ((state.stepIndex += 1), renderStep()));
  const back =
    state.stepIndex > 0
      ? button([icon("back"), t("back")], { class: "quiet", "data-testid": "back" }, () => ((state.stepIndex -= 1), renderStep()))
      : el("span");
  show(
    [
      heading(step.label),
      step.instruction ? el("p", { class: "instruction" }, step.instruction) : null,
      session.before_shots?.[step.id] ? el("p", { class: "muted" }, t("beforeShots", { n: session.before_shots[step.id] })) : null,
      frame,
      fileInput,
      el("div", { id: "alerts" }),
      el("ul", { id: "shots", class: "shots", hidden: true }),
      el("p", { id: "counter", class: "counter", "aria-live": "polite" }),
    ],
    [el("div", { class: "controls" }, back, el("div", { class: "shutter-zone" }, shutter, elapsed), next)],
    { steps: session.steps.length > 1 },
  );
  drawStepsProgress();
  renderShots();
  if (!camera) return cameraUnavailable(frame, shutter, step);
  try {
    const opened = await openCamera(video, step.kind === "video");
    if (session.steps[state.stepIndex] !== step || !video.isConnected) return closeCamera(opened);
    state.stream = opened;
    frame.classList.add("live");
    $("camera-status")?.remove();
    updateCounter(step);
  } catch (error) {
    if (video.isConnected) cameraUnavailable(frame, shutter, step);
    else if (error) console.warn(error);
  }
}

/**
 * No camera (refused, absent, or no recorder for a video): choosing a file is the way, shown as such.
 * @param {HTMLElement} frame
 * @param {HTMLElement} shutter
 * @param {Step} step
 */
function cameraUnavailable(frame, shutter, step) {
  shutter.hidden = true;
  frame.replaceChildren(
    el("p", { class: "frame-status", role: "status" }, t("cameraDenied")),
    button([icon("file"), t("useFile")], { id: "use-file", "data-testid": "use-file" }, () => $("file").click()),
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
    state.stepIndex = session.steps.findIndex((step) => step.id === refused.stepId);
    return renderStep();
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
    if (code === "compare_to_already_used") return showError(t("alreadyUsed"));
    if (error instanceof HttpError && error.status === 410) return linkGone(error);
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
