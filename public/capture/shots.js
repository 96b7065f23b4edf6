// @ts-check
/** The shots: taken or chosen, shown as tiles with their state, kept on the phone, sent, removed or retaken. */
import { percent, t } from "./i18n.js";
import { Aborted, api, codeOf, HttpError, retrying } from "./network.js";
import { sha256Hex, uploadShot } from "./upload.js";
import { saveShot, deleteShot, shotsOf } from "./store.js";
import { refusalOfCode, refusalOnPhone } from "./refusals.js";
import { el, icon } from "./ui.js";
import { $, alertOnScreen, button, clearAlerts } from "./screen.js";
import { linkGone } from "./screens.js";
import { base, loadedSession, state, stepShots, token } from "./state.js";
import { showNotices, updateCounter, updateOverall } from "./progress.js";

/** @typedef {import("./types.js").Shot} Shot */
/** @typedef {import("./types.js").Step} Step */
/** @typedef {import("./types.js").Capture} Capture */

/**
 * @param {Shot} shot
 * @returns {import("./types.js").KeptShot}
 */
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

/** @param {Shot} shot */
async function persist(shot) {
  if (shot.removed) return;
  if (!(await saveShot(record(shot))) && state.persisted) {
    state.persisted = false;
    showNotices();
  }
}

/**
 * Memory first: the shot is on screen at once, then kept (best effort) and sent.
 * @param {Step} step
 * @param {Blob} blob
 * @param {Capture} capture
 */
export function addShot(step, blob, capture) {
  const refusal = refusalOnPhone(step.kind, blob, capture.duration_ms);
  // A recorder that keeps giving empty clips (WebKit without an encoder) must not be a dead end: a file will do.
  const orFile =
    refusal === "refusedEmpty" ? button([icon("file"), t("useFile")], { class: "alert-action", "data-testid": "use-file" }, () => $("file").click()) : null;
  if (refusal) return alertOnScreen(t(refusal), undefined, orFile);
  clearAlerts();
  const type = blob.type.split(";")[0] ?? "";
  /** @type {Shot} */
  const shot = {
    id: crypto.randomUUID(),
    stepId: step.id,
    kind: step.kind,
    blob: blob.type === type ? blob : new Blob([blob], { type }),
    capture: { ...capture, device_time: new Date().toISOString(), ...(state.geolocation ? { geolocation: state.geolocation } : {}) },
    state: "preparing",
  };
  state.shots.push(shot);
  renderShots();
  shot.tile?.scrollIntoView({ block: "nearest", inline: "nearest" });
  void upload(shot);
}

/** @param {Shot} shot */
export function upload(shot) {
  if (!shot.task && (shot.state === "uploaded" || shot.state === "refused")) return Promise.resolve();
  const controller = (shot.controller ??= new AbortController());
  shot.task ??= (async () => {
    try {
      shot.sha256 ??= await sha256Hex(shot.blob);
      shot.state = shot.fileId ? "uploading" : "declaring";
      drawShot(shot);
      // Kept while it is sent, not before: storage never holds the upload back.
      void persist(shot);
      await uploadShot(base, shot, {
        signal: controller.signal,
        onWait: (seconds) => {
          shot.waiting = true;
          state.retryNotice = t("retrying", { s: seconds });
          drawShot(shot);
        },
        onProgress: (loaded) => {
          shot.waiting = false;
          if (!state.shots.some((candidate) => candidate.waiting)) state.retryNotice = "";
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
      if (!state.shots.some((candidate) => candidate.waiting)) state.retryNotice = "";
      renderShots();
    }
  })();
  return shot.task;
}

/** @param {Shot} shot */
function removeShot(shot) {
  shot.removed = true;
  shot.controller?.abort();
  state.shots = state.shots.filter((candidate) => candidate !== shot);
  if (shot.url) URL.revokeObjectURL(shot.url);
  void deleteShot(shot.id);
  // Once its upload has stopped, the server forgets it too (what is left is dropped before completing anyway).
  void Promise.resolve(shot.task).then(() => shot.fileId && retrying(() => api(`${base}/files/${shot.fileId}`, { method: "DELETE" })).catch(() => undefined));
  clearAlerts();
  renderShots();
}

/** How long a deleted shot can be brought back. */
const UNDO_MS = 6000;

/**
 * Delete, with Undo for a few seconds. The shot is removed at once, everywhere (a reload never brings it back);
 * Undo takes the same picture again as a new shot, sent again.
 * @param {Shot} shot
 */
function deleteWithUndo(shot) {
  const index = state.shots.indexOf(shot);
  removeShot(shot);
  const toast = $("toast");
  if (!toast) return;
  const timer = window.setTimeout(() => toast.replaceChildren(), UNDO_MS);
  toast.replaceChildren(
    el(
      "p",
      { class: "toast", role: "status", "data-testid": "deleted" },
      el("span", {}, t("deleted")),
      button(t("undo"), { "data-testid": "undo" }, () => {
        clearTimeout(timer);
        toast.replaceChildren();
        /** @type {Shot} */
        const restored = { id: crypto.randomUUID(), stepId: shot.stepId, kind: shot.kind, blob: shot.blob, capture: shot.capture, state: "preparing" };
        state.shots.splice(Math.max(0, index), 0, restored);
        renderShots();
        void upload(restored);
      }),
    ),
  );
}

/**
 * Retake: the shot goes, and the camera (or the file chooser) is ready for its replacement.
 * @param {Shot} shot
 */
function retake(shot) {
  removeShot(shot);
  const shutter = $("shutter");
  if (shutter && !shutter.hidden) shutter.focus();
  else $("file")?.click();
}

/** @type {Record<string, string>} */
const STATE_ICONS = { uploaded: "check", refused: "alert", waiting: "wifiOff", preparing: "clock", declaring: "clock", uploading: "clock" };

/**
 * Draws one shot's state on its thumbnail: sent ✓, sending with progress, waiting for the network, refused.
 * @param {Shot} shot
 */
function drawShot(shot) {
  updateOverall();
  const tile = shot.tile;
  if (!tile) return;
  const shown = shot.waiting ? "waiting" : shot.state;
  const done = Math.round((100 * (shot.state === "uploaded" ? shot.blob.size : (shot.sent ?? 0))) / Math.max(1, shot.blob.size));
  const label = {
    uploaded: t("stateSent"),
    refused: t("stateRefused"),
    waiting: t("stateWaiting"),
    uploading: `${t("stateSending")} ${percent(done)}`,
    declaring: t("stateSending"),
    preparing: t("statePreparing"),
  }[shown];
  tile.dataset.state = shown;
  const badge = /** @type {HTMLElement} */ (tile.querySelector(".badge"));
  badge.replaceChildren(
    icon(STATE_ICONS[shown] ?? "clock"),
    el("span", { class: shown === "uploading" ? "" : "sr-only" }, shown === "uploading" ? percent(done) : label),
  );
  /** @type {HTMLElement} */ (tile.querySelector(".bar")).style.setProperty("--done", `${done}%`);
  badge.setAttribute("title", label);
}

export function renderShots() {
  updateOverall();
  const list = $("shots");
  const session = state.session;
  const step = session?.steps[state.stepIndex];
  if (!list || !session || !step) return;
  const here = stepShots(step.id);
  list.replaceChildren(
    ...here.map((shot, index) => {
      const name = `${t("shotNumber", { n: index + 1 })}`;
      const url = shot.remote ? "" : (shot.url ??= URL.createObjectURL(shot.blob));
      const preview = shot.remote
        ? el("span", { class: "remote", role: "img", "aria-label": name }, icon(shot.kind === "video" ? "file" : "check", "icon big"))
        : shot.kind === "video"
          ? el("video", { src: url, muted: true, playsinline: true, preload: "metadata", "aria-label": name })
          : el("img", { src: url, alt: name });
      const tile = el(
        "li",
        { class: "shot" },
        preview,
        el("span", { class: "badge" }),
        el("span", { class: "bar" }),
        el(
          "span",
          { class: "shot-actions" },
          button(icon("retake"), { class: "icon-button", "data-testid": "retake", "aria-label": `${t("retake")} (${name})` }, () => retake(shot)),
          button(icon("trash"), { class: "icon-button", "data-testid": "delete", "aria-label": `${t("delete")} (${name})` }, () => deleteWithUndo(shot)),
        ),
      );
      shot.tile = tile;
      drawShot(shot);
      return tile;
    }),
  );
  list.hidden = here.length === 0;
  // Every refusal is explained at once, in words, with what to do (the tile offers Retake).
  const refused = state.shots.filter((shot) => shot.state === "refused");
  const key = refused.map((shot) => shot.id).join();
  const alerts = $("alerts");
  if (alerts && alerts.dataset.refused !== key) {
    alerts.dataset.refused = key;
    if (refused.length > 0)
      alerts.replaceChildren(
        ...refused.map((shot) => {
          const other = shot.stepId !== step.id ? `${session.steps.find((candidate) => candidate.id === shot.stepId)?.label}: ` : "";
          return el(
            "p",
            { class: "alert", role: "alert", "data-testid": "error" },
            icon("alert"),
            el("span", {}, `${other}${t(shot.refusal ?? "refusedOther")}`),
          );
        }),
      );
  }
  updateCounter(step);
}

/** The shots kept on the phone for this link, reconciled with what the server holds, and sent on. */
export async function restoreShots() {
  const session = loadedSession();
  const onServer = new Map(session.files.map((file) => [file.file_id, file]));
  for (const kept of await shotsOf(token)) {
    /** @type {Shot} */
    const shot = { ...kept, kind: kept.kind ?? session.steps.find((step) => step.id === kept.stepId)?.kind ?? "photo" };
    if (!session.steps.some((step) => step.id === shot.stepId)) continue;
    // The server's word wins: a declaration it no longer holds is made again.
    if (shot.fileId && !onServer.has(shot.fileId)) Object.assign(shot, { fileId: undefined, upload: undefined, storedParts: undefined, state: "preparing" });
    if (onServer.get(shot.fileId ?? "")?.status === "uploaded") shot.state = "uploaded";
    state.shots.push(shot);
    if (shot.state !== "uploaded" && shot.state !== "refused") void upload(shot);
  }
  // Shots the server holds that this phone could not keep (WebKit's private sessions refuse to store them):
  // sent already, they stay part of the capture after a reload, shown without their picture.
  const kept = new Set(state.shots.map((shot) => shot.fileId));
  for (const file of session.files) {
    const step = session.steps.find((candidate) => candidate.id === file.step_id);
    if (file.status !== "uploaded" || kept.has(file.file_id) || !step) continue;
    state.shots.push({
      id: file.file_id,
      stepId: file.step_id,
      kind: step.kind,
      blob: new Blob([], { type: file.content_type }),
      sha256: file.sha256,
      capture: { method: "camera" },
      fileId: file.file_id,
      state: "uploaded",
      remote: true,
    });
  }
  updateOverall();
}
