import * as pkijs from "pkijs";
import { LOCAL_CAS, LOCAL_CRL_BASE, localCrl } from "../pki/ensure-local-pki.ts";
import { boundedCache } from "../../../shared/bounded-cache.ts";

/** A CRL as fetched: its DER bytes and when it was fetched (from the network, or earlier into the cache). */
export interface FetchedCrl {
  der: Uint8Array;
  fetchedAt: string;
}

/** Where the CRL a certificate's distribution point names is obtained (the sealer's one per process). */
export interface CrlSource {
  /** Throws CrlUnavailableError when it cannot be had (unreachable, refused, not a CRL). */
  fetch(url: string, signal?: AbortSignal): Promise<FetchedCrl>;
}

export class CrlUnavailableError extends Error {}

export interface CrlSourceOptions {
  /** The local PKI folder whose roots publish at LOCAL_CRL_BASE (ensure-local-pki.ts). */
  localPkiDir: string;
  /** Each request's time limit. */
  timeoutMs?: number;
  /** Requests per URL before giving up (a second one rides out a dropped connection). */
  attempts?: number;
  now?: () => number;
}

/** A CRL larger than this is not carried in the sealer's answer (recorded as unavailable, with the reason). */
const MAX_CRL_BYTES = 8 * 1024 * 1024;

/**
 * CRLs from the URLs certificates name, each kept until its nextUpdate (a CA promises no newer one before
 * then, and most sealing runs then cost no request). The local PKI's URLs (`http://localhost/pki/<root>.crl`)
 * are answered from its folder, issuing a new CRL when the last one lapsed, so that development and tests
 * capture revocation data the same way, without network. Concurrent requests for one URL share one fetch.
 */
export function crlSource({ localPkiDir, timeoutMs = 10_000, attempts = 2, now = Date.now }: CrlSourceOptions): CrlSource {
  // 64 distribution points (the chains' few issuers), each CRL until its nextUpdate (checked at each fetch, below).
  const cache = boundedCache<string, Promise<FetchedCrl & { nextUpdate: number }>>({ maxEntries: 64 });
  const load = async (url: string, signal?: AbortSignal): Promise<FetchedCrl & { nextUpdate: number }> => {
    const der = url.startsWith(LOCAL_CRL_BASE) ? fromLocalPki(localPkiDir, url, now()) : await fromNetwork(url, { timeoutMs, attempts, signal });
    let nextUpdate: number;
    try {
      const crl = pkijs.CertificateRevocationList.fromBER(der.slice().buffer as ArrayBuffer);
      nextUpdate = crl.nextUpdate?.value.getTime() ?? 0;
    } catch {
      throw new CrlUnavailableError(`${url} did not answer a CRL`);
    }
    return { der, fetchedAt: new Date(now()).toISOString(), nextUpdate };
  };
  return {
    async fetch(url, signal) {
      const cached = cache.get(url);
      if (cached) {
        const crl = await cached.catch(() => null);
        if (crl && crl.nextUpdate > now()) return { der: crl.der, fetchedAt: crl.fetchedAt };
        if (cache.get(url) === cached) cache.delete(url);
      }
      const loading = cache.get(url) ?? load(url, signal);
      cache.set(url, loading);
      try {
        const crl = await loading;
        return { der: crl.der, fetchedAt: crl.fetchedAt };
      } catch (error) {
        // A failure is not remembered: the next proof asks again.
        if (cache.get(url) === loading) cache.delete(url);
        throw error;
      }
    },
  };
}

function fromLocalPki(dir: string, url: string, now: number): Uint8Array {
  const root = url.slice(LOCAL_CRL_BASE.length).replace(/\.crl$/, "");
  if (!(LOCAL_CAS as readonly string[]).includes(root)) throw new CrlUnavailableError(`${url}: no such local CA`);
  return localCrl(dir, root, new Date(now));
}

async function fromNetwork(url: string, { timeoutMs, attempts, signal }: { timeoutMs: number; attempts: number; signal?: AbortSignal }): Promise<Uint8Array> {
  let problem = "";
  for (let attempt = 1; attempt <= attempts; attempt++) {
    signal?.throwIfAborted();
    try {
      const limit = AbortSignal.timeout(timeoutMs);
      const response = await fetch(url, { headers: { Accept: "application/pkix-crl" }, signal: signal ? AbortSignal.any([signal, limit]) : limit });
      if (!response.ok) {
        await response.body?.cancel();
        problem = `${url} answered ${response.status}`;
        continue;
      }
      const bytes = new Uint8Array(await response.arrayBuffer());
      if (bytes.length > MAX_CRL_BYTES) throw new CrlUnavailableError(`${url}: the CRL is larger than ${MAX_CRL_BYTES} bytes`);
      return derOfCrl(bytes);
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof CrlUnavailableError) throw error;
      problem = `${url} unreachable: ${(error as Error).message}`;
    }
  }
  throw new CrlUnavailableError(problem);
}

/** RFC 5280 says DER; a few CAs serve PEM: kept as DER either way (what the package and openssl -inform DER take). */
function derOfCrl(bytes: Uint8Array): Uint8Array {
  const text = new TextDecoder().decode(bytes.subarray(0, 64));
  if (!text.startsWith("-----BEGIN X509 CRL-----")) return bytes;
  return new Uint8Array(Buffer.from(new TextDecoder().decode(bytes).replace(/-----(BEGIN|END) X509 CRL-----|\s+/g, ""), "base64"));
}
