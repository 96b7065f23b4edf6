// @ts-check
import { pickLanguage, speak, t } from "./i18n.js";
import { Aborted, api, codeOf, HttpError, retrying, watchConnection } from "./network.js";
import { sha256Hex, uploadShot } from "./upload.js";
import { saveShot, deleteShot, shotsOf } from "./store.js";
import { canRecord, closeCamera, openCamera, startRecording, still } from "./camera.js";
import { refusalOfCode, refusalOnPhone } from "./refusals.js";
import { el, icon } from "./ui.js";
import { $, alertOnScreen, button, clearAlerts, heading, onLeavingScreen, safely, show, showError } from "./screen.js";
import { askLocation, linkGone, showCompletion, showWelcome } from "./screens.js";

const token = location.pathname.split("/").filter(Boolean).pop() ?? "";
const base = `/c/${token}`;
const overall = $("overall");
const overallLabel = $("overall-label");

/** @type {any} */ let session;
/** @type {any[]} */ let shots = [];
/** @type {any} */ let geolocation = null;
let stepIndex = 0;
/** @type {MediaStream | null} */ let stream = null;
/** False once the browser refused to keep a shot: the person is asked to keep the page open. */
let persisted = true;
let retryNotice = "";

function applyTheme(theme) {
  const hex = theme.primary_color.replace("#", "");
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  document.documentElement.style.setProperty("--primary", theme.primary_color);
  document.documentElement.style.setProperty("--on-primary", luminance > 0.4 ? "#000" : "#fff");
  if (theme.logo_url) {
    $("logo").src = theme.logo_url;
    $("logo").hidden = false;
  }
}

// ——— Shots ———

const stepShots = (stepId) => shots.filter((shot) => shot.stepId === stepId);
const usable = (stepId) => stepShots(stepId).filter((shot) => shot.state !== "refused");
const minimumFor = (step) => Math.max(step.required ? step.min_count : 0, session.before_shots?.[step.id] ?? 0);
const record = (shot) => ({
  id: shot.id,
  token,
  stepId: shot.stepId,
  kind: shot.kind,
  blob: shot.blob,
  sha256: shot.sha256,
  capture: shot.capture,
  fileId: shot.fileId,
  upload: shot.upload,
  storedParts: shot.storedParts,
  state: shot.state,
  refusal: shot.refusal,
});

async function persist(shot) {
  if (shot.removed) return;
  if (!(await saveShot(record(shot))) && persisted) {
    persisted = false;
    showNotices();
  }
}

/** Memory first: the shot is on screen at once, then kept (best effort) and sent. */
function addShot(step, blob, capture) {
  const refusal = refusalOnPhone(step.kind, blob, capture.duration_ms);
  // A recorder that keeps giving empty clips (WebKit without an encoder) must not be a dead end: a file will do.
  const orFile =
    refusal === "refusedEmpty" ? button([icon("file"), t("useFile")], { class: "alert-action", "data-testid": "use-file" }, () => $("file").click()) : null;
  if (refusal) return alertOnScreen(t(refusal), undefined, orFile);
  clearAlerts();
  const type = blob.type.split(";")[0];
  const shot = {
    id: crypto.randomUUID(),
    stepId: step.id,
    kind: step.kind,
    blob: blob.type === type ? blob : new Blob([blob], { type }),
    capture: { ...capture, device_time: new Date().toISOString(), ...(geolocation ? { geolocation } : {}) },
    state: "preparing",
  };
  shots.push(shot);
  renderShots();
  shot.tile?.scrollIntoView({ block: "nearest", inline: "nearest" });
  void upload(shot);
}

function upload(shot) {
  if (!shot.task && (shot.state === "uploaded" || shot.state === "refused")) return Promise.resolve();
  shot.controller ??= new AbortController();
  shot.task ??= (async () => {
    try {
      shot.sha256 ??= await sha256Hex(shot.blob);
      shot.state = shot.fileId ? "uploading" : "declaring";
      drawShot(shot);
      // Kept while it is sent, not before: storage never holds the upload back.
      void persist(shot);
      await uploadShot(base, shot, {
        signal: shot.controller.signal,
        onWait: (seconds) => {
          shot.waiting = true;
          retryNotice = t("retrying", { s: seconds });
          drawShot(shot);
        },
        onProgress: (loaded) => {
          shot.waiting = false;
          if (!shots.some((candidate) => candidate.waiting)) retryNotice = "";
          shot.state = "uploading";
          shot.sent = loaded;
          drawShot(shot);
        },
        onDeclared: () => ((shot.state = "uploading"), persist(shot)),
        onPartStored: () => persist(shot),
      });
      shot.state = "uploaded";
      shot.sent = shot.blob.size;
      await persist(shot);
    } catch (error) {
      if (error instanceof Aborted || shot.removed) return;
      if (error instanceof HttpError && error.status === 410) return void linkGone(error);
      shot.state = "refused";
      shot.refusal = refusalOfCode(codeOf(error), shot.kind);
      if (!(error instanceof HttpError)) console.warn(error);
      await persist(shot);
    } finally {
      shot.waiting = false;
      if (!shots.some((candidate) => candidate.waiting)) retryNotice = "";
      renderShots();
    }
  })();
  return shot.task;
}

function removeShot(shot) {
  shot.removed = true;
  shot.controller?.abort();
  shots = shots.filter((candidate) => candidate !== shot);
  if (shot.url) URL.revokeObjectURL(shot.url);
  void deleteShot(shot.id);
  // Once its upload has stopped, the server forgets it too (what is left is dropped before completing anyway).
  void Promise.resolve(shot.task).then(() => shot.fileId && retrying(() => api(`${base}/files/${shot.fileId}`, { method: "DELETE" })).catch(() => undefined));
  clearAlerts();
  renderShots();
}

/** Retake: the shot goes, and the camera (or the file chooser) is ready for its replacement. */
function retake(shot) {
  removeShot(shot);
  const shutter = $("shutter");
  if (shutter && !shutter.hidden) shutter.focus();
  else $("file")?.click();
}

const STATE_ICONS = { uploaded: "check", refused: "alert", waiting: "wifiOff", preparing: "clock", declaring: "clock", uploading: "clock" };

/** Draws one shot's state on its thumbnail: sent ✓, sending with progress, waiting for the network, refused. */
function drawShot(shot) {
  updateOverall();
  const tile = shot.tile;
  if (!tile) return;
  const state = shot.waiting ? "waiting" : shot.state;
  const percent = Math.round((100 * (shot.state === "uploaded" ? shot.blob.size : (shot.sent ?? 0))) / Math.max(1, shot.blob.size));
  const label = {
    uploaded: t("stateSent"),
    refused: t("stateRefused"),
    waiting: t("stateWaiting"),
    uploading: `${t("stateSending")} ${percent} %`,
    declaring: t("stateSending"),
    preparing: t("statePreparing"),
  }[state];
  tile.dataset.state = state;
  tile
    .querySelector(".badge")
    .replaceChildren(icon(STATE_ICONS[state]), el("span", { class: state === "uploading" ? "" : "sr-only" }, state === "uploading" ? `${percent} %` : label));
  tile.querySelector(".bar").style.setProperty("--done", `${percent}%`);
  tile.querySelector(".badge").setAttribute("title", label);
}

function renderShots() {
  updateOverall();
  const list = $("shots");
  const step = session?.steps[stepIndex];
  if (!list || !step) return;
  const here = stepShots(step.id);
  list.replaceChildren(
    ...here.map((shot, index) => {
      shot.url ??= URL.createObjectURL(shot.blob);
      const name = `${t("shotNumber", { n: index + 1 })}`;
      const preview =
        shot.kind === "video"
          ? el("video", { src: shot.url, muted: true, playsinline: true, preload: "metadata", "aria-label": name })
          : el("img", { src: shot.url, alt: name });
      shot.tile = el(
        "li",
        { class: "shot" },
        preview,
        el("span", { class: "badge" }),
        el("span", { class: "bar" }),
        el(
          "span",
          { class: "shot-actions" },
          button(icon("retake"), { class: "icon-button", "data-testid": "retake", "aria-label": `${t("retake")} (${name})` }, () => retake(shot)),
          button(icon("trash"), { class: "icon-button", "data-testid": "delete", "aria-label": `${t("delete")} (${name})` }, () => removeShot(shot)),
        ),
      );
      drawShot(shot);
      return shot.tile;
    }),
  );
  list.hidden = here.length === 0;
  // Every refusal is explained at once, in words, with what to do (the tile offers Retake).
  const refused = shots.filter((shot) => shot.state === "refused");
  const key = refused.map((shot) => shot.id).join();
  const alerts = $("alerts");
  if (alerts && alerts.dataset.refused !== key) {
    alerts.dataset.refused = key;
    if (refused.length > 0)
      alerts.replaceChildren(
        ...refused.map((shot) => {
          const other = shot.stepId !== step.id ? `${session.steps.find((candidate) => candidate.id === shot.stepId)?.label}: ` : "";
          return el("p", { class: "alert", role: "alert", "data-testid": "error" }, icon("alert"), el("span", {}, `${other}${t(shot.refusal)}`));
        }),
      );
  }
  updateCounter(step);
}

function updateCounter(step) {
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
  const next = $("next");
  if (next) next.disabled = missing > 0;
  const shutter = $("shutter");
  if (shutter && !shutter.dataset.recording) shutter.disabled = !stream || taken >= step.max_count;
  const chooser = $("use-file");
  if (chooser) chooser.disabled = taken >= step.max_count;
}

function updateOverall() {
  const live = shots.filter((shot) => shot.state !== "refused");
  const total = live.reduce((sum, shot) => sum + shot.blob.size, 0);
  const sent = live.reduce((sum, shot) => sum + (shot.state === "uploaded" ? shot.blob.size : (shot.sent ?? 0)), 0);
  const done = live.filter((shot) => shot.state === "uploaded").length;
  overall.hidden = live.length === 0;
  overall.max = Math.max(1, total);
  overall.value = sent;
  showNotices();
  overallLabel.textContent = retryNotice || (live.length === 0 ? "" : done === live.length ? t("uploaded") : t("uploading", { done, total: live.length }));
  $("sealing-progress")?.replaceChildren(
    done === live.length ? icon("check") : el("span", { class: "spinner" }),
    el("span", {}, t("sealingSending", { done, total: live.length })),
  );
}

function showNotices() {
  const offline = !navigator.onLine;
  // "Keep this page open" only while something is still to send.
  const unsent = !persisted && shots.some((shot) => shot.state !== "uploaded" && shot.state !== "refused");
  $("notice").hidden = !offline && !unsent;
  $("notice").replaceChildren(icon(offline ? "wifiOff" : "alert"), el("span", {}, offline ? t("offline") : t("keepOpen")));
}

// ——— Screens ———

async function start() {
  if (session.ask_location && "geolocation" in navigator) geolocation = await askLocation();
  stepIndex = 0;
  await renderStep();
}

function drawStepsProgress() {
  $("steps-label").textContent = t("step", { i: stepIndex + 1, n: session.steps.length });
  $("steps-bar").replaceChildren(...session.steps.map((_, index) => el("span", { class: index < stepIndex ? "done" : index === stepIndex ? "current" : "" })));
}

async function renderStep() {
  const step = session.steps[stepIndex];
  const last = stepIndex === session.steps.length - 1;
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
      if (!stream) return;
      if (step.kind === "photo") {
        const { blob, width, height } = await still(video);
        return addShot(step, blob, { method: "camera", width, height });
      }
      if (stopRecording === null) {
        stopRecording = startRecording(stream);
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
    : button(t("next"), { class: "primary", id: "next", "data-testid": "next-step" }, () => ((stepIndex += 1), renderStep()));
  const back =
    stepIndex > 0 ? button([icon("back"), t("back")], { class: "quiet", "data-testid": "back" }, () => ((stepIndex -= 1), renderStep())) : el("span");
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
    if (session.steps[stepIndex] !== step || !video.isConnected) return closeCamera(opened);
    stream = opened;
    frame.classList.add("live");
    $("camera-status")?.remove();
    updateCounter(step);
  } catch (error) {
    if (video.isConnected) cameraUnavailable(frame, shutter, step);
    else if (error) console.warn(error);
  }
}

/** No camera (refused, absent, or no recorder for a video): choosing a file is the way, shown as such. */
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
  const incomplete = session.steps.findIndex((step) => usable(step.id).length < minimumFor(step));
  if (incomplete >= 0) return void alertOnScreen(t("incomplete"));
  if (shots.some((shot) => shot.state === "refused")) return void alertOnScreen(t("fixRefused"));
  return true;
}

/** Waits for every shot, then completes; never loops: a refusal goes back to the shots, with its reason. */
async function finish() {
  if (!canFinish()) return;
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
  await Promise.all(shots.map(upload));
  const refused = shots.find((shot) => shot.state === "refused");
  if (refused) {
    stepIndex = session.steps.findIndex((step) => step.id === refused.stepId);
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
    await Promise.all(shots.map((shot) => deleteShot(shot.id)));
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
  const shown = new Set(shots.map((shot) => shot.fileId));
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

async function restoreShots() {
  const onServer = new Map(session.files.map((file) => [file.file_id, file]));
  for (const kept of await shotsOf(token)) {
    const shot = { ...kept, kind: kept.kind ?? session.steps.find((step) => step.id === kept.stepId)?.kind ?? "photo" };
    if (!session.steps.some((step) => step.id === shot.stepId)) continue;
    // The server's word wins: a declaration it no longer holds is made again.
    if (shot.fileId && !onServer.has(shot.fileId)) Object.assign(shot, { fileId: undefined, upload: undefined, storedParts: undefined, state: "preparing" });
    if (onServer.get(shot.fileId)?.status === "uploaded") shot.state = "uploaded";
    shots.push(shot);
    if (shot.state !== "uploaded" && shot.state !== "refused") void upload(shot);
  }
  updateOverall();
}

async function boot() {
  onLeavingScreen(() => {
    closeCamera(stream);
    stream = null;
  });
  // The phone's language until the session says which one to speak (an offline notice may come first).
  speak(pickLanguage(navigator.language));
  watchConnection(() => showNotices());
  window.addEventListener("beforeunload", (event) => {
    if (!persisted && shots.some((shot) => shot.state !== "uploaded")) event.preventDefault();
  });
  try {
    session = await retrying(() => api(`${base}/session`));
  } catch (error) {
    speak(pickLanguage(error instanceof HttpError && error.body?.locale ? error.body.locale : navigator.language));
    return linkGone(error);
  }
  speak(pickLanguage(session.locale, session.default_locale));
  applyTheme(session.theme);
  $("brand").textContent = session.organization_name ?? "";
  if (session.organization_name) document.title = `${t("title")} · ${session.organization_name}`;
  $("top").hidden = !session.organization_name && !session.theme.logo_url;
  if (session.mode === "test") {
    $("test-banner").textContent = t("testMode");
    $("test-banner").hidden = false;
  }
  showNotices();
  await restoreShots();
  showWelcome(session, minimumFor, start);
}

void boot().catch((error) => alertOnScreen(t("error"), error));
