// @ts-check
/** The capture page's entry: loads the session, speaks its language, wears its theme, restores kept shots, welcomes. */
import { pickLanguage, speak, t } from "./i18n.js";
import { api, HttpError, retrying, watchConnection } from "./network.js";
import { closeCamera } from "./camera.js";
import { $, alertOnScreen, onLeavingScreen } from "./screen.js";
import { linkGone, showWelcome } from "./screens.js";
import { base, minimumFor, state } from "./state.js";
import { showNotices } from "./progress.js";
import { restoreShots } from "./shots.js";
import { followHistory, resumeStep, start } from "./steps.js";
import { watchExpiry } from "./expiry.js";

/** @param {import("./types.js").Session["theme"]} theme */
function applyTheme(theme) {
  const hex = theme.primary_color.replace("#", "");
  const [r = 0, g = 0, b = 0] = [0, 2, 4]
    .map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
    .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  const luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  document.documentElement.style.setProperty("--primary", theme.primary_color);
  document.documentElement.style.setProperty("--on-primary", luminance > 0.4 ? "#000" : "#fff");
  if (theme.logo_url) {
    const logo = /** @type {HTMLImageElement} */ ($("logo"));
    logo.src = theme.logo_url;
    logo.hidden = false;
  }
}

async function boot() {
  onLeavingScreen(() => {
    closeCamera(state.stream);
    state.stream = null;
  });
  // The phone's language until the session says which one to speak (an offline notice may come first).
  speak(pickLanguage(navigator.language));
  watchConnection(() => showNotices());
  window.addEventListener("beforeunload", (event) => {
    if (!state.persisted && state.shots.some((shot) => shot.state !== "uploaded")) event.preventDefault();
  });
  /** @type {import("./types.js").Session} */
  let session;
  try {
    session = await retrying(() => api(`${base}/session`));
  } catch (error) {
    speak(pickLanguage(error instanceof HttpError && error.body?.locale ? error.body.locale : navigator.language));
    const organization = error instanceof HttpError ? error.body?.organization_name : null;
    if (typeof organization === "string") {
      $("brand").textContent = organization;
      $("top").hidden = false;
    }
    return linkGone(error);
  }
  state.session = session;
  speak(pickLanguage(session.locale, session.default_locale));
  applyTheme(session.theme);
  $("brand").textContent = session.organization_name ?? "";
  if (session.organization_name) document.title = `${t("title")} · ${session.organization_name}`;
  $("top").hidden = !session.organization_name && !session.theme.logo_url;
  if (session.mode === "test") {
    $("test-banner").textContent = t("testMode");
    $("test-banner").hidden = false;
  }
  await restoreShots();
  watchExpiry(session, {
    onWarning: () => showNotices(),
    onExpired: () => {
      closeCamera(state.stream);
      void linkGone(null);
    },
  });
  if (state.ending) return;
  showNotices();
  const welcome = () => showWelcome(session, minimumFor, start, resumeStep() !== null);
  followHistory(welcome);
  welcome();
}

void boot().catch((error) => alertOnScreen(t("error"), error));
