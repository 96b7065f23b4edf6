import { afterAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { createWriteStream, existsSync, mkdtempSync, rmSync, statfsSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { randomBytes } from "node:crypto";
import { crc32 } from "node:zlib";
import { zipStream, type ZipEntry } from "../../src/lib/zip/zip-stream.ts";

/**
 * The package's ZIP writer in Node, read back by two independent readers: Info-ZIP's `unzip -t` and
 * Python's zipfile (`testzip()` re-reads every entry and checks its CRC-32). No server needed: the
 * large entry is generated on the fly, as the Worker would stream it from storage.
 */
/** In memory (tmpfs) when the machine has room for the 4 GiB archive: disk writes made most of its time. */
const inMemory = existsSync("/dev/shm") && statfsSync("/dev/shm").bavail * statfsSync("/dev/shm").bsize > 5 * 2 ** 30;
const dir = mkdtempSync(join(inMemory ? "/dev/shm" : tmpdir(), "zip-stream-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `count` repetitions of one random MiB, with its size and CRC-32 (computed natively, as the sealer does). */
function generated(count: number) {
  const block = new Uint8Array(randomBytes(1 << 20));
  let crc = 0;
  for (let i = 0; i < count; i++) crc = crc32(block, crc);
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent++ < count) controller.enqueue(block);
      else controller.close();
    },
  });
  return { stream, size: count * block.length, crc32: crc };
}

async function writeArchive(entries: ZipEntry[], name: string): Promise<string> {
  const path = join(dir, name);
  await zipStream(entries, new Date("2026-11-22T10:00:00Z")).pipeTo(Writable.toWeb(createWriteStream(path)));
  return path;
}

/** What Python's zipfile reads: testzip()'s verdict (null when every CRC matches), then each entry. */
function pythonReading(path: string): { bad: string | null; entries: { name: string; size: number; crc: number }[] } {
  const script = `import json, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    print(json.dumps({"bad": z.testzip(), "entries": [{"name": i.filename, "size": i.file_size, "crc": i.CRC} for i in z.infolist()]}))`;
  return JSON.parse(execFileSync("python3", ["-c", script, path], { maxBuffer: 64 * 1024 * 1024 }).toString());
}

const unzipTest = (path: string) => execFileSync("unzip", ["-tq", path], { maxBuffer: 64 * 1024 * 1024 }).toString();

describe("the package ZIP writer", () => {
  it("writes a small package that unzip and Python accept, computing CRCs only where none is recorded", async () => {
    const photo = new Uint8Array(randomBytes(300_000));
    const path = await writeArchive(
      [
        { name: "manifest.json", body: async () => '{"proof_id":"prf_1"}' },
        { name: "files/med_1.jpg", body: async () => ({ stream: new Blob([photo]).stream(), size: photo.length, crc32: crc32(photo) }) },
        { name: "proof.tsr", body: async () => ({ stream: new Blob([photo.subarray(0, 1000)]).stream(), size: 1000, crc32: null }) },
        { name: "VERIFY.md", body: async () => "# Vérifier" },
      ],
      "small.zip",
    );
    expect(unzipTest(path)).toMatch(/No errors detected/);
    const reading = pythonReading(path);
    expect(reading.bad).toBeNull();
    expect(reading.entries.map((entry) => entry.name)).toEqual(["manifest.json", "files/med_1.jpg", "proof.tsr", "VERIFY.md"]);
  });

  it("uses the recorded CRC-32 of a stored file as given, without computing it again", async () => {
    const bytes = new Uint8Array(randomBytes(1000));
    const path = await writeArchive(
      [{ name: "a.bin", body: async () => ({ stream: new Blob([bytes]).stream(), size: bytes.length, crc32: 0x12345678 }) }],
      "trusted.zip",
    );
    expect(pythonReading(path).entries[0]!.crc).toBe(0x12345678);
  });

  it("aborts the stream when a stored file is shorter than announced, rather than end in a corrupt archive", async () => {
    const bytes = new Uint8Array(100);
    const entries: ZipEntry[] = [{ name: "short.bin", body: async () => ({ stream: new Blob([bytes]).stream(), size: 101, crc32: 0 }) }];
    await expect(writeArchive(entries, "short.zip")).rejects.toThrow(/100 bytes read, 101 announced/);
  });

  it("switches to ZIP64 for more than 65,535 entries", async () => {
    const entries: ZipEntry[] = Array.from({ length: 70_000 }, (_, index) => ({ name: `f/${index}.txt`, body: async () => `${index}` }));
    const path = await writeArchive(entries, "many.zip");
    expect(unzipTest(path)).toMatch(/No errors detected/);
    const reading = pythonReading(path);
    expect(reading.bad).toBeNull();
    expect(reading.entries).toHaveLength(70_000);
    expect(reading.entries[69_999]).toMatchObject({ name: "f/69999.txt", size: 5 });
  }, 120_000);

  it("streams a package over 4 GiB (an entry over 4 GiB, entries and the directory beyond it) that unzip and Python accept", async () => {
    const started = performance.now();
    const big = generated(4 * 1024 + 3);
    const tail = new Uint8Array(randomBytes(5000));
    const path = await writeArchive(
      [
        { name: "manifest.json", body: async () => '{"proof_id":"prf_big"}' },
        { name: "files/med_big.mp4", body: async () => big },
        { name: "files/med_after.jpg", body: async () => ({ stream: new Blob([tail]).stream(), size: tail.length, crc32: crc32(tail) }) },
        { name: "VERIFY.md", body: async () => "# Verify" },
      ],
      "big.zip",
    );
    const written = performance.now();
    expect(statSync(path).size).toBeGreaterThan(2 ** 32);
    expect(unzipTest(path)).toMatch(/No errors detected/);
    const unzipped = performance.now();
    const reading = pythonReading(path);
    expect(reading.bad).toBeNull();
    expect(reading.entries.find((entry) => entry.name === "files/med_big.mp4")).toEqual({ name: "files/med_big.mp4", size: big.size, crc: big.crc32 });
    expect(reading.entries.map((entry) => entry.name)).toEqual(["manifest.json", "files/med_big.mp4", "files/med_after.jpg", "VERIFY.md"]);
    console.log(
      `zip64: ${(big.size / 2 ** 30).toFixed(2)} GiB written in ${Math.round(written - started)} ms, unzip -t ${Math.round(unzipped - written)} ms, python ${Math.round(performance.now() - unzipped)} ms`,
    );
    rmSync(path);
  }, 180_000);
});
