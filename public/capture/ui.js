// @ts-check
/** Building DOM without innerHTML (the page's CSP allows no inline anything) and the few icons it draws. */

/**
 * @param {string} tag
 * @param {Record<string, unknown>} [attributes] `onclick` is a listener; `true` sets an empty attribute, false and null none
 * @param {...(Node | string | null | undefined | false | (Node | string | null | undefined | false)[])} children
 * @returns {HTMLElement}
 */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "onclick") node.addEventListener("click", /** @type {EventListener} */ (value));
    else if (value !== false && value !== undefined && value !== null) node.setAttribute(name, value === true ? "" : String(value));
  }
  node.append(.../** @type {(Node | string)[]} */ (children.flat().filter((child) => child !== null && child !== undefined && child !== false)));
  return node;
}

/** @type {Record<string, string>} */
const PATHS = {
  check: "M5 12.5l4.5 4.5L19 7.5",
  alert: "M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18zM12 7.5v5.5M12 16.5v.5",
  retake: "M4 12a8 8 0 1 0 2.6-5.9M4 4v5h5",
  trash: "M5 7h14M10 7V5h4v2M7 7l1 12h8l1-12",
  shield: "M12 3l7 3v6c0 4.2-3 7.6-7 9-4-1.4-7-4.8-7-9V6z M8.5 12l2.5 2.5 4.5-5",
  clock: "M12 7v5l3 2M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18z",
  wifiOff: "M3 3l18 18M8.5 16.5a5 5 0 0 1 7 0M5 13a10 10 0 0 1 5-2.7M19 13a10 10 0 0 0-2.2-1.6M2 9.5a15 15 0 0 1 4.4-2.8M22 9.5A15 15 0 0 0 11 5.6",
  file: "M14 3H7a2 2 0 0 0-2 2v14a2 2 0 0 0 2 2h10a2 2 0 0 0 2-2V8zM14 3v5h5M12 18v-6M9 15l3-3 3 3",
  pin: "M12 21s-7-6.2-7-11.5a7 7 0 0 1 14 0C19 14.8 12 21 12 21zM12 12a2.5 2.5 0 1 0 0-5 2.5 2.5 0 0 0 0 5z",
  back: "M15 5l-7 7 7 7",
};

/** A 24 × 24 stroked icon, hidden from assistive technology (its button or text says what it means). */
/**
 * @param {string} name one of PATHS
 * @param {string} [className]
 */
export function icon(name, className = "icon") {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", className);
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
  path.setAttribute("d", PATHS[name] ?? "");
  svg.append(path);
  return svg;
}
