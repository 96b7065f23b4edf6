// @ts-check
/**
 * The capture page's data as JSDoc types, checked by `tsc -p public/capture` (`npm run typecheck`): the session
 * the Worker sends (src/capture-page/session-view.ts) and a shot as the page holds it. Types only: nothing here
 * runs, and the page never loads this file (its modules import it with `import("./types.js")` in comments).
 */

/** @typedef {"photo" | "video"} ShotKind */

/** @typedef {{ id: string, label: string, instruction: string, required: boolean, kind: ShotKind, min_count: number, max_count: number }} Step */

/** @typedef {{ file_id: string, step_id: string, size: number, sha256: string, content_type: string, status: "declared" | "uploaded" }} ServerFile */

/**
 * GET /c/{token}/session, the template's texts already in the session's language.
 * @typedef {object} Session
 * @property {string} session_id
 * @property {string} locale
 * @property {string} default_locale
 * @property {string | null} organization_name
 * @property {string | null} return_url where the person goes back to the organisation
 * @property {"test" | "live"} mode
 * @property {{ title: string, body: string | null }} welcome
 * @property {{ title: string, body: string | null }} completion
 * @property {Step[]} steps
 * @property {boolean} ask_location
 * @property {{ primary_color: string, logo_url: string | null }} theme
 * @property {Record<string, number> | null} before_shots
 * @property {{ step_id: string, url: string }[] | null} [before_thumbnails] an "after"'s before shots, small, in order
 * @property {string} expires_at
 * @property {string} server_time
 * @property {ServerFile[]} files
 */

/** @typedef {{ latitude: number, longitude: number, accuracy_m: number }} CaptureLocation */

/**
 * What the phone reports about a shot (named as reported by the service).
 * @typedef {{ method: "camera" | "file", width?: number, height?: number, duration_ms?: number, device_time?: string, geolocation?: CaptureLocation }} Capture
 */

/** @typedef {{ part_number: number, method: string, url: string, headers?: Record<string, string>, offset: number, length: number }} UploadPart */

/** Where and how a declared file's bytes go (POST /c/{token}/files). @typedef {{ parts: UploadPart[], complete?: { url: string } | null }} UploadPlan */

/** @typedef {"preparing" | "declaring" | "uploading" | "uploaded" | "refused"} ShotState */

/**
 * A shot as kept in IndexedDB (store.js) until the server confirms it. Records kept by an older page may
 * lack `kind`.
 * @typedef {object} KeptShot
 * @property {string} id
 * @property {string} token
 * @property {string} stepId
 * @property {ShotKind} kind
 * @property {Blob} blob
 * @property {string} [sha256]
 * @property {Capture} capture
 * @property {string} [fileId]
 * @property {UploadPlan} [upload]
 * @property {Record<string, string>} [storedParts] ETag of each stored part, by part number
 * @property {ShotState} state
 * @property {string} [refusal] the message key of why it cannot be used
 */

/**
 * A shot on the page: what is kept, and what lives only while the page is open.
 * @typedef {Omit<KeptShot, "token"> & {
 *   tile?: HTMLElement, url?: string, sent?: number, waiting?: boolean, removed?: boolean, remote?: boolean,
 *   controller?: AbortController, task?: Promise<void>
 * }} Shot
 */

export {};
