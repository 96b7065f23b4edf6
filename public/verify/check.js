// @ts-check
/** "Check a file": hashes it on this device (nothing is uploaded) and compares with the proof's hashes. */
const input = /** @type {HTMLInputElement | null} */ (document.getElementById("check-file"));
const result = document.getElementById("check-result");
input?.addEventListener("change", async () => {
  const file = input.files?.[0];
  if (!file || !result) return;
  const digest = await crypto.subtle.digest("SHA-256", await file.arrayBuffer());
  const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  const known = (input.dataset.hashes ?? "").split(" ");
  result.textContent = known.includes(hex) ? (document.body.dataset.belongs ?? "") : (document.body.dataset.notBelongs ?? "");
  result.className = known.includes(hex) ? "match" : "no-match";
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
