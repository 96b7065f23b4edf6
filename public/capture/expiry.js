// @ts-check
/**
 * The link's expiry, in the person's sight: its time on every capture screen, a warning five minutes before
 * (the page urges finishing), and at the time itself the expired screen. The phone's clock may be wrong: the
 * server's clock at load time sets the offset.
 */
import { t, WESTERN_DIGITS } from "./i18n.js";
import { $ } from "./screen.js";
import { state } from "./state.js";

/** How long before expiry the page warns. */
export const WARN_BEFORE_MS = 5 * 60_000;

/** @type {{ at: number, warned: boolean }} the expiry on this phone's clock */
const expiry = { at: Number.POSITIVE_INFINITY, warned: false };

/** The expiry as a time of day, in the page's language (hours and minutes). */
export function expiryTime() {
  return Number.isFinite(expiry.at)
    ? new Intl.DateTimeFormat(document.documentElement.lang || undefined, { ...WESTERN_DIGITS, hour: "numeric", minute: "2-digit" }).format(expiry.at)
    : "";
}

/** True within the last five minutes. */
export const expiresSoon = () => expiry.at - Date.now() <= WARN_BEFORE_MS;

/**
 * Starts watching: `onWarning` once, five minutes before (at once when already that close), `onExpired` at
 * the time. The page's timers are checked every few seconds: a phone asleep does not fire them on time.
 * @param {import("./types.js").Session} session
 * @param {{ onWarning: () => void, onExpired: () => void }} handlers
 */
export function watchExpiry(session, { onWarning, onExpired }) {
  const offset = Date.parse(session.server_time) - Date.now();
  expiry.at = Date.parse(session.expires_at) - (Number.isFinite(offset) ? offset : 0);
  const check = () => {
    if (state.ending) return clearInterval(timer);
    if (Date.now() >= expiry.at) {
      clearInterval(timer);
      return onExpired();
    }
    if (!expiry.warned && expiresSoon()) {
      expiry.warned = true;
      onWarning();
    }
  };
  const timer = window.setInterval(check, 2000);
  check();
}

/** The expiry line of the capture screens (in the steps row), urgent in the last five minutes. */
export function drawExpiry() {
  const line = $("expiry");
  if (!line || !Number.isFinite(expiry.at)) return;
  line.textContent = t("validUntil", { time: expiryTime() });
  line.classList.toggle("urgent", expiresSoon());
}
