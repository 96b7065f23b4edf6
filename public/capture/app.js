// @ts-check
import { translator } from "./i18n.js";
import { api, HttpError, sha256Hex, uploadShot } from "./upload.js";
import { saveShot, deleteShot, shotsOf } from "./store.js";
import { closeCamera, openCamera, startRecording, still, trackSize } from "./camera.js";

const token = location.pathname.split("/").filter(Boolean).pop() ?? "";
const base = `/c/${token}`;
const main = /** @type {HTMLElement} */ (document.getElementById("main"));
const overall = /** @type {HTMLProgressElement} */ (document.getElementById("overall"));
const overallLabel = /** @type {HTMLElement} */ (document.getElementById("overall-label"));
let t = translator(navigator.language);

/** @type {any} */ let session;
/** @type {any[]} */ let shots = [];
let geolocation = null;
let stepIndex = 0;
let stream = null;

const el = (tag, attributes = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "onclick") node.addEventListener("click", value);
    else if (value !== false && value !== undefined) node.setAttribute(name, value === true ? "" : String(value));
  }
  node.append(...children.filter((child) => child !== null && child !== undefined));
  return node;
};

function show(...children) {
  closeCamera(stream);
  stream = null;
  main.replaceChildren(...children.filter((child) => child !== null && child !== undefined));
  main.focus();
}

function showError(message) {
  show(el("p", { class: "error", role: "alert", "data-testid": "error" }, message));
}

function applyTheme(theme) {
  const hex = theme.primary_color.replace("#", "");
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  document.documentElement.style.setProperty("--primary", theme.primary_color);
  document.documentElement.style.setProperty("--on-primary", luminance > 0.4 ? "#000" : "#fff");
  if (theme.logo_url) {
    const logo = /** @type {HTMLImageElement} */ (document.getElementById("logo"));
    logo.src = theme.logo_url;
    logo.hidden = false;
  }
}

const stepShots = (stepId) => shots.filter((shot) => shot.stepId === stepId);
const minimumFor = (step) => Math.max(step.required ? step.min_count : 0, session.before_shots?.[step.id] ?? 0);

function updateOverall() {
  const total = shots.reduce((sum, shot) => sum + shot.blob.size, 0);
  const sent = shots.reduce((sum, shot) => sum + (shot.state === "uploaded" ? shot.blob.size : shot.sent ?? 0), 0);
  overall.hidden = shots.length === 0;
  overall.max = Math.max(1, total);
  overall.value = sent;
  const done = shots.filter((shot) => shot.state === "uploaded").length;
  overallLabel.textContent = shots.length === 0 ? "" : done === shots.length ? t("uploaded") : t("uploading", { done, total: shots.length });
}

async function upload(shot) {
  if (shot.state === "uploaded" || shot.uploading) return;
  shot.uploading = true;
  try {
    await uploadShot(base, shot, {
      onProgress: (loaded) => {
        shot.sent = loaded;
        shot.progress && (shot.progress.value = loaded);
        updateOverall();
      },
      onRetry: (seconds) => (overallLabel.textContent = t("retrying", { s: seconds })),
      onDeclared: () => saveShot(record(shot)),
      onPartStored: () => saveShot(record(shot)),
    });
    shot.state = "uploaded";
    // Deleted or retaken while its upload was still under way: remove it from the server too.
    if (shot.removed) return void (await api(`${base}/files/${shot.fileId}`, { method: "DELETE" }).catch(() => undefined));
    await saveShot(record(shot));
  } catch (error) {
    shot.failed = true;
    if (error instanceof HttpError && error.status === 410) return boot();
  } finally {
    shot.uploading = false;
    updateOverall();
    renderShots();
  }
}

const record = (shot) => ({ id: shot.id, token, stepId: shot.stepId, blob: shot.blob, sha256: shot.sha256, capture: shot.capture, fileId: shot.fileId, upload: shot.upload, storedParts: shot.storedParts, state: shot.state });

async function addShot(step, blob, capture) {
  const shot = { id: crypto.randomUUID(), token, stepId: step.id, blob, capture: { ...capture, device_time: new Date().toISOString(), ...(geolocation ? { geolocation } : {}) }, state: "pending" };
  shot.sha256 = await sha256Hex(blob);
  await saveShot(record(shot));
  shots.push(shot);
  renderShots();
  updateOverall();
  void upload(shot);
}

async function removeShot(shot) {
  shot.removed = true;
  shots = shots.filter((candidate) => candidate !== shot);
  if (shot.url) URL.revokeObjectURL(shot.url);
  await deleteShot(shot.id);
  if (shot.fileId && !shot.uploading) await api(`${base}/files/${shot.fileId}`, { method: "DELETE" }).catch(() => undefined);
  renderShots();
  updateOverall();
}

/** Retake: the shot goes, and the camera is ready for its replacement. */
async function retake(shot) {
  await removeShot(shot);
  document.getElementById("shutter")?.focus();
}

function renderShots() {
  const list = document.getElementById("shots");
  const step = session?.steps[stepIndex];
  if (!list || !step) return;
  list.replaceChildren(
    ...stepShots(step.id).map((shot) => {
      shot.url ??= URL.createObjectURL(shot.blob);
      const url = shot.url;
      const preview = shot.blob.type.startsWith("video") ? el("video", { src: url, muted: true, "aria-label": step.label }) : el("img", { src: url, alt: step.label });
      shot.progress = el("progress", { max: shot.blob.size, value: shot.state === "uploaded" ? shot.blob.size : shot.sent ?? 0 });
      return el(
        "li",
        { class: "shot" },
        preview,
        shot.progress,
        el("button", { type: "button", "data-testid": "retake", onclick: () => retake(shot) }, t("retake")),
        el("button", { type: "button", "data-testid": "delete", onclick: () => removeShot(shot) }, t("delete")),
      );
    }),
  );
  const counter = document.getElementById("counter");
  if (counter) counter.textContent = t("shots", { n: stepShots(step.id).length, min: minimumFor(step), max: step.max_count });
  const next = /** @type {HTMLButtonElement | null} */ (document.getElementById("next"));
  if (next) next.disabled = stepShots(step.id).length < minimumFor(step);
  const shutter = /** @type {HTMLButtonElement | null} */ (document.getElementById("shutter"));
  if (shutter) shutter.disabled = stepShots(step.id).length >= step.max_count;
}

async function renderStep() {
  const step = session.steps[stepIndex];
  const last = stepIndex === session.steps.length - 1;
  const video = /** @type {HTMLVideoElement} */ (el("video", { class: "viewfinder", playsinline: true, muted: true, "aria-label": step.label }));
  const fileInput = /** @type {HTMLInputElement} */ (el("input", { type: "file", id: "file", class: "file-input", accept: step.kind === "video" ? "video/*" : "image/*", capture: "environment", multiple: step.kind === "photo" }));
  fileInput.addEventListener("change", async () => {
    for (const file of fileInput.files ?? []) await addShot(step, file, { method: "file" });
    fileInput.value = "";
  });
  let stopRecording = null;
  const shutter = el("button", { type: "button", class: "primary", id: "shutter", "data-testid": "shutter" }, step.kind === "video" ? t("record") : t("shutter"));
  shutter.addEventListener("click", async () => {
    if (!stream) return;
    if (step.kind === "photo") return addShot(step, await still(video), { method: "camera", ...trackSize(stream) });
    if (stopRecording === null) {
      stopRecording = startRecording(stream);
      shutter.textContent = t("stop");
      return;
    }
    const { blob, durationMs } = await stopRecording();
    stopRecording = null;
    shutter.textContent = t("record");
    await addShot(step, blob, { method: "camera", duration_ms: durationMs, ...trackSize(stream) });
  });
  show(
    el("p", { class: "muted" }, t("step", { i: stepIndex + 1, n: session.steps.length })),
    el("h1", {}, step.label),
    el("p", {}, step.instruction),
    session.before_shots?.[step.id] ? el("p", { class: "muted" }, t("beforeShots", { n: session.before_shots[step.id] })) : null,
    video,
    el("div", { class: "actions" }, shutter, fileInput, el("label", { for: "file", class: "button", "data-testid": "use-file", tabindex: "0" }, t("useFile"))),
    el("p", { id: "counter", class: "counter", "aria-live": "polite" }),
    el("ul", { id: "shots", class: "shots" }),
    el(
      "div",
      { class: "actions" },
      stepIndex > 0 ? el("button", { type: "button", onclick: () => ((stepIndex -= 1), renderStep()) }, t("back")) : null,
      last
        ? el("button", { type: "button", class: "primary", id: "next", "data-testid": "finish", onclick: finish }, t("finish"))
        : el("button", { type: "button", class: "primary", id: "next", "data-testid": "next-step", onclick: () => ((stepIndex += 1), renderStep()) }, t("next")),
    ),
  );
  renderShots();
  try {
    stream = await openCamera(video, step.kind === "video");
  } catch {
    video.replaceWith(el("p", { class: "error", role: "status" }, t("cameraDenied")));
  }
}

async function finish() {
  const incomplete = session.steps.filter((step) => stepShots(step.id).length < minimumFor(step));
  if (incomplete.length > 0) return void (overallLabel.textContent = t("incomplete"));
  show(el("p", { class: "status", role: "status" }, t("finishing")));
  await Promise.all(shots.map(upload));
  while (shots.some((shot) => shot.state !== "uploaded")) {
    await Promise.all(shots.filter((shot) => shot.state !== "uploaded").map((shot) => ((shot.failed = false), upload(shot))));
    if (shots.some((shot) => shot.state !== "uploaded")) await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  try {
    const result = await completeWithRetries();
    for (const shot of shots) await deleteShot(shot.id);
    showCompletion(result.redirect_url);
  } catch (error) {
    if (error instanceof HttpError && error.body?.code === "compare_to_already_used") return showError(t("alreadyUsed"));
    show(
      el("p", { class: "error", role: "alert", "data-testid": "error" }, t("error")),
      el("div", { class: "actions" }, el("button", { type: "button", class: "primary", "data-testid": "try-again", onclick: finish }, t("tryAgain"))),
    );
  }
}

/**
 * Completion is idempotent on the server, so a lost connection or a server hiccup is simply retried
 * (with back-off, once back online): the person never has to guess whether it went through.
 */
async function completeWithRetries() {
  for (let attempt = 0; ; attempt++) {
    try {
      await dropFilesNotShown();
      return await api(`${base}/complete`, { method: "POST", body: {} });
    } catch (error) {
      const transient = !(error instanceof HttpError) || error.status >= 500 || error.status === 429;
      if (!transient || attempt >= 5) throw error;
      if (!navigator.onLine) await new Promise((resolve) => window.addEventListener("online", resolve, { once: true }));
      await new Promise((resolve) => setTimeout(resolve, Math.min(30_000, 1000 * 2 ** attempt)));
    }
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
    if (error instanceof HttpError && error.body?.code === "capture_link_used") return;
    throw error;
  }
  for (const file of files) if (!shown.has(file.file_id)) await api(`${base}/files/${file.file_id}`, { method: "DELETE" });
}

function showCompletion(redirectUrl) {
  const countdown = el("p", { "data-testid": "redirect-countdown", "aria-live": "polite" });
  show(el("section", { "data-testid": "completion" }, el("h1", {}, session.completion.title), session.completion.body ? el("p", {}, session.completion.body) : null, redirectUrl ? countdown : null));
  if (!redirectUrl) return;
  let seconds = 4;
  const tick = () => {
    countdown.textContent = t("redirect", { s: seconds });
    if (seconds-- <= 0) location.assign(redirectUrl);
    else setTimeout(tick, 1000);
  };
  tick();
}

function askLocation() {
  return new Promise((resolve) => {
    const decline = () => resolve(null);
    const accept = () =>
      navigator.geolocation.getCurrentPosition(
        (position) => resolve({ latitude: position.coords.latitude, longitude: position.coords.longitude, accuracy_m: position.coords.accuracy }),
        decline,
        { enableHighAccuracy: true, timeout: 10_000 },
      );
    show(el("p", {}, t("locationAsk")), el("div", { class: "actions" }, el("button", { type: "button", class: "primary", onclick: accept }, t("locationYes")), el("button", { type: "button", onclick: decline }, t("locationNo"))));
  });
}

async function start() {
  if (session.ask_location && "geolocation" in navigator) geolocation = await askLocation();
  stepIndex = 0;
  await renderStep();
}

async function restoreShots() {
  const kept = await shotsOf(token);
  const onServer = new Map(session.files.map((file) => [file.file_id, file]));
  shots = kept.map((shot) => ({ ...shot, state: shot.fileId && onServer.get(shot.fileId)?.status === "uploaded" ? "uploaded" : shot.state === "uploaded" ? "pending" : shot.state }));
  for (const shot of shots) if (shot.state !== "uploaded") void upload(shot);
  updateOverall();
}

async function boot() {
  try {
    session = await api(`${base}/session`);
  } catch (error) {
    const code = error instanceof HttpError ? error.body?.code : null;
    t = translator(error instanceof HttpError && error.body?.locale ? error.body.locale : navigator.language);
    document.documentElement.lang = error instanceof HttpError && error.body?.locale ? error.body.locale : "en";
    return showError(code === "capture_link_expired" ? t("expired") : code === "capture_link_used" ? t("used") : code === "capture_link_not_found" ? t("notFound") : t("error"));
  }
  t = translator(session.locale);
  document.documentElement.lang = session.locale;
  applyTheme(session.theme);
  if (session.mode === "test") document.getElementById("brand")?.append(t("testMode"));
  await restoreShots();
  show(
    el("h1", {}, session.welcome.title),
    session.welcome.body ? el("p", {}, session.welcome.body) : null,
    el("div", { class: "actions" }, el("button", { type: "button", class: "primary", "data-testid": "start", onclick: start }, t("start"))),
  );
}

void boot();
