import * as asn1js from "asn1js";

/**
 * RFC 4998 Evidence Record Syntax: the hash tree that lets one archive timestamp cover many proofs, and
 * the DER `EvidenceRecord` each proof keeps (shared by the Worker's renewal sweep and the offline
 * verifier). The module is `DEFINITIONS IMPLICIT TAGS`:
 *
 *   EvidenceRecord ::= SEQUENCE { version INTEGER { v1(1) }, digestAlgorithms SEQUENCE OF AlgorithmIdentifier,
 *     cryptoInfos [0] OPTIONAL, encryptionInfo [1] OPTIONAL, archiveTimeStampSequence ArchiveTimeStampSequence }
 *   ArchiveTimeStampSequence ::= SEQUENCE OF ArchiveTimeStampChain
 *   ArchiveTimeStampChain ::= SEQUENCE OF ArchiveTimeStamp
 *   ArchiveTimeStamp ::= SEQUENCE { digestAlgorithm [0] AlgorithmIdentifier OPTIONAL, attributes [1] OPTIONAL,
 *     reducedHashtree [2] SEQUENCE OF PartialHashtree OPTIONAL, timeStamp ContentInfo }
 *   PartialHashtree ::= SEQUENCE OF OCTET STRING
 *
 * We always write `digestAlgorithm` (explicit beats the default of the timestamp's own imprint) and never
 * `cryptoInfos`, `encryptionInfo` or `attributes`.
 */

export type HashName = "SHA-256" | "SHA-384" | "SHA-512";
const HASH_OIDS: Record<HashName, string> = { "SHA-256": "2.16.840.1.101.3.4.2.1", "SHA-384": "2.16.840.1.101.3.4.2.2", "SHA-512": "2.16.840.1.101.3.4.2.3" };
const hashOfOid = (oid: string): HashName => {
  const name = (Object.keys(HASH_OIDS) as HashName[]).find((hash) => HASH_OIDS[hash] === oid);
  if (!name) throw new EvidenceRecordFormatError(`unsupported digest algorithm ${oid}`);
  return name;
};

/** The bytes are not an EvidenceRecord this module reads. */
export class EvidenceRecordFormatError extends Error {}

export interface ArchiveTimeStamp {
  digestAlgorithm: HashName;
  /** The lists of hash values from the leaf up (RFC 4998 §4.2); null: the timestamp covers the leaf itself. */
  reducedHashtree: Uint8Array[][] | null;
  /** The RFC 3161 TimeStampToken (a CMS ContentInfo), DER exactly as the authority signed it. */
  timeStamp: Uint8Array;
}

/** Chains in order: each hash-tree renewal starts a new chain, each timestamp renewal extends the last. */
export interface EvidenceRecord {
  chains: ArchiveTimeStamp[][];
}

export async function digest(hash: HashName, ...parts: Uint8Array[]): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest(hash, arrayBuffer(concat(parts))));
}

/** A copy of exactly these bytes (a Node Buffer's `.buffer` is its whole pool, `slice` does not copy it). */
const arrayBuffer = (bytes: Uint8Array): ArrayBuffer => new Uint8Array(bytes).buffer as ArrayBuffer;

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((total, part) => total + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** Binary ascending order, as RFC 4998 §4.2 sorts hash values before concatenating them. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

export const sameBytes = (a: Uint8Array, b: Uint8Array) => compareBytes(a, b) === 0;

/** A node's value: its list sorted and concatenated, then hashed; a list of one value is that value. */
export async function nodeHash(hash: HashName, values: Uint8Array[]): Promise<Uint8Array> {
  if (values.length === 1) return values[0]!;
  return digest(hash, ...[...values].sort(compareBytes));
}

/**
 * A binary hash tree over leaves, each given as its first list (a data object group: the hashes of its
 * objects; or one hash). Returns the root to timestamp and, for each leaf, its reduced hash tree: its
 * first list, then at each level the sibling's value (a node without sibling is carried up unchanged).
 */
export async function buildHashTree(hash: HashName, firstLists: Uint8Array[][]): Promise<{ root: Uint8Array; reduced: Uint8Array[][][] }> {
  if (firstLists.length === 0) throw new Error("a hash tree needs at least one leaf");
  const reduced = firstLists.map((list) => [[...list].sort(compareBytes)]);
  let level = await Promise.all(firstLists.map(async (list, index) => ({ value: await nodeHash(hash, list), leaves: [index] })));
  while (level.length > 1) {
    const next: typeof level = [];
    for (let i = 0; i + 1 < level.length; i += 2) {
      const [left, right] = [level[i]!, level[i + 1]!];
      for (const leaf of left.leaves) reduced[leaf]!.push([right.value]);
      for (const leaf of right.leaves) reduced[leaf]!.push([left.value]);
      next.push({ value: await nodeHash(hash, [left.value, right.value]), leaves: [...left.leaves, ...right.leaves] });
    }
    if (level.length % 2 === 1) next.push(level.at(-1)!);
    level = next;
  }
  return { root: level[0]!.value, reduced };
}

/** RFC 4998 §4.3 step 3: each list's value joins the next list, up to the root the timestamp must cover. */
export async function rootOfReducedTree(hash: HashName, reduced: Uint8Array[][]): Promise<Uint8Array> {
  let value = await nodeHash(hash, reduced[0]!);
  for (const list of reduced.slice(1)) value = await nodeHash(hash, [value, ...list]);
  return value;
}

/** The first list of a proof's first archive timestamp: the hash of each of its evidence's objects (§4.2). */
export async function evidenceGroup(hash: HashName, objects: Uint8Array[]): Promise<Uint8Array[]> {
  return Promise.all(objects.map((object) => digest(hash, object)));
}

/**
 * Timestamp renewal (§5.2): the new archive timestamp covers the hash of the previous one's timeStamp (§5.3
 * step 2: its first list MUST contain it), and with it those of every earlier archive timestamp of the chain:
 * Bouncy Castle (ERSEvidenceRecord.validate, bcpkix 1.72) refuses a chain whose latest does not cover them
 * all, and a list holding more than the RFC asks still meets it.
 */
export async function timestampRenewalLeaf(chain: ArchiveTimeStamp[]): Promise<Uint8Array[]> {
  return Promise.all(chain.map((stamp) => digest(stamp.digestAlgorithm, stamp.timeStamp)));
}

/**
 * Hash-tree renewal (§5.2): with the new algorithm, each object's hash concatenated with the hash of the
 * whole ArchiveTimeStampSequence so far, hashed again; these form the new chain's first list.
 */
export async function hashTreeRenewalGroup(hash: HashName, objects: Uint8Array[], previousChains: ArchiveTimeStamp[][]): Promise<Uint8Array[]> {
  const chainsHash = await digest(hash, encodeArchiveTimeStampSequence(previousChains));
  return Promise.all(objects.map(async (object) => digest(hash, await digest(hash, object), chainsHash)));
}

/** The first list a record's next archive timestamp covers, and with which algorithm (`hash`: the one now required). */
export async function nextLeaf(record: EvidenceRecord | null, hash: HashName, objects: () => Promise<Uint8Array[]>): Promise<Uint8Array[]> {
  if (record === null) return evidenceGroup(hash, await objects());
  const chain = record.chains.at(-1)!;
  if (chain.at(-1)!.digestAlgorithm === hash) return timestampRenewalLeaf(chain);
  return hashTreeRenewalGroup(hash, await objects(), record.chains);
}

/** The record with a new archive timestamp: appended to the last chain, or a new chain when the algorithm changed. */
export function withArchiveTimeStamp(record: EvidenceRecord | null, stamp: ArchiveTimeStamp): EvidenceRecord {
  if (record === null) return { chains: [[stamp]] };
  const last = record.chains.at(-1)!;
  if (last.at(-1)!.digestAlgorithm === stamp.digestAlgorithm) return { chains: [...record.chains.slice(0, -1), [...last, stamp]] };
  return { chains: [...record.chains, [stamp]] };
}

const context = (tagNumber: number, value: asn1js.AsnType[]) => new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber }, value });
const algorithm = (hash: HashName) => new asn1js.Sequence({ value: [new asn1js.ObjectIdentifier({ value: HASH_OIDS[hash] })] });

function archiveTimeStampSchema(stamp: ArchiveTimeStamp): asn1js.Sequence {
  const token = asn1js.fromBER(arrayBuffer(stamp.timeStamp));
  if (token.offset === -1) throw new EvidenceRecordFormatError("the timestamp token is not DER");
  return new asn1js.Sequence({
    value: [
      context(0, [new asn1js.ObjectIdentifier({ value: HASH_OIDS[stamp.digestAlgorithm] })]),
      ...(stamp.reducedHashtree
        ? [
            context(
              2,
              stamp.reducedHashtree.map(
                (list) => new asn1js.Sequence({ value: list.map((value) => new asn1js.OctetString({ valueHex: arrayBuffer(value) })) }),
              ),
            ),
          ]
        : []),
      token.result,
    ],
  });
}

const sequenceSchema = (chains: ArchiveTimeStamp[][]) =>
  new asn1js.Sequence({ value: chains.map((chain) => new asn1js.Sequence({ value: chain.map(archiveTimeStampSchema) })) });

/** The DER of an ArchiveTimeStampSequence (chains before a hash-tree renewal are hashed as this, §5.2). */
export function encodeArchiveTimeStampSequence(chains: ArchiveTimeStamp[][]): Uint8Array {
  return new Uint8Array(sequenceSchema(chains).toBER());
}

export function encodeEvidenceRecord(record: EvidenceRecord): Uint8Array {
  const algorithms = [...new Set(record.chains.flat().map((stamp) => stamp.digestAlgorithm))];
  return new Uint8Array(
    new asn1js.Sequence({
      value: [new asn1js.Integer({ value: 1 }), new asn1js.Sequence({ value: algorithms.map(algorithm) }), sequenceSchema(record.chains)],
    }).toBER(),
  );
}

const children = (node: asn1js.AsnType | undefined, what: string): asn1js.AsnType[] => {
  if (!(node instanceof asn1js.Constructed)) throw new EvidenceRecordFormatError(`${what}: not a constructed value`);
  return node.valueBlock.value;
};
const octets = (node: asn1js.AsnType): Uint8Array => {
  if (!(node instanceof asn1js.OctetString)) throw new EvidenceRecordFormatError("a hash value is not an OCTET STRING");
  return new Uint8Array(node.valueBlock.valueHexView);
};
const isContext = (node: asn1js.AsnType, tag: number) => node.idBlock.tagClass === 3 && node.idBlock.tagNumber === tag;

function readArchiveTimeStamp(node: asn1js.AsnType, defaultHash: HashName): ArchiveTimeStamp {
  const parts = children(node, "ArchiveTimeStamp");
  let hash = defaultHash;
  let reducedHashtree: Uint8Array[][] | null = null;
  for (const part of parts.slice(0, -1)) {
    if (isContext(part, 0)) {
      const oid = children(part, "digestAlgorithm")[0];
      if (!(oid instanceof asn1js.ObjectIdentifier)) throw new EvidenceRecordFormatError("digestAlgorithm without an OID");
      hash = hashOfOid(oid.valueBlock.toString());
    } else if (isContext(part, 2)) {
      reducedHashtree = children(part, "reducedHashtree").map((list) => children(list, "PartialHashtree").map(octets));
      if (reducedHashtree.length === 0 || reducedHashtree.some((list) => list.length === 0))
        throw new EvidenceRecordFormatError("an empty reduced hash tree or list");
    }
  }
  const token = parts.at(-1);
  if (!(token instanceof asn1js.Sequence)) throw new EvidenceRecordFormatError("ArchiveTimeStamp without its timeStamp");
  return { digestAlgorithm: hash, reducedHashtree, timeStamp: new Uint8Array(token.valueBeforeDecodeView) };
}

/** Reads a DER EvidenceRecord (throws EvidenceRecordFormatError when it is not one). */
export function decodeEvidenceRecord(der: Uint8Array): EvidenceRecord {
  const parsed = asn1js.fromBER(arrayBuffer(der));
  if (parsed.offset === -1 || parsed.offset !== der.length) throw new EvidenceRecordFormatError("not a single DER value");
  const parts = children(parsed.result, "EvidenceRecord");
  const version = parts[0];
  if (!(version instanceof asn1js.Integer) || version.valueBlock.valueDec !== 1) throw new EvidenceRecordFormatError("version is not v1");
  const algorithms = children(parts[1], "digestAlgorithms").map((one) => {
    const oid = children(one, "AlgorithmIdentifier")[0];
    if (!(oid instanceof asn1js.ObjectIdentifier)) throw new EvidenceRecordFormatError("an AlgorithmIdentifier without an OID");
    return hashOfOid(oid.valueBlock.toString());
  });
  const sequence = parts.at(-1);
  const chains = children(sequence, "ArchiveTimeStampSequence").map((chain) =>
    children(chain, "ArchiveTimeStampChain").map((stamp) => readArchiveTimeStamp(stamp, algorithms[0] ?? "SHA-256")),
  );
  if (chains.length === 0 || chains.some((chain) => chain.length === 0)) throw new EvidenceRecordFormatError("no archive timestamp");
  return { chains };
}
