// @ts-check
/**
 * "Check a file": hashes a chosen or dropped file on this device (nothing is uploaded) and compares it with the
 * proof's hashes; the answer names the matching photo, or says plainly that none matches, with the file's SHA-256.
 */
const input = /** @type {HTMLInputElement | null} */ (document.getElementById("check-file"));
const result = document.getElementById("check-result");
const zone = input?.closest(".dropzone");

/** @param {string} className @param {string[]} lines the first in bold */
const show = (className, lines) => {
  if (!result) return;
  result.className = className;
  result.replaceChildren(
    ...lines.map((line, i) => {
      const paragraph = document.createElement("p");
      if (i === 0) paragraph.append(Object.assign(document.createElement("strong"), { textContent: line }));
      else paragraph.textContent = line;
      // A file's name or hash sets its own direction inside an Arabic page (docs/adr/0047).
      if (i > 0) paragraph.dir = "auto";
      if (i === lines.length - 1 && i > 0) paragraph.className = "checked-file";
      return paragraph;
    }),
  );
};

/** @param {File} file */
const check = async (file) => {
  if (!input) return;
  const data = input.dataset;
  show("checking", [data.checking ?? "", file.name]);
  const digest = await crypto.subtle.digest("SHA-256", await file.arrayBuffer());
  const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  /** @type {Record<string, string>} */
  const known = JSON.parse(data.files ?? "{}");
  const name = known[hex];
  if (name) show("match", [document.body.dataset.belongs ?? "", (data.is ?? "{file}").replace("{file}", name), file.name]);
  else
    show("no-match", [
      document.body.dataset.notBelongs ?? "",
      data.noMatchHelp ?? "",
      `\u2068${file.name}\u2069 · ${data.fingerprint ?? "SHA-256"}: \u2068${hex}\u2069`,
    ]);
};

input?.addEventListener("change", () => {
  const file = input.files?.[0];
  if (file) void check(file);
});
// A file dropped on the area is checked like a chosen one.
zone?.addEventListener("dragover", (event) => {
  event.preventDefault();
  zone.classList.add("dragging");
});
zone?.addEventListener("dragleave", () => zone.classList.remove("dragging"));
zone?.addEventListener("drop", (event) => {
  event.preventDefault();
  zone.classList.remove("dragging");
  const file = /** @type {DragEvent} */ (event).dataTransfer?.files[0];
  if (file) void check(file);
});

for (const button of document.querySelectorAll("[data-copy]")) {
  button.addEventListener("click", async () => {
    const source = document.getElementById(/** @type {HTMLElement} */ (button).dataset.copy ?? "");
    await navigator.clipboard?.writeText(source?.textContent ?? "");
    button.textContent = document.body.dataset.copied ?? "";
  });
}
/** Loads every thumbnail now: a long proof's later ones load only as the reader scrolls, and a printed record needs each. */
const loadEveryThumbnail = () => {
  for (const image of document.querySelectorAll('img[loading="lazy"]')) /** @type {HTMLImageElement} */ (image).loading = "eager";
};
// The print button waits for them (10 s at most), since the browser prints what it has drawn by then; the browser's
// own Print command cannot wait, beforeprint only starts them loading.
document.querySelector("[data-print]")?.addEventListener("click", async () => {
  loadEveryThumbnail();
  const loaded = Promise.all([...document.images].map((image) => image.decode().catch(() => undefined)));
  await Promise.race([loaded, new Promise((done) => setTimeout(done, 10_000))]);
  window.print();
});
addEventListener("beforeprint", loadEveryThumbnail);
