import { describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { zipStream } from "../../src/lib/zip/zip-stream.ts";
import { readZip } from "../../verifier/src/read-zip.ts";

/**
 * proof-verify's ZIP reader (verifier/src/read-zip.ts) against forger finding O3: the central directory is what
 * it reads, and each local header must agree with it (name, sizes) and the local entries fill the bytes before
 * it, so an entry no directory lists (another proof's report.pdf a streaming extractor would meet first) is
 * refused. The service's archives (streamed, data descriptors) and Info-ZIP's (deflated) still read. No stack.
 */

const latin1 = (text: string) => new Uint8Array(Buffer.from(text, "latin1"));
const GENUINE = [
  { name: "manifest.json", bytes: latin1('{"version":2}') },
  { name: "report.pdf", bytes: latin1("%PDF-1.7 the genuine report") },
];

/** A ZIP as the service writes it (zipStream: stored, data descriptors). */
async function serviceZip(entries: { name: string; bytes: Uint8Array }[]): Promise<Buffer> {
  const stream = zipStream(
    entries.map(({ name, bytes }) => ({ name, body: async () => bytes })),
    new Date("2026-11-26T00:00:00Z"),
  );
  return Buffer.from(await new Response(stream).arrayBuffer());
}

/** The end of central directory record's offset, and the central directory's start. */
function directory(zip: Buffer): { end: number; start: number } {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  return { end, start: zip.readUInt32LE(end + 16) };
}

/** `zip` with its first central record removed: that entry's local header and data stay, listed nowhere. */
function withFirstEntryUnlisted(zip: Buffer): Buffer {
  const { end, start } = directory(zip);
  const length = 46 + zip.readUInt16LE(start + 28) + zip.readUInt16LE(start + 30) + zip.readUInt16LE(start + 32);
  const out = Buffer.concat([zip.subarray(0, start), zip.subarray(start + length)]);
  const newEnd = end - length;
  out.writeUInt16LE(out.readUInt16LE(newEnd + 8) - 1, newEnd + 8);
  out.writeUInt16LE(out.readUInt16LE(newEnd + 10) - 1, newEnd + 10);
  out.writeUInt32LE(out.readUInt32LE(newEnd + 12) - length, newEnd + 12);
  return out;
}

describe("readZip compares local headers with the central directory (forger finding O3)", () => {
  it("reads the service's archive and one Info-ZIP wrote (deflated)", async () => {
    expect([...readZip(await serviceZip(GENUINE)).keys()]).toEqual(["manifest.json", "report.pdf"]);
    const folder = mkdtempSync(join(tmpdir(), "read-zip-"));
    try {
      for (const { name, bytes } of GENUINE) writeFileSync(join(folder, name), Buffer.concat(Array(50).fill(bytes)));
      execFileSync("zip", ["-q", "-9", "package.zip", "manifest.json", "report.pdf"], { cwd: folder });
      execFileSync("zip", ["-q", "-fd", "streamed.zip", "-"], { cwd: folder, input: "streamed through a pipe" });
      expect(readZip(readFileSync(join(folder, "package.zip"))).get("report.pdf")?.byteLength).toBe(GENUINE[1]!.bytes.byteLength * 50);
      expect(new TextDecoder().decode(readZip(readFileSync(join(folder, "streamed.zip"))).get("-"))).toBe("streamed through a pipe");
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it("refuses a local entry report.pdf that the central directory does not list", async () => {
    const forged = withFirstEntryUnlisted(await serviceZip([{ name: "report.pdf", bytes: latin1("%PDF-1.7 another proof's report") }, ...GENUINE]));
    expect(() => readZip(forged)).toThrow("bytes no entry of the ZIP directory lists before manifest.json");
    const trailing = await serviceZip(GENUINE);
    const { start } = directory(trailing);
    const padded = Buffer.concat([trailing.subarray(0, start), Buffer.from("junk"), trailing.subarray(start)]);
    padded.writeUInt32LE(start + 4, directory(padded).end + 16);
    expect(() => readZip(padded)).toThrow("bytes no entry of the ZIP directory lists before the directory");
  });

  it("refuses a local header naming another file, or with other sizes, than its central entry", async () => {
    const zip = await serviceZip(GENUINE);
    const renamed = Buffer.from(zip);
    const second = renamed.indexOf("report.pdf");
    renamed.write("Report.pdf", second, "latin1");
    expect(() => readZip(renamed)).toThrow("report.pdf: its local header differs from the ZIP directory (another name)");
    const resized = Buffer.from(zip);
    // The first entry's data descriptor: signature, CRC, compressed size, size.
    const descriptor = resized.indexOf(Buffer.from([0x50, 0x4b, 0x07, 0x08]));
    resized.writeUInt32LE(resized.readUInt32LE(descriptor + 8) + 1, descriptor + 8);
    expect(() => readZip(resized)).toThrow("manifest.json: its local header differs from the ZIP directory (other sizes)");
  });
});
