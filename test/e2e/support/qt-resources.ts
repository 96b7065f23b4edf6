import { inflateSync } from "node:zlib";

/**
 * The files of a Qt resource bundle (`.rcc`, as `rcc -binary` writes it), by their resource path: GCompris ships
 * its activities' photographs in these (docs/adr/0052). The format: a "qres" header giving the offsets of a tree of
 * nodes, of their names and of the files' bytes; a node is a folder (its children's first index and count) or a
 * file (its bytes' offset, zlib-compressed when flagged). Only what reading the files needs.
 */
export function qtResourceFiles(bundle: Buffer): Map<string, Buffer> {
  if (bundle.toString("latin1", 0, 4) !== "qres") throw new Error("not a Qt resource bundle");
  const version = bundle.readUInt32BE(4);
  const [tree, data, names] = [bundle.readUInt32BE(8), bundle.readUInt32BE(12), bundle.readUInt32BE(16)];
  const nodeSize = version >= 2 ? 22 : 14;
  const nameOf = (offset: number) => {
    const length = bundle.readUInt16BE(names + offset);
    const utf16 = Buffer.from(bundle.subarray(names + offset + 6, names + offset + 6 + 2 * length));
    return utf16.swap16().toString("utf16le");
  };
  const files = new Map<string, Buffer>();
  const visit = (index: number, path: string) => {
    const node = tree + index * nodeSize;
    const flags = bundle.readUInt16BE(node + 4);
    if (flags & 2) {
      const [count, first] = [bundle.readUInt32BE(node + 6), bundle.readUInt32BE(node + 10)];
      for (let child = first; child < first + count; child++) visit(child, `${path}/${nameOf(bundle.readUInt32BE(tree + child * nodeSize))}`);
      return;
    }
    const at = data + bundle.readUInt32BE(node + 10);
    const bytes = bundle.subarray(at + 4, at + 4 + bundle.readUInt32BE(at));
    if (flags & 4) throw new Error(`${path}: zstd-compressed resources are not read`);
    files.set(path, flags & 1 ? inflateSync(bytes.subarray(4)) : Buffer.from(bytes));
  };
  visit(0, "");
  return files;
}
