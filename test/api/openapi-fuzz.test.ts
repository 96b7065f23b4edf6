import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { API, CAPTURE, admin, call, callJson } from "./support/client.ts";
import { createKey, createOrganization, type TestOrganization } from "./support/factories.ts";
import { baseSession, createSession } from "./support/sessions.ts";
import { captureCall, randomJpeg, tokenOf, uploadPhoto } from "./support/capture.ts";
import { insertPendingProof } from "./support/proof-factory.ts";
import { dependencies, sealedAnswer, storeSignedCopyAndThumbnail } from "./support/sealing.ts";
import { sealProof } from "../../src/sealing/seal-proof.ts";
import type { SealJob } from "../../shared/sealer-protocol.ts";
import { dnsStandIn } from "./support/dns-stand-in.ts";
import { operations } from "./support/openapi-operations.ts";
import { ERROR_CATALOGUE, type ErrorDefinition, errorSlug } from "../../src/errors/catalogue.ts";
import { RIGHTS } from "../../src/auth/rights.ts";

/**
 * A fuzzer built from every OpenAPI document the service serves (`/openapi.json` and `/openapi-capture.json`):
 * for each operation, a seeded set of hostile requests (fields missing, extra, mistyped, at and past their
 * bounds, outside their patterns; unicode and control characters; malformed JSON and wrong content types;
 * hostile path, query and header values; wrong methods and keys). Every answer must be below 500, and every
 * 4xx a problem whose `code` is in the catalogue with its status. The seed is printed; `VITE_FUZZ_SEED=<seed> npx vitest run test/api/openapi-fuzz.test.ts` replays a run (Vite hands only
 * VITE_-prefixed variables to the test).
 */
const SEED = Number((import.meta as { env?: Record<string, string | undefined> }).env?.VITE_FUZZ_SEED ?? 20261126);
/** Requests per operation are sampled down to these caps so the whole run stays near 2,000 requests. */
const BODY_CASES_PER_OPERATION = 20;
const PARAMETER_CASES_PER_OPERATION = 14;
const RATE_LIMITED_SHARE = 0.01;
const CONCURRENCY = 4;
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

type Json = any;

function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class Random {
  private readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  int(max: number): number {
    return Math.floor(this.next() * max);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)] as T;
  }
  bytes(length: number): Uint8Array {
    return Uint8Array.from({ length }, () => this.int(256));
  }
  hex(length: number): string {
    let out = "";
    for (let i = 0; i < length; i++) out += "0123456789abcdef"[this.int(16)];
    return out;
  }
  /** A seeded sample of at most `count` items, in their original order. */
  sample<T>(items: T[], count: number): T[] {
    if (items.length <= count) return items;
    const indexes = items.map((_, i) => i);
    for (let i = indexes.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [indexes[i], indexes[j]] = [indexes[j] as number, indexes[i] as number];
    }
    return indexes
      .slice(0, count)
      .sort((a, b) => a - b)
      .map((i) => items[i] as T);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Schemas: valid values from the documents, and hostile ones around them.

/** Values the schemas cannot tell: what a field means, not only its shape. */
const MEANINGFUL: Record<string, (n: number) => Json> = {
  url: (n) => `https://hooks.example.com/fuzz/${n}`,
  return_url: () => "https://shop.example/back",
  locale: () => "en",
  default_locale: () => "en",
  step_id: () => "photos",
  content_type: () => "image/jpeg",
  allowed_return_origins: () => ["https://shop.example"],
};

function resolve(document: Json, schema: Json): Json {
  if (schema?.$ref) return resolve(document, document.components.schemas[schema.$ref.split("/").pop()]);
  return schema ?? {};
}

function typeOf(schema: Json): string | undefined {
  if (schema.anyOf) return typeOf(schema.anyOf[0]);
  return Array.isArray(schema.type) ? schema.type.find((t: string) => t !== "null") : schema.type;
}

/** The characters of a `^[class]{m,n}$` pattern, or null when the pattern is not of that simple form. */
function simplePattern(pattern: string | undefined): { chars: string[]; min: number; max: number } | null {
  const match = pattern ? /^\^\[([^\]]+)\]\{(\d+)(?:,(\d+))?\}\$$/.exec(pattern) : null;
  if (!match) return null;
  const chars: string[] = [];
  const body = match[1] as string;
  for (let i = 0; i < body.length; i++) {
    const c = body[i] as string;
    if (body[i + 1] === "-" && i + 2 < body.length) {
      for (let code = c.charCodeAt(0); code <= body.charCodeAt(i + 2); code++) chars.push(String.fromCharCode(code));
      i += 2;
    } else chars.push(c === "\\" ? (body[++i] as string) : c);
  }
  const min = Number(match[2]);
  return { chars, min, max: match[3] === undefined ? min : Number(match[3]) };
}

function stringOfLength(schema: Json, length: number, random: Random): string {
  const simple = simplePattern(schema.pattern);
  let out = "";
  for (let i = 0; i < length; i++) out += simple ? random.pick(simple.chars) : "abcdefghijklmnopqrstuvwxyz"[random.int(26)];
  return out;
}

let uniqueCounter = 0;

function validValue(document: Json, raw: Json, name: string, random: Random): Json {
  const schema = resolve(document, raw);
  const meaningful = MEANINGFUL[name];
  if (meaningful) return meaningful(++uniqueCounter);
  if (schema.anyOf) return validValue(document, schema.anyOf[0], name, random);
  if (schema.example !== undefined) return schema.example;
  if (schema.enum) return schema.enum[0];
  switch (typeOf(schema)) {
    case "string": {
      if (schema.format === "date-time") return new Date().toISOString();
      if (schema.format === "uri") return "https://example.com/fuzz";
      const simple = simplePattern(schema.pattern);
      const min = Math.max(simple?.min ?? 0, schema.minLength ?? 0, 1);
      const max = Math.min(simple?.max ?? Number.POSITIVE_INFINITY, schema.maxLength ?? Number.POSITIVE_INFINITY, min + 11);
      return stringOfLength(schema, min + random.int(max - min + 1), random);
    }
    case "integer":
    case "number":
      return schema.default ?? schema.minimum ?? 1;
    case "boolean":
      return schema.default ?? false;
    case "array":
      return Array.from({ length: Math.max(schema.minItems ?? 0, 1) }, () => validValue(document, schema.items, name, random));
    case "object": {
      const out: Record<string, Json> = {};
      for (const key of schema.required ?? []) out[key] = validValue(document, schema.properties[key], key, random);
      if (!schema.properties && schema.additionalProperties) out.en = validValue(document, schema.additionalProperties, "en", random);
      return out;
    }
    default:
      return null;
  }
}

/** A value written into a JSON body as raw text (numbers JSON.stringify cannot write, lone surrogates). */
class RawJson {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

interface Mutation {
  /** JSON pointer of the mutated value ("" for the whole body). */
  pointer: string;
  what: string;
  /** The value to put there; undefined removes the member. */
  value: Json | RawJson | undefined;
  /** Whether a 422 validation_failed must name this pointer (or below it). */
  blames: boolean;
  /** Members the base body lacks that this mutation lives in: set first, from the outside in. */
  within?: [string, Json][];
}

const HOSTILE_STRINGS: [string, string][] = [
  ["empty", ""],
  ["spaces", "   "],
  ["NUL", "a\u0000b"],
  ["control characters", "\u0001\u0007\b\u001b[31m\r\n"],
  ["bidi and zero-width", "\u202eabc\u200b\ufeff"],
  ["emoji", "😀".repeat(40)],
  ["combining marks", `e${"\u0301".repeat(300)}`],
  ["markup", "<script>alert(1)</script>"],
  ["SQL", "' OR 1=1; DROP TABLE proofs; --"],
  ["path traversal", "../../../etc/passwd"],
  ["template syntax", `$\{7*7}{{7*7}}%s%n`],
  ["100,000 characters", "x".repeat(100_000)],
];

const HOSTILE_ANY: [string, Json | RawJson][] = [
  ["null", null],
  ["true", true],
  ["zero", 0],
  ["negative", -1],
  ["fractional", 1.5],
  ["huge", new RawJson("1e309")],
  ["-0", new RawJson("-0")],
  ["2^64", new RawJson("18446744073709551616")],
  ["empty array", []],
  ["empty object", {}],
  ["nested array", [[[]]]],
  ["lone surrogate", new RawJson('"\\ud800"')],
  ["__proto__", new RawJson('{"__proto__": {"polluted": true}}')],
];

function hostileValues(document: Json, raw: Json, name: string, pointer: string, base: Json, random: Random, depth: number): Mutation[] {
  const schema = resolve(document, raw);
  const out: Mutation[] = [];
  const add = (what: string, value: Json | RawJson | undefined, blames = true) => out.push({ pointer, what: `${pointer} ${what}`, value, blames });
  for (const [what, value] of HOSTILE_ANY) add(what, value, !(value === null && (Array.isArray(schema.type) ? schema.type.includes("null") : false)));
  const type = typeOf(schema);
  if (schema.enum) {
    add("outside the enum", `${schema.enum[0]}x`);
    add("enum in upper case", String(schema.enum[0]).toUpperCase(), false);
  }
  if (type === "string" || schema.anyOf) {
    for (const [what, value] of HOSTILE_STRINGS) add(what, value, false);
    const simple = simplePattern(schema.pattern);
    const max = schema.maxLength ?? simple?.max;
    if (max !== undefined) {
      add(`at maxLength ${max}`, stringOfLength(schema, max, random), false);
      add(`at maxLength ${max} + 1`, stringOfLength(schema, max + 1, random));
    }
    const min = schema.minLength ?? simple?.min;
    if (min) add(`at minLength ${min} - 1`, stringOfLength(schema, min - 1, random));
    if (schema.pattern) {
      const valid = typeof base === "string" && base.length > 1 ? base : stringOfLength(schema, Math.max(min ?? 1, 2), random);
      add("outside the pattern (é)", `${valid.slice(0, -1)}é`);
      add("outside the pattern (space)", `${valid.slice(0, -1)} `);
      add("outside the pattern (newline)", `${valid}\n`);
    }
    if (schema.format === "uri" || name === "url" || name.endsWith("_url")) {
      for (const url of [
        "javascript:alert(1)",
        "https://",
        "//evil.example/x",
        "https://ex ample.com",
        "https://127.0.0.1/",
        "http://[::1]/",
        "https://user:pw@evil.example/",
        "https://%zz/",
      ]) {
        add(`url ${url}`, url, false);
      }
    }
    if (schema.format === "date-time") for (const date of ["2026-13-45T99:99:99Z", "0000-00-00", "now", "1e309"]) add(`date ${date}`, date);
  }
  if (type === "integer" || type === "number") {
    if (schema.minimum !== undefined) add(`minimum ${schema.minimum} - 1`, schema.minimum - 1);
    if (schema.maximum !== undefined) {
      add(`maximum ${schema.maximum}`, schema.maximum, false);
      add(`maximum ${schema.maximum} + 1`, schema.maximum + 1);
    }
    add("as a string", "1");
    add("2^53 + 1", new RawJson("9007199254740993"), false);
  }
  if (type === "array") {
    if (schema.maxItems !== undefined) {
      const item = Array.isArray(base) && base.length > 0 ? base[0] : validValue(document, schema.items, name, random);
      add(
        `maxItems ${schema.maxItems} + 1`,
        Array.from({ length: schema.maxItems + 1 }, () => item),
        false,
      );
    }
    add("array of null", [null]);
    add("object for an array", { 0: "x" });
    if (depth < 3 && Array.isArray(base) && base.length > 0)
      out.push(...hostileValues(document, schema.items, name, `${pointer}/0`, base[0], random, depth + 1));
  }
  const map = [schema, ...(schema.anyOf ?? [])].map((option) => resolve(document, option)).find((option) => option.additionalProperties && !option.properties);
  if (map) {
    const text = validValue(document, map.additionalProperties, "", random);
    add("map with an empty key", { "": text }, false);
    add("map with a 300-character key", { ["k".repeat(300)]: text }, false);
    add("map with a __proto__ key", new RawJson(`{"__proto__": ${JSON.stringify(text)}}`), false);
    add("map of 25 languages", Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`l${String.fromCharCode(97 + i)}`, text])), false);
    add("map with an empty value", { en: "" }, false);
    add("map with a numeric value", { en: 1 }, false);
    add("map with a null value", { en: null }, false);
    add("map with a nested map", { en: { fr: text } }, false);
  }
  if (type === "array" && Array.isArray(base) && base.length > 0) add("an item twice", [base[0], base[0]], false);
  if (type === "object" && schema.properties) {
    add("array for an object", [base]);
    add("string for an object", "object");
    if (depth < 3 && base && typeof base === "object") out.push(...memberMutations(document, schema, base, pointer, random, depth + 1));
  }
  return out;
}

function memberMutations(document: Json, schema: Json, base: Json, pointer: string, random: Random, depth: number): Mutation[] {
  const out: Mutation[] = [];
  for (const key of schema.required ?? []) out.push({ pointer: `${pointer}/${key}`, what: `${pointer}/${key} missing`, value: undefined, blames: true });
  if (schema.additionalProperties === false) {
    out.push({ pointer: `${pointer}/fuzz_extra`, what: `${pointer}/fuzz_extra unknown member`, value: "x", blames: true });
  }
  for (const [key, property] of Object.entries<Json>(schema.properties ?? {})) {
    const current = key in base ? base[key] : validValue(document, property, key, random);
    const nested = hostileValues(document, property, key, `${pointer}/${key}`, current, random, depth);
    if (!(key in base))
      for (const mutation of nested)
        if (mutation.pointer !== `${pointer}/${key}`) mutation.within = [[`${pointer}/${key}`, current], ...(mutation.within ?? [])];
    out.push(...nested);
  }
  return out;
}

const PLACEHOLDER = "\u0000fuzz-raw\u0000";

/** The base body with one mutation applied, as JSON text. */
function mutatedBody(base: Json, mutation: Mutation): string {
  const copy = structuredClone(base);
  const set = (pointer: string, value: Json) => {
    const segments = pointer.split("/").slice(1);
    let parent: Json = copy;
    for (const segment of segments.slice(0, -1)) parent = parent[segment];
    const last = segments.at(-1) as string;
    if (value === undefined) delete parent[last];
    else parent[last] = value;
  };
  for (const [pointer, value] of mutation.within ?? []) set(pointer, structuredClone(value));
  set(mutation.pointer, mutation.value instanceof RawJson ? PLACEHOLDER : mutation.value);
  const text = JSON.stringify(copy);
  return mutation.value instanceof RawJson ? text.replace(JSON.stringify(PLACEHOLDER), mutation.value.text) : text;
}

// ---------------------------------------------------------------------------------------------------------
// Requests.

interface FuzzRequest {
  operation: string;
  what: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** Statuses this request must get (besides 429); unset when any status below 500 is acceptable. */
  statuses?: number[];
  code?: string;
  /** When set, a 422 validation_failed must name this pointer or one below it. */
  field?: string;
  /** Sent alone, after the requests before it answered (the others of an operation go a few at a time). */
  ordered?: boolean;
}

interface Fixtures {
  org: TestOrganization;
  otherOrg: TestOrganization;
  keyWithout: Record<string, string>;
  revokedKey: string;
  templateId: string;
  themeId: string;
  endpointId: string;
  deliveryId: string;
  sessionId: string;
  token: string;
  fileId: string;
  /** The token of a link already used (its capture completed), and a file of that other link. */
  usedToken: string;
  otherFileId: string;
  proofId: string;
  proofFileId: string;
}

interface OperationInfo {
  document: Json;
  name: string;
  host: string;
  method: string;
  path: string;
  operation: Json;
  authenticated: boolean;
  right?: string;
}

/** The identifier a path parameter takes when it names an existing resource. */
function realParameter(path: string, name: string, f: Fixtures): string {
  if (name === "token") return f.token;
  if (name === "fileId") return f.fileId;
  if (name === "file_id") return f.proofFileId;
  if (name === "slug") return "validation-failed";
  if (path.startsWith("/v1/proofs") || path.startsWith("/v1/public/proofs")) return f.proofId;
  if (path.startsWith("/v1/webhook-endpoints")) return f.endpointId;
  if (path.startsWith("/v1/webhook-deliveries")) return f.deliveryId;
  if (path.startsWith("/v1/capture-sessions")) return f.sessionId;
  if (path.startsWith("/v1/capture-templates")) return f.templateId;
  if (path.startsWith("/v1/capture-themes")) return f.themeId;
  throw new Error(`no identifier known for ${name} in ${path}`);
}

function concretePath(info: OperationInfo, f: Fixtures, override: Record<string, string> = {}): string {
  return info.path.replaceAll(/\{([^}]+)\}/g, (_, name: string) => override[name] ?? encodeURIComponent(realParameter(info.path, name, f)));
}

function bodyContent(info: OperationInfo): { type: string; schema: Json } | null {
  const content = info.operation.requestBody?.content;
  if (!content) return null;
  const type = Object.keys(content)[0] as string;
  return { type, schema: content[type].schema };
}

function idempotencyHeader(info: OperationInfo): boolean {
  return (info.operation.parameters ?? []).some((p: Json) => p.in === "header" && p.name === "Idempotency-Key");
}

/** The request as a well-behaved client sends it; every hostile request varies one thing of it. */
function baseRequest(info: OperationInfo, f: Fixtures, random: Random, what: string): FuzzRequest & { json?: Json } {
  const headers: Record<string, string> = {};
  if (info.authenticated) headers.Authorization = `Bearer ${f.org.testKey}`;
  if (info.path === "/health/details") headers.Authorization = "Bearer test-supervision-token-0123456789";
  if (idempotencyHeader(info)) headers["Idempotency-Key"] = `fuzz-${random.hex(24)}`;
  // Public verification is limited per client address: each request comes from its own.
  if (info.path === "/v1/public/verify") headers["CF-Connecting-IP"] = `198.51.${random.int(256)}.${random.int(256)}`;
  const request: FuzzRequest & { json?: Json } = { operation: info.name, what, method: info.method, url: `${info.host}${concretePath(info, f)}`, headers };
  const content = bodyContent(info);
  if (content) {
    headers["Content-Type"] = content.type;
    if (content.type === "application/json") {
      request.json = validValue(info.document, content.schema, "", random);
      // An update naming no member is refused as a whole: the base changes the first one the schema lists.
      const schema = resolve(info.document, content.schema);
      const first = Object.keys(schema.properties ?? {})[0];
      if (first !== undefined && Object.keys(request.json).length === 0)
        request.json[first] = validValue(info.document, schema.properties[first], first, random);
      request.body = JSON.stringify(request.json);
    } else request.body = random.bytes(64);
  }
  return request;
}

function authenticationCases(info: OperationInfo, f: Fixtures, random: Random): FuzzRequest[] {
  const out: FuzzRequest[] = [];
  const variant = (what: string, authorization: string | undefined, statuses?: number[], code?: string) => {
    const request = baseRequest(info, f, random, what);
    if (authorization === undefined) delete request.headers.Authorization;
    else request.headers.Authorization = authorization;
    out.push({ ...request, statuses, code });
  };
  if (!info.authenticated) {
    variant("an API key where none is needed", `Bearer ${f.org.liveKey}`);
    variant("a malformed Authorization", "Bearer sk_test_%00\\");
    return out;
  }
  const refused = [401];
  variant("no key", undefined, refused, "unauthenticated");
  variant("an empty bearer", "Bearer ", refused, "unauthenticated");
  variant("Basic credentials", `Basic ${btoa("user:pass")}`, refused, "unauthenticated");
  variant("an unknown test key", `Bearer sk_test_${random.hex(40)}`, refused, "unauthenticated");
  variant("an unknown live key", `Bearer sk_live_${random.hex(40)}`, refused, "unauthenticated");
  variant("a key with a character changed", `Bearer ${f.org.testKey.slice(0, -1)}${f.org.testKey.endsWith("a") ? "b" : "a"}`, refused, "unauthenticated");
  variant("a key too long", `Bearer ${f.org.testKey}${"x".repeat(5000)}`, refused, "unauthenticated");
  variant("a revoked key", `Bearer ${f.revokedKey}`, refused, "unauthenticated");
  variant("the admin token", "Bearer test-admin-token-0123456789abcdef", refused, "unauthenticated");
  variant("two bearers", `Bearer ${f.org.testKey}, Bearer ${f.org.liveKey}`, refused, "unauthenticated");
  variant("the other mode's key", `Bearer ${f.org.liveKey}`);
  variant("another organization's key", `Bearer ${f.otherOrg.testKey}`);
  if (info.right) variant(`a key without ${info.right}`, `Bearer ${f.keyWithout[info.right]}`, [403], "insufficient_scope");
  return out;
}

const PATH_VALUES: [string, string][] = [
  ["81 characters", "a".repeat(81)],
  ["4,000 characters", "a".repeat(4000)],
  ["a percent-encoded slash", "a%2Fb"],
  ["an encoded traversal", "%2e%2e%2f%2e%2e%2fadmin"],
  ["an encoded NUL", "a%00b"],
  ["an encoded newline", "a%0Ab"],
  ["invalid UTF-8", "%ff%fe"],
  ["a lone percent", "a%"],
  ["a malformed escape", "%zz"],
  ["an emoji", "%F0%9F%98%80"],
  ["a bidi override", "%E2%80%AEabc"],
  ["SQL", "'%20OR%201=1--"],
  ["a JSON object", "%7B%22a%22:1%7D"],
];

function pathCases(info: OperationInfo, f: Fixtures, random: Random): FuzzRequest[] {
  const out: FuzzRequest[] = [];
  for (const parameter of (info.operation.parameters ?? []).filter((p: Json) => p.in === "path")) {
    const real = realParameter(info.path, parameter.name, f);
    const prefix = real.includes("_") ? real.slice(0, real.indexOf("_") + 1) : "";
    const values: [string, string, Partial<FuzzRequest>?][] = [
      ...PATH_VALUES,
      ["an unknown id of the right form", `${prefix}${random.hex(Math.max(real.length - prefix.length, 1))}`],
      ["another resource's prefix", `usr_${random.hex(24)}`],
      ["the id in upper case", encodeURIComponent(real.toUpperCase())],
      ["the id then an encoded slash", `${encodeURIComponent(real)}%2F..`],
      [`exactly maxLength ${parameter.schema.maxLength}`, `${prefix}${"a".repeat(Math.max((parameter.schema.maxLength ?? 80) - prefix.length, 1))}`],
    ];
    // Completing a used link again answers the first completion (the page may retry it); anything else is 410.
    const completion = info.path === "/c/{token}/complete";
    if (parameter.name === "token")
      values.push(["a used link's token", f.usedToken, completion ? { statuses: [200] } : { statuses: [410], code: "capture_link_used" }]);
    if (parameter.name === "fileId") values.push(["another link's file", f.otherFileId, { statuses: [404], code: "capture_file_not_found" }]);
    for (const [what, value, expected] of values) {
      const request = baseRequest(info, f, random, `path ${parameter.name}: ${what}`);
      request.url = `${info.host}${concretePath(info, f, { [parameter.name]: value })}`;
      out.push({ ...request, field: `/path/${parameter.name}`, ...expected });
    }
  }
  return out;
}

const QUERY_VALUES: [string, string][] = [
  ["empty", ""],
  ["a word", "abc"],
  ["negative", "-1"],
  ["zero", "0"],
  ["fractional", "1.5"],
  ["huge", "1e309"],
  ["20 digits", "99999999999999999999"],
  ["an encoded NUL", "%00"],
  ["invalid UTF-8", "%ff"],
  ["unicode", "%C3%A9%E2%80%AE"],
  ["10,000 characters", "a".repeat(10_000)],
  ["SQL", "'%20OR%201=1--"],
];

function forgedCursors(random: Random): [string, string][] {
  const b64 = (text: string) => btoa(text).replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");
  return [
    ["base64 JSON", b64(JSON.stringify({ created_at: new Date().toISOString(), id: `prf_${random.hex(24)}` }))],
    ["base64 JSON with a tag", `${b64(JSON.stringify({ created_at: "2026-01-01T00:00:00.000Z", id: "x" }))}.${random.hex(64)}`],
    ["random base64url", b64(random.hex(48))],
    ["a dot only", "."],
    ["two dots", "a.b.c"],
    ["201 characters", "a".repeat(201)],
    ["base64 of an array", b64("[1,2,3]")],
    ["base64 of null", b64("null")],
  ];
}

function queryCases(info: OperationInfo, f: Fixtures, random: Random): FuzzRequest[] {
  const out: FuzzRequest[] = [];
  const withQuery = (what: string, query: string, extra: Partial<FuzzRequest> = {}) => {
    const request = baseRequest(info, f, random, `query ${what}`);
    request.url += `?${query}`;
    out.push({ ...request, ...extra });
  };
  const parameters = (info.operation.parameters ?? []).filter((p: Json) => p.in === "query");
  for (const parameter of parameters) {
    const name = parameter.name;
    const schema = parameter.schema;
    const values = [...QUERY_VALUES];
    if (schema.maxLength) values.push([`maxLength ${schema.maxLength} + 1`, stringOfLength(schema, schema.maxLength + 1, random)]);
    if (schema.maximum !== undefined)
      values.push([`maximum ${schema.maximum} + 1`, String(schema.maximum + 1)], [`maximum ${schema.maximum}`, String(schema.maximum)]);
    if (schema.enum) values.push(["outside the enum", `${schema.enum[0]}x`], ["enum in upper case", String(schema.enum[0]).toUpperCase()]);
    if (schema.format === "date-time") values.push(["an impossible date", "2026-02-30T25:61:00Z"], ["a date without time", "2026-01-01"]);
    for (const [what, value] of values) withQuery(`${name}: ${what}`, `${name}=${value}`, { field: `/query/${name}` });
    withQuery(`${name} twice`, `${name}=${encodeURIComponent(validValue(info.document, schema, name, random))}&${name}=x`);
    withQuery(`${name} as an array`, `${name}[]=1&${name}[0]=2`);
    if (name === "cursor") {
      for (const [what, cursor] of forgedCursors(random)) {
        withQuery(`forged cursor: ${what}`, `cursor=${encodeURIComponent(cursor)}`, {
          statuses: [422],
          code: what === "201 characters" ? "validation_failed" : "invalid_cursor",
        });
      }
    }
  }
  withQuery("an unknown parameter", "fuzz_unknown=1");
  withQuery("__proto__", "__proto__[polluted]=1&constructor=x");
  withQuery("only separators", "&&&=&=");
  if (info.path === "/openapi.json") withQuery("lang=fr", "lang=fr");
  return out;
}

const HOSTILE_HEADERS: [string, Record<string, string>][] = [
  ["Accept-Language fr", { "Accept-Language": "fr" }],
  ["Accept-Language with weights", { "Accept-Language": "fr-CA;q=0.9, *;q=0.1" }],
  ["Accept-Language of 8,000 characters", { "Accept-Language": "fr-".padEnd(8000, "x") }],
  ["Accept-Language of separators", { "Accept-Language": ";;,,q=;" }],
  ["Accept text/html", { Accept: "text/html" }],
  ["If-None-Match *", { "If-None-Match": "*" }],
  ["If-None-Match weak and strong", { "If-None-Match": 'W/"x", "y"' }],
  ["If-None-Match unbalanced and long", { "If-None-Match": `"${"a".repeat(4000)}` }],
  ["If-Modified-Since garbage", { "If-Modified-Since": "yesterday" }],
  ["Range past the end", { Range: "bytes=999999999-" }],
  ["Range reversed", { Range: "bytes=5-1" }],
  ["Range suffix of zero", { Range: "bytes=-0" }],
  ["Range of two parts", { Range: "bytes=0-1,2-3" }],
  ["Range of another unit", { Range: "items=0-1" }],
  ["X-Forwarded-Proto http and another host", { "X-Forwarded-Proto": "http", "X-Forwarded-Host": "evil.example" }],
  ["CF-Connecting-IP malformed", { "CF-Connecting-IP": "not-an-ip" }],
  ["CF-Connecting-IP of 2,000 characters", { "CF-Connecting-IP": "1".repeat(2000) }],
  ["Origin of another site", { Origin: "https://evil.example" }],
];

const BODY_HEADERS: [string, Record<string, string>][] = [
  ["Content-Encoding gzip over plain bytes", { "Content-Encoding": "gzip" }],
  ["Content-Encoding br over plain bytes", { "Content-Encoding": "br" }],
  ["a content type with an open quote", { "Content-Type": 'application/json; charset="' }],
  ["a content type of separators", { "Content-Type": "application/json;;;=" }],
];

/** Hosts the request may name instead of its own: the other services' loopback forms, and a public name. */
const OTHER_HOSTS = [
  "https://localhost:8787",
  "http://[::1]:8787",
  "http://0.0.0.0:8787",
  "http://LOCALHOST:8787",
  "http://api.example.com",
  "https://evil.example",
];

function headerCases(info: OperationInfo, f: Fixtures, random: Random): FuzzRequest[] {
  const out: FuzzRequest[] = [];
  const hasBody = bodyContent(info) !== null;
  for (const [what, headers] of [...HOSTILE_HEADERS, ...(hasBody ? BODY_HEADERS : [])]) {
    const request = baseRequest(info, f, random, `header ${what}`);
    out.push({ ...request, headers: { ...request.headers, ...headers } });
  }
  if (info.authenticated) {
    const request = baseRequest(info, f, random, "a lower-case bearer scheme");
    out.push({ ...request, headers: { ...request.headers, Authorization: `bearer ${f.org.testKey}` } });
  }
  for (const host of OTHER_HOSTS) {
    const request = baseRequest(info, f, random, `host ${host}`);
    out.push({ ...request, url: request.url.replace(info.host, host) });
  }
  return out;
}

const MALFORMED_JSON: [string, string][] = [
  ["an open brace", "{"],
  ["single quotes", "{'a': 1}"],
  ["a trailing comma", '{"a": 1,}'],
  ["a comment", '{"a": 1 /* x */}'],
  ["NaN", '{"a": NaN}'],
  ["two documents", "{}{}"],
  ["a NUL", "\u0000"],
];

const WRONG_BODIES: [string, string][] = [
  ["null", "null"],
  ["an array", "[]"],
  ["a string", '"text"'],
  ["a number", "42"],
  ["true", "true"],
  ["10,000 nested arrays", "[".repeat(10_000) + "]".repeat(10_000)],
  ["a byte order mark", "\ufeff{}"],
  ["prototype pollution", '{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}'],
];

/** Values of these members a security rule refuses, whatever else the body says: each must get this answer. */
const REFUSED_VALUES: Record<string, { values: string[]; code: string; item?: boolean }> = {
  url: {
    code: "invalid_webhook_url",
    values: [
      "https://2130706433/",
      "https://0x7f.0.0.1/",
      "https://127.1/",
      "https://[::ffff:127.0.0.1]/",
      "https://169.254.169.254/latest/meta-data",
      "https://metadata.google.internal/",
      "https://localhost./x",
      "https://hooks.example.com\\@127.0.0.1/x",
      "https:hooks.example.com/x",
      " https://hooks.example.com/x",
      "http://hooks.example.com/x",
      "https://user:pw@hooks.example.com/x",
      "https://hooks.example.com:22/x",
      "https://hooks.example.com/x#fragment",
    ],
  },
  allowed_return_origins: {
    code: "validation_failed",
    item: true,
    values: [
      "https://*.example.com",
      "javascript:alert(1)",
      "http://shop.example",
      "https://shop.example/path",
      "https://user@shop.example",
      "null",
      "https://shop.example#x",
    ],
  },
  return_url: { code: "", values: ["javascript:alert(1)", "https://evil.example/back", "//evil.example/back", "http://shop.example/back"] },
};

const WRONG_CONTENT_TYPES = ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/xml"];

const svg = (inner: string) => `<svg xmlns="http://www.w3.org/2000/svg">${inner}<rect width="10" height="10"/></svg>`;

/** Logos that run code or fetch from outside themselves, however it is spelled: always refused. */
const UNSAFE_SVGS: [string, string][] = [
  ["with a script", svg("<script>alert(1)</script>")],
  ["with an unquoted external image", svg("<image href=https://evil.example/x.png />")],
  ["with a CSS escape spelling url(", svg("<style>rect{background:u\\rl(https://evil.example/x.png)}</style>")],
  ["with a CSS escape spelling @import", svg("<style>@\\import 'https://evil.example/a.css';</style>")],
  ["with image-set() of a string", svg('<style>rect{background-image:image-set("https://evil.example/x.png" 1x)}</style>')],
  ["with -webkit-image-set() in a style attribute", svg(`<rect style="background-image:-webkit-image-set('https://evil.example/x.png' 1x)"/>`)],
  ["with src() of a string", svg('<style>rect{background:src("https://evil.example/x.png")}</style>')],
  ["with an entity", `<!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>${svg("<text>&b;</text>")}`],
];

function bodyCases(info: OperationInfo, f: Fixtures, random: Random): FuzzRequest[] {
  const content = bodyContent(info);
  if (!content) return [];
  const out: FuzzRequest[] = [];
  const variant = (what: string, body: string | Uint8Array | undefined, contentType: string | undefined, extra: Partial<FuzzRequest> = {}) => {
    const request = baseRequest(info, f, random, `body ${what}`);
    request.body = body;
    if (contentType === undefined) delete request.headers["Content-Type"];
    else request.headers["Content-Type"] = contentType;
    out.push({ ...request, ...extra });
  };
  const required = info.operation.requestBody.required === true;
  variant("empty", "", content.type, required ? { statuses: [400, 415, 422] } : {});
  variant("absent, no content type", undefined, undefined, required ? { statuses: [400, 415, 422] } : {});
  if (content.type === "application/json") {
    const base = baseRequest(info, f, random, "").json;
    for (const [what, text] of MALFORMED_JSON) variant(`malformed JSON: ${what}`, text, "application/json", { statuses: [400], code: "invalid_json" });
    for (const [what, text] of WRONG_BODIES) variant(what, text, "application/json");
    variant("an array for the object", JSON.stringify([base]), "application/json", { statuses: [400, 422] });
    variant("a duplicated member", JSON.stringify(base).replace(/^\{/, '{"fuzz_duplicate":1,"fuzz_duplicate":"x",'), "application/json");
    // A route that also takes bytes (public verification) reads any other type as a file's bytes.
    const takesBytes = "application/octet-stream" in info.operation.requestBody.content;
    for (const type of WRONG_CONTENT_TYPES)
      variant(`as ${type}`, JSON.stringify(base), type, takesBytes ? {} : { statuses: [415], code: "unsupported_media_type" });
    variant("charset=utf-16", JSON.stringify(base), "application/json; charset=utf-16");
    variant("content type in upper case", JSON.stringify(base), "APPLICATION/JSON");
    variant("a +json content type", JSON.stringify(base), "application/json-patch+json");
    const schema = resolve(info.document, content.schema);
    const mutations = memberMutations(info.document, schema, base, "", random, 0);
    for (const [name, refused] of Object.entries(REFUSED_VALUES)) {
      if (!schema.properties?.[name]) continue;
      for (const value of refused.values) {
        const extra: Partial<FuzzRequest> = { statuses: [422], ...(refused.code ? { code: refused.code } : {}), field: `/${name}` };
        variant(`${name} refused: ${value}`, JSON.stringify({ ...base, [name]: refused.item ? [value] : value }), "application/json", extra);
      }
    }
    for (const mutation of random.sample(mutations, BODY_CASES_PER_OPERATION)) {
      variant(mutation.what, mutatedBody(base, mutation), "application/json", mutation.blames ? { field: mutation.pointer } : {});
    }
  } else {
    const types = Object.keys(info.operation.requestBody.content);
    for (const type of types) variant(`random bytes as ${type}`, random.bytes(256 + random.int(1024)), type);
    if (types.includes("image/svg+xml")) {
      for (const [what, body] of UNSAFE_SVGS) variant(`an SVG ${what}`, body, "image/svg+xml", { statuses: [422], code: "logo_type_not_allowed" });
    }
    variant("a PNG signature only", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), "image/png");
    variant("JSON where bytes are expected", '{"sha256": 1}', "application/json");
    variant("text/plain", "hello", "text/plain");
  }
  return out;
}

function idempotencyCases(info: OperationInfo, f: Fixtures, random: Random): FuzzRequest[] {
  if (!idempotencyHeader(info)) return [];
  const out: FuzzRequest[] = [];
  const values: [string, string | undefined][] = [
    ["absent", undefined],
    ["7 characters", "abcdefg"],
    ["256 characters", "a".repeat(256)],
    ["a space", "with space1"],
    ["a tab", "tab\there-123"],
    ["a slash", "slash/key/1"],
    ["empty", ""],
  ];
  for (const [what, value] of values) {
    const request = baseRequest(info, f, random, `Idempotency-Key ${what}`);
    if (value === undefined) delete request.headers["Idempotency-Key"];
    else request.headers["Idempotency-Key"] = value;
    out.push({ ...request, statuses: [422], code: "validation_failed", field: "/header/Idempotency-Key", ordered: true });
  }
  const first = baseRequest(info, f, random, "Idempotency-Key reused with another body (first)");
  out.push({ ...first, ordered: true });
  const second = baseRequest(info, f, random, "Idempotency-Key reused with another body (second)");
  second.headers["Idempotency-Key"] = first.headers["Idempotency-Key"] as string;
  const schema = resolve(info.document, bodyContent(info)?.schema);
  const changed = Object.keys(first.json ?? {}).find((key) => simplePattern(schema.properties?.[key]?.pattern) !== null);
  if (changed !== undefined) {
    second.body = JSON.stringify({ ...first.json, [changed]: stringOfLength(schema.properties[changed], 20, random) });
    out.push({ ...second, code: "idempotency_key_reused", ordered: true });
  }
  return out;
}

function methodCases(info: OperationInfo, item: Json, f: Fixtures, random: Random, firstOfPath: boolean): FuzzRequest[] {
  const out: FuzzRequest[] = [];
  const base = baseRequest(info, f, random, "");
  const headers = { ...base.headers };
  delete headers["Content-Type"];
  if (firstOfPath) {
    for (const method of METHODS.filter((m) => !item[m.toLowerCase()])) {
      out.push({ ...base, what: `method ${method}`, method, headers, body: undefined, statuses: [405], code: "method_not_allowed" });
    }
    out.push({ ...base, what: "method OPTIONS", method: "OPTIONS", headers, body: undefined });
    out.push({ ...base, what: "method HEAD", method: "HEAD", headers, body: undefined });
  }
  out.push({ ...base, what: "a trailing slash", url: `${base.url}/`, statuses: [404], code: "not_found" });
  out.push({ ...base, what: "a doubled slash", url: base.url.replace(/\/([^/]*)$/, "//$1") });
  out.push({ ...base, what: "the other host", url: base.url.replace(info.host, info.host === API ? CAPTURE : API) });
  return out;
}

function operationInfo(document: { name: string; host: string; body: Json }, method: string, path: string): OperationInfo {
  const operation = document.body.paths[path][method.toLowerCase()];
  return {
    document: document.body,
    name: `${document.name} ${method.toUpperCase()} ${path}`,
    host: document.host,
    method: method.toUpperCase(),
    path,
    operation,
    authenticated: (operation.security ?? []).some((requirement: Json) => "apiKey" in requirement),
    right: operation["x-required-right"],
  };
}

function fuzzRequests(documents: { name: string; host: string; body: Json }[], f: Fixtures, random: Random): { requests: FuzzRequest[]; operations: string[] } {
  uniqueCounter = 0;
  const requests: FuzzRequest[] = [];
  const names: string[] = [];
  const infos: { info: OperationInfo; item: Json; firstOfPath: boolean }[] = [];
  for (const document of documents) {
    const seen = new Set<string>();
    for (const { method, path } of operations(document.body)) {
      infos.push({ info: operationInfo(document, method, path), item: document.body.paths[path], firstOfPath: !seen.has(path) });
      seen.add(path);
    }
  }
  // Deletions last, so that the resources the other operations name still exist while they are fuzzed.
  infos.sort((a, b) => Number(a.info.method === "DELETE") - Number(b.info.method === "DELETE"));
  for (const { info, item, firstOfPath } of infos) {
    names.push(info.name);
    const parameterCases = [...pathCases(info, f, random), ...queryCases(info, f, random), ...headerCases(info, f, random)];
    requests.push(
      ...authenticationCases(info, f, random),
      ...random.sample(parameterCases, PARAMETER_CASES_PER_OPERATION),
      ...bodyCases(info, f, random),
      ...idempotencyCases(info, f, random),
      ...methodCases(info, item, f, random, firstOfPath),
    );
  }
  // Over the 8 MiB JSON limit, once per document.
  const large = baseRequest(infos.find((i) => i.info.path === "/v1/capture-templates" && i.info.method === "POST")!.info, f, random, "body over 8 MiB");
  requests.push({ ...large, body: `{"name": "${"x".repeat(8 * 1024 * 1024 + 10)}"}`, statuses: [413], code: "payload_too_large" });
  const declare = baseRequest(infos.find((i) => i.info.path === "/c/{token}/files" && i.info.method === "POST")!.info, f, random, "body over 8 MiB");
  requests.push({ ...declare, body: `{"step_id": "${"x".repeat(8 * 1024 * 1024 + 10)}"}`, statuses: [413], code: "payload_too_large" });
  return { requests, operations: names };
}

// ---------------------------------------------------------------------------------------------------------
// Judging the answers.

const LEAKS = [
  /\n\s+at\s+\S+.*:\d+:\d+/,
  /\b(TypeError|ReferenceError|RangeError|SyntaxError|URIError)\b/,
  /node_modules|file:\/\/|\/src\/\S+\.ts/,
  /D1_ERROR|SQLITE_/,
];

function describeRequest(request: FuzzRequest): string {
  const body = request.body === undefined ? "" : typeof request.body === "string" ? request.body : `<${request.body.length} bytes>`;
  const headers = Object.entries(request.headers)
    .map(([name, value]) => `${name}: ${value.length > 80 ? `${value.slice(0, 80)}…(${value.length})` : value}`)
    .join("; ");
  const url = request.url.length > 200 ? `${request.url.slice(0, 200)}…(${request.url.length})` : request.url;
  return `${request.method} ${url} [${headers}] ${body.length > 300 ? `${body.slice(0, 300)}…(${body.length})` : body}`;
}

interface Documented {
  /** Whether the operation's 422 says that `validation_failed` names its field. */
  fieldRequired: boolean;
  /** The media types of each documented answer. */
  responses: Record<string, string[]>;
  /** Whether its answers declare the RateLimit headers (authenticated routes, and public verification per address). */
  rateLimited: boolean;
  host: string;
}

/** Keys that authenticate (of either mode, another organization, lacking a right): their answers count against a limit. */
const validKeys = new Set<string>();

function judge(request: FuzzRequest, status: number, headers: Headers, text: string, documented: Documented): string[] {
  const problems: string[] = [];
  // A 5xx the operation documents as its own answer, not a problem (the supervision route's 503 "degraded"), is no failure.
  const designed = (documented.responses[String(status)] ?? []).filter((type) => type !== "application/problem+json");
  if (status >= 500 && designed.length > 0) {
    if (!designed.some((type) => headers.get("Content-Type")?.startsWith(type))) problems.push(`${status} with Content-Type ${headers.get("Content-Type")}`);
    return problems;
  }
  if (status >= 500) problems.push(`answered ${status}`);
  if (!headers.get("Request-Id")) problems.push("no Request-Id header");
  // Counted answers say so (a body refused for its size is refused before the key is read).
  const key = request.headers.Authorization?.replace(/^bearer /i, "") ?? "";
  const verification = request.method === "POST" && new URL(request.url).pathname === "/v1/public/verify";
  const counted = verification || validKeys.has(key);
  if (documented.rateLimited && counted && request.url.startsWith(documented.host) && status !== 413 && !headers.get("RateLimit-Limit")) {
    problems.push("no RateLimit headers on a counted answer");
  }
  for (const leak of LEAKS) if (leak.test(text)) problems.push(`leaks ${leak}: ${text.slice(0, 200)}`);
  if (status === 429) return problems;
  if (request.statuses && !request.statuses.includes(status)) problems.push(`answered ${status}, expected ${request.statuses.join(" or ")}`);
  if (status < 400 || status >= 600) return problems;
  if (!headers.get("Content-Type")?.startsWith("application/problem+json")) problems.push(`${status} with Content-Type ${headers.get("Content-Type")}`);
  if (request.method === "HEAD") return problems;
  let problem: Json;
  try {
    problem = JSON.parse(text);
  } catch {
    return [...problems, `${status} body is not JSON: ${text.slice(0, 120)}`];
  }
  if (typeof problem?.type !== "string" || problem.type === "") problems.push("problem without type");
  if (typeof problem?.title !== "string" || problem.title === "") problems.push("problem without title");
  if (problem?.status !== status) problems.push(`problem status ${problem?.status} on a ${status}`);
  const definition = (ERROR_CATALOGUE as Record<string, ErrorDefinition>)[problem?.code];
  if (!definition) problems.push(`code ${problem?.code} not in the catalogue`);
  else {
    if (definition.status !== status) problems.push(`code ${problem.code} is ${definition.status} in the catalogue, answered ${status}`);
    if (!String(problem.type).endsWith(`/errors/${errorSlug(problem.code)}`)) problems.push(`type ${problem.type} is not the code's page`);
    const french = /^fr([-;]|$)/i.test(request.headers["Accept-Language"]?.split(",")[0]?.trim() ?? "");
    const title = definition.title[french ? "fr" : "en"];
    if (problem.title !== title) problems.push(`title "${problem.title}", expected the catalogue's "${title}"`);
  }
  if (request.code && problem?.code !== request.code) problems.push(`code ${problem?.code}, expected ${request.code}`);
  if (status === 405 && !headers.get("Allow")) problems.push("405 without Allow");
  if (problem?.code === "validation_failed") {
    if (documented.fieldRequired && typeof problem.field !== "string") problems.push("validation_failed without field");
    if (problem.field !== undefined && !String(problem.field).startsWith("/")) problems.push(`field ${problem.field} is not a JSON pointer`);
    if (request.field && typeof problem.field === "string" && !(problem.field === request.field || problem.field.startsWith(`${request.field}/`))) {
      problems.push(`field ${problem.field}, expected ${request.field}`);
    }
  }
  return problems;
}

function documentedAnswers(documents: { name: string; host: string; body: Json }[]): Map<string, Documented> {
  const out = new Map<string, Documented>();
  for (const { name, host, body } of documents) {
    for (const { method, path, operation } of operations(body)) {
      const responses: Record<string, string[]> = {};
      for (const [status, response] of Object.entries<Json>(operation.responses)) responses[status] = Object.keys(response.content ?? {});
      const description: string = operation.responses["422"]?.description ?? "";
      const rateLimited = Object.entries<Json>(operation.responses).some(
        ([status, response]) => status !== "401" && "RateLimit-Limit" in (response.headers ?? {}),
      );
      out.set(`${name} ${method.toUpperCase()} ${path}`, { fieldRequired: /`validation_failed`[^`]*`field`/.test(description), responses, rateLimited, host });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------

/**
 * A proof sealed through the real sealing code, the sealer stood in, with a signed copy and a thumbnail for
 * its file: the public routes then answer from the stored objects (ETags, the package), not only 404s.
 */
async function sealedProof(organizationId: string) {
  const { proofId, fileIds } = await insertPendingProof(organizationId, "test", 1);
  const seal = async (job: SealJob) => {
    const thumbnail = await storeSignedCopyAndThumbnail(job.files[0]!);
    const answer = sealedAnswer(job);
    return { ...answer, files: answer.files.map((f) => ({ ...f, thumbnail })) };
  };
  const { deps } = dependencies(seal);
  if ((await sealProof(deps, proofId)) !== "sealed") throw new Error("the fixture proof was not sealed");
  return { proofId, fileIds };
}

const documents: { name: string; host: string; body: Json }[] = [];
let fixtures: Fixtures;

beforeAll(async () => {
  // Test events are queued for delivery: their receiver and resolver are stand-ins, nothing leaves the test.
  vi.stubGlobal("fetch", dnsStandIn().fetch);
  documents.push(
    { name: "openapi.json", host: API, body: (await callJson("/openapi.json")).body },
    { name: "openapi-capture.json", host: CAPTURE, body: (await callJson("/openapi-capture.json")).body },
  );
  const org = await createOrganization({ rateLimit: 100_000 });
  const otherOrg = await createOrganization({ rateLimit: 100_000 });
  const keyWithout: Record<string, string> = {};
  for (const right of RIGHTS) {
    keyWithout[right] = (await createKey(org.id, { mode: "test", rights: RIGHTS.filter((r) => r !== right), rate_limit_per_minute: 100_000 })).key;
  }
  const revoked = await createKey(org.id, { mode: "test" });
  expect((await admin(`/admin/v1/api-keys/${revoked.id}`, undefined, "DELETE")).status).toBeLessThan(300);
  const key = org.testKey;
  const template = await callJson("/v1/capture-templates", {
    key,
    body: { name: "Fuzz", welcome: { title: "Hello" }, steps: [{ id: "photos", label: "Photos", instruction: "Take them" }] },
  });
  const theme = await callJson("/v1/capture-themes", { key, body: { name: "Fuzz", primary_color: "#0a6cff", locale: "en" } });
  const endpoint = await callJson("/v1/webhook-endpoints", { key, body: { url: "https://hooks.example.com/fuzz", events: ["proof.sealed"] } });
  const delivery = await callJson(`/v1/webhook-endpoints/${endpoint.body.id}/test`, { key, body: {} });
  const session = await createSession(key, baseSession());
  const token = tokenOf(session.body.capture_url);
  const photo = await randomJpeg(1024);
  const declared = await captureCall(token, "/files", {
    body: { step_id: "photos", content_type: "image/jpeg", size: photo.bytes.length, sha256: photo.sha256 },
  });
  const proof = await sealedProof(org.id);
  const used = await createSession(key, baseSession());
  const usedToken = tokenOf(used.body.capture_url);
  const { fileId: otherFileId } = await uploadPhoto(usedToken);
  const completed = await captureCall(usedToken, "/complete", { body: {} });
  for (const [what, answer] of [
    ["template", template],
    ["theme", theme],
    ["endpoint", endpoint],
    ["test event", delivery],
    ["session", session],
    ["declaration", declared],
    ["completion", completed],
  ] as const) {
    if (answer.status >= 300) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body)}`);
  }
  for (const valid of [org.testKey, org.liveKey, otherOrg.testKey, ...Object.values(keyWithout)]) validKeys.add(valid);
  fixtures = {
    org,
    otherOrg,
    keyWithout,
    revokedKey: revoked.key,
    templateId: template.body.id,
    themeId: theme.body.id,
    endpointId: endpoint.body.id,
    deliveryId: delivery.body.delivery_id,
    sessionId: session.body.id,
    token,
    fileId: declared.body.file_id,
    usedToken,
    otherFileId,
    proofId: proof.proofId,
    proofFileId: proof.fileIds[0] as string,
  };
});

afterAll(() => vi.unstubAllGlobals());

describe("the OpenAPI fuzzer", () => {
  it("reaches the handlers: requests made from the schemas' required fields and examples succeed", async () => {
    const random = new Random(SEED);
    const creating = [
      ["openapi.json", "POST", "/v1/capture-sessions"],
      ["openapi.json", "POST", "/v1/capture-templates"],
      ["openapi.json", "POST", "/v1/capture-themes"],
      ["openapi.json", "POST", "/v1/webhook-endpoints"],
      ["openapi.json", "PATCH", "/v1/settings"],
      ["openapi.json", "POST", "/v1/public/verify"],
      ["openapi-capture.json", "POST", "/c/{token}/files"],
    ] as const;
    for (const [name, method, path] of creating) {
      const request = baseRequest(operationInfo(documents.find((d) => d.name === name)!, method, path), fixtures, random, "valid");
      const response = await call(request.url, { method: request.method, headers: request.headers, rawBody: request.body as string });
      const text = await response.text();
      expect(response.status, `${method} ${path} ${request.body}: ${text.slice(0, 300)}`).toBeGreaterThanOrEqual(200);
      expect(response.status, `${method} ${path} ${request.body}: ${text.slice(0, 300)}`).toBeLessThan(300);
    }
  });

  it("public verification: malformed JSON is 400 invalid_json like everywhere else, an absent body is named, an unknown member refused", async () => {
    const headers = { "Content-Type": "application/json", "CF-Connecting-IP": "198.51.100.7" };
    const malformed = await callJson("/v1/public/verify", { method: "POST", rawBody: '{"sha256": ', headers });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ status: 400, code: "invalid_json" });
    const absent = await callJson("/v1/public/verify", { method: "POST", headers: { "CF-Connecting-IP": "198.51.100.8" } });
    expect(absent.body).toMatchObject({ status: 422, code: "validation_failed", field: "/" });
    // The body is as strict as its documented schema (additionalProperties: false), like every other body.
    const extra = await callJson("/v1/public/verify", {
      body: { sha256: "a".repeat(64), algorithm: "sha256" },
      headers: { "CF-Connecting-IP": "198.51.100.9" },
    });
    expect(extra.body).toMatchObject({ status: 422, code: "validation_failed", field: "/algorithm" });
  });

  it("finds no 5xx and no answer outside the problem format in either document", { timeout: 240_000 }, async () => {
    const random = new Random(SEED);
    const { requests, operations: covered } = fuzzRequests(documents, fixtures, random);
    console.log(`OpenAPI fuzzer: seed ${SEED} (replay with VITE_FUZZ_SEED=${SEED}), ${requests.length} requests over ${covered.length} operations`);
    const answers = documentedAnswers(documents);
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    const codes = new Set<string>();
    const rateLimited: string[] = [];
    const started = Date.now();
    const send = async (request: FuzzRequest) => {
      const response = await call(request.url, { method: request.method, headers: request.headers, rawBody: request.body as string | undefined });
      // Signed files, thumbnails and packages are read as bytes: only text can carry a problem or a stack.
      const textual = /json|text|xml/.test(response.headers.get("Content-Type") ?? "text");
      const text = textual ? await response.text() : "";
      if (!textual) await response.body?.cancel();
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      if (response.status === 429) rateLimited.push(`${request.operation} — ${request.what}`);
      if (response.status >= 400 && response.headers.get("Content-Type")?.startsWith("application/problem+json")) {
        try {
          codes.add(JSON.parse(text).code);
        } catch {}
      }
      const problems = judge(request, response.status, response.headers, text, answers.get(request.operation) as Documented);
      if (problems.length > 0) failures.push(`${request.operation} — ${request.what}: ${problems.join("; ")}\n    ${describeRequest(request)}`);
    };
    // A few requests of one operation at a time: the machine waits on storage more than it computes.
    let batch: FuzzRequest[] = [];
    const flush = async () => {
      await Promise.all(batch.map(send));
      batch = [];
    };
    for (const request of requests) {
      if (request.ordered || batch.length === CONCURRENCY || (batch.length > 0 && batch[0]?.operation !== request.operation)) await flush();
      if (request.ordered) await send(request);
      else batch.push(request);
    }
    await flush();
    console.log(
      `OpenAPI fuzzer: ${requests.length} requests in ${Date.now() - started} ms; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}; codes ${[...codes].sort().join(", ")}`,
    );
    if (rateLimited.length > 0) console.log(`OpenAPI fuzzer: 429 on ${rateLimited.join("; ")}`);
    if (failures.length > 0) console.log(`OpenAPI fuzzer failures (seed ${SEED}):\n${failures.join("\n")}`);
    expect(failures.slice(0, 40), `seed ${SEED}: ${failures.length} failures`).toEqual([]);
    expect(rateLimited.length, `429s hide the handlers: ${rateLimited.join("; ")}`).toBeLessThanOrEqual(requests.length * RATE_LIMITED_SHARE);
    // The hostile requests reached the handlers, not only the validators.
    expect([...codes]).toEqual(expect.arrayContaining(["validation_failed", "invalid_json", "unsupported_media_type", "insufficient_scope", "invalid_cursor"]));
    expect(covered.length).toBe(documents.reduce((sum, d) => sum + operations(d.body).length, 0));
  });
});
