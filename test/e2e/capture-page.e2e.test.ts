import { beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { request } from "./support/http.ts";
import { useStackAndChromium } from "./support/stack-and-chromium.ts";
import { waitForProof } from "./support/capture.ts";
import { allUploaded, captureSession, phone, viewfinderReady } from "./support/phone.ts";
import { readC2pa } from "../../sealer/src/c2pa/c2pa.ts";

const screenshots = resolve(import.meta.dirname, "../../test-results");

const e2e = useStackAndChromium();
beforeAll(async () => {
  mkdirSync(screenshots, { recursive: true });
});

const texts = {
  en: { start: "Start", finish: "Finish and send", welcome: "Take the photos" },
  fr: { start: "Commencer", finish: "Terminer et envoyer", welcome: "Prenez les photos" },
};

describe("the capture page in a phone-sized headless Chromium", () => {
  for (const locale of ["en", "fr"] as const) {
    it(`captures from the (fake) camera, uploads, completes and lands on the return URL (${locale})`, async ({ skip }) => {
      if (!e2e.browser) return skip();
      await request(`${e2e.stack.baseUrl}/v1/settings`, { method: "PATCH", token: e2e.stack.testKey, body: { allowed_return_origins: [e2e.stack.baseUrl] } });
      const created = await captureSession(e2e.stack, {
        external_reference: `browser-${locale}-${Date.now()}`,
        party: "recipient",
        locale,
        return_url: `${e2e.stack.baseUrl}/health`,
      });
      const context = await phone(e2e.browser, e2e.stack);
      const page = await context.newPage();
      const failedRequests: string[] = [];
      page.on("requestfailed", (req) => failedRequests.push(req.url()));
      page.on("request", (req) => {
        if (/^(blob|data):/.test(req.url())) return;
        const host = new URL(req.url()).host;
        if (host !== new URL(e2e.stack.captureBaseUrl).host && host !== new URL(e2e.stack.baseUrl).host) failedRequests.push(`third-party ${req.url()}`);
      });
      const response = await page.goto(created.capture_url);
      expect(response?.status()).toBe(200);
      expect(response?.headers()["content-security-policy"]).toContain("default-src 'none'");
      await expect.poll(() => page.locator("html").getAttribute("lang"), { timeout: 10_000 }).toBe(locale);
      await page.getByText(texts[locale].welcome).waitFor();
      await page.screenshot({ path: `${screenshots}/capture-welcome-${locale}.png` });
      await page.getByTestId("start").click();
      const shutter = page.getByTestId("shutter");
      await shutter.waitFor();
      await viewfinderReady(page);
      await shutter.click();
      await shutter.click();
      await expect.poll(() => page.locator(".shot").count(), { timeout: 10_000 }).toBe(2);
      await page.getByTestId("retake").first().click();
      await expect.poll(() => page.locator(".shot").count(), { timeout: 10_000 }).toBe(1);
      await shutter.click();
      await expect.poll(() => page.locator(".shot").count(), { timeout: 10_000 }).toBe(2);
      await allUploaded(page);
      await page.screenshot({ path: `${screenshots}/capture-step-${locale}.png` });
      await page.getByTestId("finish").click();
      await page.getByTestId("completion").waitFor({ timeout: 20_000 });
      await page.waitForURL(/\/health\?proof_id=prf_[a-z0-9]+&session_id=cps_[a-z0-9]+$/, { timeout: 15_000 });
      const landed = new URL(page.url());
      expect(landed.searchParams.get("session_id")).toBe(created.id);
      const proof = await waitForProof(e2e.stack, e2e.stack.testKey, landed.searchParams.get("proof_id")!, (p) => p.status !== "pending");
      expect(proof.status).toBe("sealed");
      expect(proof.files).toHaveLength(2);
      expect(
        failedRequests.filter((url) => !url.includes("/health")),
        failedRequests.join("\n"),
      ).toEqual([]);
      await context.close();
    });
  }

  it("keeps shots whose uploads fail through a reload, and sends them once the network is back", async ({ skip }) => {
    if (!e2e.browser) return skip();
    const created = await captureSession(e2e.stack, { external_reference: `browser-offline-${Date.now()}`, party: "provider", locale: "en" });
    const context = await phone(e2e.browser, e2e.stack);
    const page = await context.newPage();
    await page.goto(created.capture_url);
    await page.getByTestId("start").click();
    await viewfinderReady(page);
    // Storage unreachable: every PUT to a signed URL fails as a dropped connection would.
    await page.route("**/u/**", (route) => route.abort("internetdisconnected"));
    await page.getByTestId("shutter").click();
    await page.getByTestId("shutter").click();
    await expect.poll(() => page.locator(".shot").count(), { timeout: 10_000 }).toBe(2);
    await expect.poll(() => page.locator("#overall-label").textContent(), { timeout: 15_000 }).toContain("retrying");
    await expect.poll(async () => (await request(`${created.capture_url}/session`)).body.files.length, { timeout: 10_000 }).toBe(2);
    const before = await request(`${created.capture_url}/session`);
    expect(before.body.files.filter((file: { status: string }) => file.status === "uploaded")).toHaveLength(0);

    await page.unroute("**/u/**");
    await page.reload();
    await page.getByTestId("start").click();
    await expect.poll(() => page.locator(".shot").count(), { timeout: 10_000 }).toBe(2);
    await allUploaded(page, 20_000);
    // One declaration per shot: the reload resumed the declarations made before it.
    const after = await request(`${created.capture_url}/session`);
    expect(after.body.files.map((file: { file_id: string }) => file.file_id).sort()).toEqual(
      before.body.files.map((file: { file_id: string }) => file.file_id).sort(),
    );
    // A declaration no shot on screen stands for (a tab closed mid-upload): dropped, not sealed.
    const orphan = await request(`${created.capture_url}/files`, {
      body: {
        step_id: "photos",
        content_type: "image/jpeg",
        size: 1234,
        sha256: "a".repeat(64),
        capture: { method: "camera", device_time: new Date().toISOString() },
      },
    });
    expect(orphan.status).toBe(201);
    await page.getByTestId("finish").click();
    await page.getByTestId("completion").waitFor({ timeout: 20_000 });
    const session = await request(`${e2e.stack.baseUrl}/v1/capture-sessions/${created.id}`, { token: e2e.stack.testKey });
    const proof = await waitForProof(e2e.stack, e2e.stack.testKey, session.body.proof_id, (p) => p.status !== "pending");
    expect(proof).toMatchObject({ status: "sealed" });
    expect(proof.files).toHaveLength(2);
    await context.close();
  });

  it("retries a completion whose answer was lost, and shows the one proof it made", async ({ skip }) => {
    if (!e2e.browser) return skip();
    const reference = `browser-lost-answer-${Date.now()}`;
    const created = await captureSession(e2e.stack, { external_reference: reference, party: "provider", locale: "fr" });
    const context = await phone(e2e.browser, e2e.stack);
    const page = await context.newPage();
    await page.goto(created.capture_url);
    await page.getByTestId("start").click();
    await viewfinderReady(page);
    await page.getByTestId("shutter").click();
    await allUploaded(page);
    // The server completes the capture, but its answer never reaches the phone.
    let lost = 0;
    await page.route("**/complete", async (route) => {
      if (lost++ > 0) return route.continue();
      await route.fetch();
      await route.abort("connectionreset");
    });
    await page.getByTestId("finish").click();
    await page.getByTestId("completion").waitFor({ timeout: 20_000 });
    expect(lost).toBe(2);
    const session = await request(`${e2e.stack.baseUrl}/v1/capture-sessions/${created.id}`, { token: e2e.stack.testKey });
    expect(session.body).toMatchObject({ status: "completed", proof_id: expect.stringMatching(/^prf_/) });
    const proofs = await request(`${e2e.stack.baseUrl}/v1/proofs?external_reference=${reference}`, { token: e2e.stack.testKey });
    expect(proofs.body.data.map((proof: { id: string }) => proof.id)).toEqual([session.body.proof_id]);
    await context.close();
  });

  it("falls back to choosing a file when the camera cannot be opened, and the signed file says so in its C2PA capture assertion", async ({ skip }) => {
    if (!e2e.browser) return skip();
    const created = await captureSession(e2e.stack, { external_reference: `browser-no-camera-${Date.now()}`, party: "recipient", locale: "es" });
    const context = await phone(e2e.browser, e2e.stack, { camera: "refused" });
    const page = await context.newPage();
    await page.goto(created.capture_url);
    await page.getByTestId("start").click();
    // Refused by the person: the page says the camera is blocked (and how to allow it), and offers files.
    await page.getByText("La cámara está bloqueada para esta página.").waitFor({ timeout: 10_000 });
    await page.locator("#file").setInputFiles(resolve(import.meta.dirname, "../../sealer/test/fixtures/photo.jpg"));
    await allUploaded(page);
    await page.getByTestId("finish").click();
    await page.getByTestId("completion").waitFor({ timeout: 20_000 });
    await context.close();

    const session = await request(`${e2e.stack.baseUrl}/v1/capture-sessions/${created.id}`, { token: e2e.stack.testKey });
    const proof = await waitForProof(e2e.stack, e2e.stack.testKey, session.body.proof_id, (p) => p.status !== "pending");
    expect(proof.status).toBe("sealed");
    const publicProof = await request(`${e2e.stack.baseUrl}/v1/public/proofs/${proof.id}`);
    const signed = new Uint8Array(await (await fetch(publicProof.body.files[0].url)).arrayBuffer());
    const reading = await readC2pa(signed, "image/jpeg");
    const assertions = (reading.activeManifest?.assertions ?? []) as { label: string; data: Record<string, any> }[];
    const capture = assertions.find((assertion) => assertion.label === "com.proofseal.capture")?.data;
    // The page's report is a gathered assertion, apart from what the service observed (docs/adr/0036).
    const reported = assertions.find((assertion) => assertion.label === "com.proofseal.reported")?.data;
    expect(capture).toMatchObject({ proof_id: proof.id, step_id: "photos", mode: "test" });
    expect(capture).not.toHaveProperty("reported_by_device");
    expect(reported).toMatchObject({ reported_by_device: { method: "file" } });
    expect(reported?.reported_by_device.device_time).toMatch(/^20\d\d-/);
    // The phone's clock as the service found it on receiving the declaration (a few ms here).
    expect(Math.abs(capture?.observed.clock_offset_ms)).toBeLessThan(60_000);
    // A file chosen with "Choose a file" is an existing asset opened, never a camera capture.
    const actions = assertions.filter((assertion) => assertion.label.startsWith("c2pa.actions")).flatMap((assertion) => assertion.data.actions ?? []);
    expect(actions.map((action: { action: string }) => action.action)).toEqual(["c2pa.opened"]);
    expect(JSON.stringify(actions)).not.toContain("digitalCapture");
  });

  it("records a clip with MediaRecorder for a video step, and the recording is sealed", async ({ skip }) => {
    if (!e2e.browser) return skip();
    const template = await request(`${e2e.stack.baseUrl}/v1/capture-templates`, {
      token: e2e.stack.testKey,
      body: {
        name: "Walk-around",
        welcome: { title: "Video" },
        steps: [{ id: "walkaround", label: "Walk around", instruction: "Film every side", kind: "video", max_count: 1 }],
      },
    });
    const created = await captureSession(e2e.stack, { external_reference: `browser-video-${Date.now()}`, party: "provider", template_id: template.body.id });
    const context = await phone(e2e.browser, e2e.stack, { microphone: true });
    const page = await context.newPage();
    await page.goto(created.capture_url);
    await page.getByTestId("start").click();
    await viewfinderReady(page);
    // The maximum length on the viewfinder, then the time recorded against it; never over the progress line.
    expect(await page.getByTestId("recording").textContent()).toBe("up to 2:00");
    await page.getByTestId("shutter").click();
    await new Promise((done) => setTimeout(done, 1500));
    expect(await page.getByTestId("recording").textContent()).toMatch(/^0:0[1-9] \/ 2:00$/);
    const [indicator, frame] = await Promise.all([page.getByTestId("recording").boundingBox(), page.getByTestId("frame").boundingBox()]);
    expect(indicator!.y + indicator!.height).toBeLessThanOrEqual(frame!.y + frame!.height);
    await page.getByTestId("shutter").click();
    await expect.poll(() => page.locator(".shot").count(), { timeout: 10_000 }).toBe(1);
    await allUploaded(page);
    expect(await page.getByTestId("recording").textContent()).toBe("up to 2:00");
    await page.getByTestId("finish").click();
    await page.getByTestId("completion").waitFor({ timeout: 20_000 });
    await context.close();
    const session = await request(`${e2e.stack.baseUrl}/v1/capture-sessions/${created.id}`, { token: e2e.stack.testKey });
    const proof = await waitForProof(e2e.stack, e2e.stack.testKey, session.body.proof_id, (p) => p.status !== "pending");
    expect(proof, JSON.stringify(proof.failure)).toMatchObject({ status: "sealed" });
    expect(proof.files[0]).toMatchObject({ kind: "video", content_type: expect.stringMatching(/^video\/(mp4|webm)$/) });
    if (proof.files[0].content_type === "video/mp4") {
      // What Chromium's MediaRecorder writes is C2PA-signed like any MP4 and read back valid by c2pa-rs.
      const publicProof = await request(`${e2e.stack.baseUrl}/v1/public/proofs/${proof.id}`);
      const signed = new Uint8Array(await (await fetch(publicProof.body.files[0].url)).arrayBuffer());
      expect((await readC2pa(signed, "video/mp4")).state).toBe("Valid");
    }
  });

  it("uploads a video above 32 MiB in parts and, after a dropped part, resumes without sending stored parts again", async ({ skip }) => {
    if (!e2e.browser) return skip();
    const template = await request(`${e2e.stack.baseUrl}/v1/capture-templates`, {
      token: e2e.stack.testKey,
      body: {
        name: "Long video",
        welcome: { title: "Video" },
        steps: [{ id: "walkaround", label: "Walk around", instruction: "Film every side", kind: "video", max_count: 1 }],
      },
    });
    const created = await captureSession(e2e.stack, {
      external_reference: `browser-long-video-${Date.now()}`,
      party: "provider",
      template_id: template.body.id,
    });
    // A real MP4 grown to 40 MiB by a trailing `free` box (still a well-formed file).
    const clip = readFileSync(resolve(import.meta.dirname, "../../sealer/test/fixtures/clip.mp4"));
    const padding = Buffer.alloc(40 * 1024 * 1024 - clip.length);
    padding.writeUInt32BE(padding.length, 0);
    padding.write("free", 4, "latin1");
    const video = join(mkdtempSync(join(tmpdir(), "long-video-")), "walkaround.mp4");
    writeFileSync(video, Buffer.concat([clip, padding]));

    const context = await phone(e2e.browser, e2e.stack, { camera: "refused" });
    const page = await context.newPage();
    const partsSent: number[] = [];
    let dropped = false;
    await page.route("**/u/**", async (route) => {
      const payload = JSON.parse(Buffer.from(new URL(route.request().url()).pathname.split("/u/")[1]!.split(".")[0]!, "base64url").toString());
      if (payload.p === 2 && !dropped) {
        dropped = true;
        return route.abort("connectionreset");
      }
      partsSent.push(payload.p);
      return route.continue();
    });
    await page.goto(created.capture_url);
    await page.getByTestId("start").click();
    await page.locator("#file").setInputFiles(video);
    await allUploaded(page, 60_000);
    expect(dropped).toBe(true);
    expect(partsSent).toEqual([1, 2, 3]);
    await page.getByTestId("finish").click();
    await page.getByTestId("completion").waitFor({ timeout: 20_000 });
    await context.close();
    const session = await request(`${e2e.stack.baseUrl}/v1/capture-sessions/${created.id}`, { token: e2e.stack.testKey });
    const proof = await waitForProof(e2e.stack, e2e.stack.testKey, session.body.proof_id, (p) => p.status !== "pending", 60_000);
    expect(proof, JSON.stringify(proof.failure)).toMatchObject({ status: "sealed" });
    expect(proof.files[0]).toMatchObject({ kind: "video", size: 40 * 1024 * 1024 });
  });

  it("explains an unknown link in the person's language", async ({ skip }) => {
    if (!e2e.browser) return skip();
    const context = await phone(e2e.browser, e2e.stack, { locale: "de-DE" });
    const page = await context.newPage();
    const response = await page.goto(`${e2e.stack.captureBaseUrl}/c/${"z".repeat(43)}`);
    expect(response?.status()).toBe(404);
    await expect.poll(() => page.getByTestId("error").textContent(), { timeout: 10_000 }).toContain("ungültig");
    await context.close();
  });
});
