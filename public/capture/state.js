// @ts-check
/**
 * The page's state, in one typed object that every module reads and changes (there is one capture per page),
 * and what follows from it about shots and steps.
 */

/** @typedef {import("./types.js").Session} Session */
/** @typedef {import("./types.js").Shot} Shot */
/** @typedef {import("./types.js").Step} Step */

/** The capture link's token, the last segment of the page's path. */
export const token = location.pathname.split("/").filter(Boolean).pop() ?? "";
/** Where the page's own API calls go. */
export const base = `/c/${token}`;

/**
 * @typedef {object} CaptureState
 * @property {Session | null} session null until GET /session answered
 * @property {Shot[]} shots every shot of every step, in capture order
 * @property {import("./types.js").CaptureLocation | null} geolocation where the phone said it was, when asked and given
 * @property {number} stepIndex the step on screen
 * @property {MediaStream | null} stream the open camera, if any
 * @property {boolean} persisted false once the browser refused to keep a shot: the person is asked to keep the page open
 * @property {string} retryNotice what the progress line says while a shot waits for the network
 * @property {boolean} ending true from Finish on: Back and Forward no longer move between steps
 */

/** @type {CaptureState} */
export const state = { session: null, shots: [], geolocation: null, stepIndex: 0, stream: null, persisted: true, retryNotice: "", ending: false };

/** The session, once loaded: everything after boot runs with one. */
export function loadedSession() {
  if (state.session === null) throw new Error("the session is not loaded yet");
  return state.session;
}

/** @param {string} stepId */
export const stepShots = (stepId) => state.shots.filter((shot) => shot.stepId === stepId);
/** @param {string} stepId */
export const usable = (stepId) => stepShots(stepId).filter((shot) => shot.state !== "refused");
/** @param {Step} step */
export const minimumFor = (step) => Math.max(step.required ? step.min_count : 0, loadedSession().before_shots?.[step.id] ?? 0);
