import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { useStackAndChromium } from "./support/stack-and-chromium.ts";
import { accessibilityViolations, smallTouchTargets } from "./support/accessibility.ts";
import { captureOverHttp, waitForProof } from "./support/capture.ts";
import { PAGE_MESSAGES } from "../../src/verification/page/messages.ts";
import { opensslFingerprint } from "../../shared/trust-anchors.ts";
import { scene } from "../../sealer/test/scenes.ts";
import { waitFor, type EngineName, type Launched, type PhonePage } from "./support/engines/engine.ts";
import { launch as launchChromium } from "./support/engines/chromium.ts";
import { launch as launchFirefox } from "./support/engines/firefox.ts";
import { launch as launchWebkit } from "./support/engines/webkit.ts";

const RESULTS = join(import.meta.dirname, "../../test-results");
const PHOTOS = 10;

const e2e = useStackAndChromium();
let proof: any;
/** Its public JSON: the thumbnails' addresses and the roots' fingerprints. */
let publicProof: any;
beforeAll(async () => {
  mkdirSync(RESULTS, { recursive: true });
  const shots = Array.from({ length: PHOTOS }, () => ({ file: "photo.jpg", type: "image/jpeg" }));
  const { completed } = await captureOverHttp(e2e.stack, e2e.stack.testKey, { external_reference: `page-${Date.now()}`, party: "recipient" }, shots);
  proof = await waitForProof(e2e.stack, e2e.stack.testKey, completed.body.proof_id, (p) => p.status !== "pending", 60_000);
  publicProof = await (await fetch(`${e2e.stack.baseUrl}/v1/public/proofs/${proof.id}`)).json();
}, 120_000);

describe("the verification page as a reader sees it (issue 13)", () => {
  it("reads on a phone in French and German: verdict, certified time in the reader's zone beside UTC, checks as sentences, no sideways scroll", async ({
    skip,
  }) => {
    if (!e2e.browser) return skip();
    expect(proof.status).toBe("sealed");
    for (const [lang, locale] of [
      ["fr", "fr-FR"],
      ["de", "de-DE"],
    ] as const) {
      for (const width of [360, 390]) {
        const context = await e2e.browser.newContext({ viewport: { width, height: 800 }, locale, timezoneId: "Europe/Paris" });
        const page = await context.newPage();
        await page.goto(proof.verification_url);
        expect(await page.getByTestId("verdict").textContent()).toBe(PAGE_MESSAGES[lang].verdict_verified_test);
        // 1 h ahead of UTC in Paris in November, named in the page's language.
        await expect
          .poll(() => page.getByTestId("certified-time").getByTestId("local-time").textContent())
          .toMatch(
            lang === "fr"
              ? /^\d{1,2} \S+ \d{4} à \d\d:\d\d:\d\d \(heure normale d’Europe centrale\)$/
              : /^\d{1,2}\. \S+ \d{4} um \d\d:\d\d:\d\d \(Mitteleuropäische Normalzeit\)$/,
          );
        expect(await page.getByTestId("certified-time").textContent()).toContain("UTC");
        const checks = await page.locator('[data-testid="checks"] li').allTextContents();
        expect(checks.length).toBeGreaterThan(3);
        for (const check of checks) expect(check).not.toMatch(/[a-z]+_[a-z]+/);
        // Words never break mid-word: no element outside code may break anywhere or hyphenate automatically.
        const breaking = await page.evaluate(() =>
          [...document.querySelectorAll("body *:not(code):not(code *)")]
            .filter((element) => {
              const style = getComputedStyle(element);
              return style.wordBreak === "break-all" || style.overflowWrap === "anywhere" || style.hyphens === "auto";
            })
            .map((element) => element.tagName),
        );
        expect(breaking).toEqual([]);
        // Opened as a reader would (a file's capture facts, the technical details with the roots' long fingerprints), still nothing sideways.
        await page.locator(".file-facts summary").first().click();
        await page.locator("details.technical summary").click();
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect(overflow, `${lang} at ${width} px`).toBeLessThanOrEqual(0);
        // The screenshots show the thumbnails as a reader scrolling sees them (they load lazily).
        for (const image of await page.locator("img").all()) await image.scrollIntoViewIfNeeded();
        await page.waitForFunction(() => [...document.images].every((image) => image.complete && image.naturalWidth > 0));
        await page.screenshot({ path: join(RESULTS, `verification-page-${lang}-${width}.png`), fullPage: true });
        await context.close();
      }
    }
  });

  it(`transfers under 1.5 MB for a ${PHOTOS}-photo proof, each photo shown by the thumbnail made at sealing (under 100 KB), no full file until one is opened`, async ({
    skip,
  }) => {
    if (!e2e.browser) return skip();
    const context = await e2e.browser.newContext({ viewport: { width: 390, height: 844 }, locale: "fr-FR" });
    const page = await context.newPage();
    const finished: { url: string; body: Promise<number>; total: Promise<number>; type: Promise<string | undefined> }[] = [];
    page.on("requestfinished", (request) => {
      const sizes = request.sizes();
      finished.push({
        url: request.url(),
        body: sizes.then((s) => s.responseBodySize),
        total: sizes.then((s) => s.responseBodySize + s.responseHeadersSize),
        type: request.response().then((response) => response?.headers()["content-type"]),
      });
    });
    await page.goto(proof.verification_url, { waitUntil: "networkidle" });
    // Thumbnails load lazily: bring each into view, as a reader scrolling the whole page does.
    for (const image of await page.locator("img").all()) await image.scrollIntoViewIfNeeded();
    await page.waitForLoadState("networkidle");
    const total = (await Promise.all(finished.map((request) => request.total))).reduce((sum, size) => sum + size, 0);
    expect(total).toBeLessThan(1.5 * 1024 * 1024);
    const path = (url: string) => new URL(url).pathname;
    expect(finished.filter((request) => /\/files\/[^/]+$/.test(path(request.url))).map((request) => request.url)).toEqual([]);
    const thumbnails = finished.filter((request) => path(request.url).endsWith("/thumbnail"));
    expect(thumbnails.map((request) => request.url).sort()).toEqual(publicProof.files.map((file: { thumbnail_url: string }) => file.thumbnail_url).sort());
    for (const thumbnail of thumbnails) {
      expect(await thumbnail.body, thumbnail.url).toBeLessThan(100 * 1024);
      expect(await thumbnail.type).toBe("image/webp");
    }
    // Each picture drawn, from the thumbnail, at most 480 px: not the full file scaled down by the browser.
    const drawn = await page
      .locator("img")
      .evaluateAll((images) => images.map((image) => ({ src: (image as HTMLImageElement).currentSrc, width: (image as HTMLImageElement).naturalWidth })));
    expect(drawn).toHaveLength(PHOTOS);
    for (const image of drawn) {
      expect(image.src).toMatch(/\/thumbnail$/);
      expect(image.width).toBeGreaterThan(0);
      expect(image.width).toBeLessThanOrEqual(480);
    }
    expect(await page.locator(".open-file").count()).toBe(PHOTOS);
    await context.close();
  });

  it("prints a long proof with every thumbnail: the print button waits for those not yet scrolled into view", async ({ skip }) => {
    if (!e2e.browser) return skip();
    // More photos than load with the page (12): the later ones are lazy, far below the first screen.
    const shots = Array.from({ length: 14 }, () => ({ file: "photo.jpg", type: "image/jpeg" }));
    const { completed } = await captureOverHttp(e2e.stack, e2e.stack.testKey, { external_reference: `long-${Date.now()}`, party: "recipient" }, shots);
    const long = await waitForProof(e2e.stack, e2e.stack.testKey, completed.body.proof_id, (p) => p.status !== "pending", 60_000);
    const context = await e2e.browser.newContext({ viewport: { width: 390, height: 844 }, locale: "fr-FR" });
    const page = await context.newPage();
    await page.goto(long.verification_url);
    expect(await page.locator('img[loading="lazy"]').count()).toBeGreaterThan(0);
    // What the browser would print: the thumbnails drawn when print() is called.
    await page.evaluate(() => {
      window.print = () => {
        (window as unknown as { drawnWhenPrinted: boolean[] }).drawnWhenPrinted = [...document.images].map((image) => image.complete && image.naturalWidth > 0);
      };
    });
    await page.getByRole("button", { name: PAGE_MESSAGES.fr.print }).click();
    const drawn = await page
      .waitForFunction(() => (window as unknown as { drawnWhenPrinted?: boolean[] }).drawnWhenPrinted)
      .then((handle) => handle.jsonValue());
    expect(drawn).toEqual(Array.from({ length: 14 }, () => true));
    await context.close();
  }, 90_000);

  it("prints to a clean A4 PDF holding the verdict, the reference, every hash, both roots' fingerprints, every thumbnail and the page's address as a QR code", async ({
    skip,
  }) => {
    if (!e2e.browser) return skip();
    if (!existsSync("/usr/bin/pdftotext")) {
      console.warn("poppler-utils not installed: the printed page is not checked. Run `apt-get install poppler-utils`.");
      return skip();
    }
    const context = await e2e.browser.newContext({ locale: "fr-FR" });
    const page = await context.newPage();
    await page.goto(proof.verification_url);
    const pdf = join(RESULTS, "verification-page-fr.pdf");
    writeFileSync(pdf, await page.pdf({ format: "A4", printBackground: true }));
    const text = execFileSync("pdftotext", ["-layout", pdf, "-"]).toString().replace(/\s+/g, " ");
    expect(text).toContain(PAGE_MESSAGES.fr.verdict_verified_test!.slice(0, 40));
    expect(text).toContain(proof.external_reference);
    for (const file of proof.files) {
      // A hash may wrap inside its cell: compare without spaces.
      expect(text.replace(/ /g, "")).toContain(file.sha256);
      expect(text.replace(/ /g, "")).toContain(file.signed_sha256);
    }
    expect(text).not.toContain(PAGE_MESSAGES.fr.checkTitle);
    // Both roots' fingerprints, as openssl prints them, and every photo's thumbnail.
    for (const root of [publicProof.trust_anchors.timestamp_authority_root_sha256, publicProof.trust_anchors.c2pa_root_sha256]) {
      expect(text.replace(/ /g, "")).toContain(opensslFingerprint(root));
    }
    // Each tile is named as its hashes are in the annex, so that a clerk can tell whose hashes are whose.
    expect(text).toContain(`${PAGE_MESSAGES.fr.kind_photo} ${PHOTOS} JPEG · `);
    expect(text).toContain(`${PAGE_MESSAGES.fr.kind_photo} ${PHOTOS} · Photos`);
    // The technical details are the record's annex: they start a page, never leaving their heading alone at the foot of one.
    const pages = Number(/Pages:\s+(\d+)/.exec(execFileSync("pdfinfo", [pdf]).toString())![1]);
    const pageTexts = Array.from({ length: pages }, (_, i) =>
      execFileSync("pdftotext", ["-f", String(i + 1), "-l", String(i + 1), pdf, "-"])
        .toString()
        .replace(/\s+/g, " ")
        .trim(),
    );
    const annex = pageTexts.find((pageText) => pageText.includes(PAGE_MESSAGES.fr.technical!));
    expect(annex?.startsWith(PAGE_MESSAGES.fr.technical!), annex?.slice(0, 200)).toBe(true);
    expect(annex).toContain(PAGE_MESSAGES.fr.proofId);
    const images = execFileSync("pdfimages", ["-list", pdf]).toString().trim().split("\n").slice(2);
    expect(images.length).toBeGreaterThanOrEqual(PHOTOS);
    execFileSync("pdftoppm", ["-png", "-r", "110", "-f", "1", "-l", "1", "-singlefile", pdf, join(RESULTS, "verification-page-fr-print")]);
    if (existsSync("/usr/bin/zbarimg")) {
      const decoded = execFileSync("zbarimg", ["-q", "--raw", join(RESULTS, "verification-page-fr-print.png")])
        .toString()
        .trim();
      expect(decoded).toBe(proof.verification_url);
    }
    await context.close();
  });
});

/** What a reader sees without scrolling on a small phone (issue 25): 360 × 740 CSS px. */
const FIRST_SCREEN = { width: 360, height: 740 };
const engines: Record<EngineName, () => Promise<Launched>> = { chromium: launchChromium, firefox: launchFirefox, webkit: launchWebkit };

/** A camera shot of a scene of its own (seeds close together draw alike), `clockOffsetMs` away from the service's clock. */
const cameraShot = async (clockOffsetMs = 0) => ({
  file: "scene.jpg",
  type: "image/jpeg",
  bytes: Buffer.from(await scene(Math.floor(Math.random() * 2 ** 20))),
  capture: { method: "camera", device_time: new Date(Date.now() + clockOffsetMs).toISOString(), width: 1200, height: 900 },
});

/** Boxes of the page's landmarks, in CSS px from the top of the first screen. */
function landmarks() {
  const box = (selector: string) => {
    const element = document.querySelector(selector);
    if (!element) return null;
    const { top, bottom, left, right } = element.getBoundingClientRect();
    return { top: Math.round(top), bottom: Math.round(bottom), left: Math.round(left), right: Math.round(right) };
  };
  return {
    badge: box('[data-testid="verdict-badge"]'),
    tone: document.querySelector<HTMLElement>('[data-testid="verdict-badge"]')?.dataset.tone,
    summary: box('[data-testid="signal-summary"]'),
    photo: box(".tile img"),
    overflow: document.documentElement.scrollWidth - window.innerWidth,
  };
}

/** Each step's rows of a pair: the tops of the two cells, and the names the tiles give themselves. */
function pairRows() {
  return [...document.querySelectorAll('.step [data-testid^="pair-"]')].flatMap((grid) => {
    const cells = [...grid.children] as HTMLElement[];
    return Array.from({ length: cells.length / 2 }, (_, i) => {
      const [before, after] = [cells[2 * i]!, cells[2 * i + 1]!];
      const name = (cell: HTMLElement) => cell.querySelector(".tile-name")?.textContent ?? null;
      return {
        step: grid.getAttribute("data-testid"),
        tops: [Math.round(before.getBoundingClientRect().top), Math.round(after.getBoundingClientRect().top)],
        names: [before.dataset.side, name(before), after.dataset.side, name(after)],
      };
    });
  });
}

/** The file check's answer as a reader meets it: its state, words, colour and pictogram. */
function checkAnswer() {
  const result = document.querySelector<HTMLElement>('[data-testid="check-result"]')!;
  result.scrollIntoView({ block: "center" });
  return {
    state: result.className,
    text: result.textContent,
    background: getComputedStyle(result).backgroundColor,
    border: getComputedStyle(result).borderColor,
    pictogram: getComputedStyle(result, "::before").content,
  };
}

describe("the page tells the PDF report's story, in three engines at 360 × 740 (issue 25)", () => {
  const sealed = {} as { onePhoto: { verification_url: string }; after: { verification_url: string }; photo: string; otherFile: string };
  beforeAll(async () => {
    // A live proof of one photo nobody sealed before: nothing to weigh.
    const alone = await cameraShot();
    const one = await captureOverHttp(e2e.stack, e2e.stack.liveKey, { external_reference: `one-${Date.now()}`, party: "recipient" }, [alone]);
    sealed.onePhoto = await waitForProof(e2e.stack, e2e.stack.liveKey, one.completed.body.proof_id, (p) => p.status !== "pending", 60_000);
    // A same-day pair whose after reuses a before photo's bytes, holds a file from the gallery and one shot on a clock 2 h off.
    const reference = `pair-${Date.now()}`;
    const beforeShots = await Promise.all([1, 2, 3].map(() => cameraShot()));
    const before = await captureOverHttp(e2e.stack, e2e.stack.testKey, { external_reference: reference, party: "provider" }, beforeShots);
    const beforeProof = await waitForProof(e2e.stack, e2e.stack.testKey, before.completed.body.proof_id, (p) => p.status !== "pending", 60_000);
    const fromGallery = { ...(await cameraShot()), capture: { method: "file", device_time: new Date().toISOString(), width: 1200, height: 900 } };
    const after = await captureOverHttp(e2e.stack, e2e.stack.testKey, { external_reference: reference, party: "provider", compare_to: beforeProof.id }, [
      beforeShots[0]!,
      fromGallery,
      await cameraShot(2 * 3600_000),
    ]);
    sealed.after = await waitForProof(e2e.stack, e2e.stack.testKey, after.completed.body.proof_id, (p) => p.status !== "pending", 60_000);
    const dir = mkdtempSync(join(tmpdir(), "check-a-file-"));
    sealed.photo = join(dir, "photo.jpg");
    writeFileSync(sealed.photo, alone.bytes);
    sealed.otherFile = join(dir, "other.jpg");
    writeFileSync(sealed.otherFile, beforeShots[1]!.bytes);
  }, 240_000);

  it("stays clean under axe with its new parts in sight: the pair's warnings, the languages open, a file checked", async ({ skip }) => {
    if (!e2e.browser) return skip();
    const context = await e2e.browser.newContext({ viewport: FIRST_SCREEN, bypassCSP: true, locale: "fr-FR" });
    const page = await context.newPage();
    await page.goto(`${sealed.after.verification_url}?lang=fr`);
    await page.locator(".languages summary").click();
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(await smallTouchTargets(page)).toEqual([]);
    await page.goto(`${sealed.onePhoto.verification_url}?lang=fr`);
    // The file check is reached by keyboard: its input takes focus and the area around it shows it.
    await page.locator("#check-file").focus();
    expect(await page.locator(".dropzone").evaluate((zone) => getComputedStyle(zone).outlineStyle)).toBe("solid");
    for (const [file, state] of [
      [sealed.photo, "match"],
      [sealed.otherFile, "no-match"],
    ]) {
      await page.locator("#check-file").setInputFiles(file!);
      await expect.poll(() => page.getByTestId("check-result").getAttribute("class")).toBe(state);
      expect(await accessibilityViolations(page)).toEqual([]);
    }
    await context.close();
  });

  for (const [name, launch] of Object.entries(engines) as [EngineName, () => Promise<Launched>][]) {
    it(`${name}: badge and photo in the first screen, the warnings above the fold, the pair aligned and numbered, match and no match unmistakable`, async ({
      skip,
    }) => {
      const engine = await launch();
      if ("skipped" in engine) {
        console.warn(`${name} skipped: ${engine.skipped}`);
        return skip();
      }
      const shot = (page: PhonePage, what: string) => page.screenshot(join(RESULTS, `verification-page-${name}-${what}.png`));
      try {
        const page = await engine.newPage({ width: FIRST_SCREEN.width });
        const loaded = () => [...document.images].every((image) => image.complete && image.naturalWidth > 0);

        // One photo, nothing to weigh: a clean badge and the whole photo without scrolling.
        await page.open(`${sealed.onePhoto.verification_url}?lang=en`);
        await waitFor(page, "the photo", loaded);
        const one = await page.evaluate(landmarks);
        expect(one.tone).toBe("valid");
        expect(one.summary).toBeNull();
        expect(one.badge!.top).toBeGreaterThanOrEqual(0);
        expect(one.photo!.bottom, "the photo's foot").toBeLessThanOrEqual(FIRST_SCREEN.height);
        expect(one.overflow).toBeLessThanOrEqual(0);
        await shot(page, "one-photo");

        // Check a file: the sealed photo matches and names itself; another photo does not, and looks otherwise.
        await page.setFiles("#check-file", sealed.photo);
        await waitFor(page, "the match", () => document.querySelector('[data-testid="check-result"]')?.className === "match");
        const match = await page.evaluate(checkAnswer);
        expect(match.text).toContain(PAGE_MESSAGES.en.belongs);
        expect(match.text).toContain(`${PAGE_MESSAGES.en.kind_photo} 1`);
        await shot(page, "check-match");
        await page.setFiles("#check-file", sealed.otherFile);
        await waitFor(page, "no match", () => document.querySelector('[data-testid="check-result"]')?.className === "no-match");
        const noMatch = await page.evaluate(checkAnswer);
        expect(noMatch.text).toContain(PAGE_MESSAGES.en.notBelongs);
        expect(noMatch.text).not.toContain(PAGE_MESSAGES.en.belongs);
        for (const property of ["background", "border", "pictogram"] as const) expect(noMatch[property], property).not.toBe(match[property]);
        await shot(page, "check-no-match");

        // The pair: what to weigh above the fold, under a badge that does not read as clean.
        await page.open(`${sealed.after.verification_url}?lang=en`);
        const pair = await page.evaluate(landmarks);
        expect(pair.tone).toBe("test");
        expect(pair.badge!.bottom).toBeLessThanOrEqual(FIRST_SCREEN.height);
        expect(pair.summary!.top, "the warning summary's top").toBeLessThan(FIRST_SCREEN.height - 100);
        expect(pair.overflow).toBeLessThanOrEqual(0);
        const codes = await page.evaluate(() =>
          [...document.querySelectorAll('[data-testid="signal-summary"] li')].map((item) => item.getAttribute("data-code")),
        );
        expect(codes).toEqual(expect.arrayContaining(["test_mode", "sealed_before", "from_gallery", "device_time_far", "reported_by_device"]));
        const reused = await page.evaluate(() => document.querySelector('[data-testid="signal-summary"] [data-code="sealed_before"]')?.textContent);
        expect(reused).toContain(
          `${PAGE_MESSAGES.en.after} · ${PAGE_MESSAGES.en.kind_photo} 1 (same bytes as ${PAGE_MESSAGES.en.before} · ${PAGE_MESSAGES.en.kind_photo} 1)`,
        );
        await shot(page, "pair-top");
        // Each column headed by its side with its own date and time; the rows level and numbered on both sides.
        const heads = await page.evaluate(() => ["before", "after"].map((side) => document.querySelector(`[data-testid="side-${side}"]`)?.textContent ?? ""));
        for (const head of heads) expect(head).toMatch(/\d{4}.*\d{1,2}:\d{2}:\d{2}/);
        expect(heads[0]).not.toBe(heads[1]);
        const rows = await page.evaluate(pairRows);
        expect(rows.map((row) => row.names)).toEqual(
          [1, 2, 3].map((n) => ["before", `${PAGE_MESSAGES.en.kind_photo} ${n}`, "after", `${PAGE_MESSAGES.en.kind_photo} ${n}`]),
        );
        for (const row of rows) expect(Math.abs(row.tops[0]! - row.tops[1]!), JSON.stringify(row)).toBeLessThanOrEqual(1);
        await page.evaluate(() => document.querySelector('[data-testid^="pair-"]')!.scrollIntoView());
        await waitFor(page, "the pair's photos", loaded);
        await shot(page, "pair-rows");

        // A test proof never looks like a live one.
        await page.open(`${proof.verification_url}?lang=en`);
        const test = await page.evaluate(landmarks);
        expect(test.tone).toBe("test");
        expect(test.badge!.bottom).toBeLessThanOrEqual(FIRST_SCREEN.height);
        await shot(page, "test-proof");
        await page.close();
      } finally {
        await engine.close();
      }
    }, 180_000);
  }
});
